"""A JSON body nested deeper than any of our bodies needs is refused with a 400 before anything
decodes it: msgspec, and Python code walking the decoded value, run out of stack on a body like
`[[[[...]]]]` a thousand levels deep, which would be a 500 on any JSON route, signed in or not.

The check scans the raw bytes (strings removed first, so a bracket inside a text does not count),
so it costs one regular-expression pass and a loop over the brackets alone."""

from __future__ import annotations

import re

from litestar import Request

from application.errors import InvalidInput
from entrypoints.http.control_characters import takes_json_body

# Our deepest body is an export's rows: {"data": [{"column": value}]}. 64 leaves room for any client.
MAX_JSON_DEPTH = 64

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # a JSON string, escapes included
_BRACKET = re.compile(rb"[\[\]{}]")
_OPENING = frozenset(b"[{")


async def refuse_deep_json(request: Request) -> None:
    if takes_json_body(request) and json_depth(await request.body()) > MAX_JSON_DEPTH:
        raise InvalidInput(f"The JSON body is nested more than {MAX_JSON_DEPTH} levels deep: send a flatter one.")


def json_depth(body: bytes, stop_after: int = MAX_JSON_DEPTH) -> int:
    """How deep the arrays and objects of `body` nest, counted no further than `stop_after` + 1.
    Malformed JSON gets a number too: the decoder that follows refuses it with its own message."""
    depth = deepest = 0
    for bracket in _BRACKET.finditer(_STRING.sub(b"", body)):
        if bracket.group()[0] in _OPENING:
            depth += 1
            deepest = max(deepest, depth)
            if deepest > stop_after:
                break
        else:
            depth -= 1
    return deepest

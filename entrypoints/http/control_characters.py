"""Control characters are refused at the edge, before any handler: a NUL in a text field is
an error on PostgreSQL, a line break in a mail header is an injection, and neither belongs
in a name, an address, an id or a file path.

One before-request hook for every route checks path and query parameters, the app's cookies and every
string (and key) of a JSON body, and answers 400 naming the field. Tab, CR and LF are allowed
only in the body fields a route lists as multi-line text, in its `opt`:
`@post(..., opt={MULTILINE_FIELDS: ("body",)})`."""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

import msgspec
from litestar import Request
from litestar.enums import RequestEncodingType

from application.errors import InvalidInput

MULTILINE_FIELDS = "multiline_fields"
OWN_COOKIE_PREFIX = "ps_"  # ps_refresh, ps_oidc_state

_ANY_CONTROL = re.compile(r"[\x00-\x1f]")
_CONTROL_BUT_LINE_BREAKS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
# A JSON text can only hold a control character escaped, so a body without one of these is clean.
_JSON_CONTROL_ESCAPES = (b"\\u00", b"\\b", b"\\f", b"\\n", b"\\r", b"\\t")


class ControlCharacterRefused(InvalidInput):
    code = "validation_error"


async def refuse_control_characters(request: Request) -> None:
    for name, value in request.path_params.items():
        if isinstance(value, str | PurePath):
            _check(f"path parameter `{name}`", str(value), multiline=False)
    for name, value in request.query_params.multi_items():
        _check(f"query parameter `{name}`", f"{name}{value}", multiline=False)
    for name, value in request.cookies.items():
        # Only the app's own cookies: a stray one from another site on the same host must not lock visitors out.
        if name.startswith(OWN_COOKIE_PREFIX):
            _check(f"cookie `{name}`", value, multiline=False)
    if takes_json_body(request):
        body = await request.body()  # kept by Litestar for the handler: read once
        if any(escape in body for escape in _JSON_CONTROL_ESCAPES):
            try:
                document = msgspec.json.decode(body)
            except msgspec.DecodeError:
                return  # not JSON: Litestar answers that with its own 400
            _walk(document, "", frozenset(request.route_handler.opt.get(MULTILINE_FIELDS, ())))


def takes_json_body(request: Request) -> bool:
    data = request.route_handler.parsed_fn_signature.parameters.get("data")
    if data is None:
        return False
    media_type = getattr(data.kwarg_definition, "media_type", RequestEncodingType.JSON)
    return media_type == RequestEncodingType.JSON


def _walk(value: Any, where: str, multiline: frozenset[str], top: str = "") -> None:
    if isinstance(value, str):
        _check(f"field `{where}`" if where else "the body", value, multiline=top in multiline)
    elif isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else key
            _check(f"a field name in `{where or 'the body'}`", key, multiline=False)
            _walk(item, path, multiline, top or key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _walk(item, f"{where}[{index}]", multiline, top)


def _check(what: str, text: str, multiline: bool) -> None:
    pattern = _CONTROL_BUT_LINE_BREAKS if multiline else _ANY_CONTROL
    found = pattern.search(text)
    if found is None:
        return
    character = found.group()
    if character in "\r\n":
        raise ControlCharacterRefused(f"{_capitalized(what)} must be a single line: remove the line break.")
    raise ControlCharacterRefused(
        f"{_capitalized(what)} contains a control character (U+{ord(character):04X}). Remove it and try again."
    )


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]

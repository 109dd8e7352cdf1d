"""A stored search's answer as JSON: the typed `LookupResult` (msgspec encodes and decodes its
dataclasses directly), or, for searches stored before answers were typed, the JSON as it was."""

from __future__ import annotations

import msgspec

from domain.lookup_result import LookupResult

_decoder = msgspec.json.Decoder(LookupResult)


def encode_result(result: LookupResult | dict | None) -> str | None:
    return msgspec.json.encode(result).decode() if result is not None else None


def decode_result(text: str | None) -> LookupResult | dict | None:
    if not text:
        return None
    try:
        return _decoder.decode(text)
    except msgspec.ValidationError:
        return msgspec.json.decode(text)  # an answer stored before it had a type


def decode_typed(text: str | None) -> LookupResult | None:
    """For the search cache: only typed answers can be reused."""
    result = decode_result(text)
    return result if isinstance(result, LookupResult) else None

"""Blocks of JSON Lines records read from a stored file and handed to a synchronous consumer (the
portfolio tally, the export viewer's index): decoding is pure CPU, so large blocks go to a worker
thread and the event loop keeps serving requests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any

import msgspec

from application.ports.files import whole_lines

# Blocks larger than this are decoded in a worker thread; smaller ones in place, where a thread
# hop would cost more than the work.
IN_PLACE_BYTES = 256 * 1024


async def add_off_loop(add_block: Callable[[bytes | bytearray], None], block: bytes | bytearray) -> None:
    if len(block) <= IN_PLACE_BYTES:
        add_block(block)
    else:
        await asyncio.to_thread(add_block, block)


async def feed_records(pieces: AsyncIterator[bytes], add_block: Callable[[bytes], None]) -> None:
    """A file read in pieces, regrouped into whole records, each block given to `add_block`."""
    async for block in whole_lines(pieces):
        await add_off_loop(add_block, block)


def fields_struct(name: str, fields: Iterable[str]) -> type[msgspec.Struct]:
    """A record type of just these fields, each anything or missing (None): msgspec skips the
    record's other fields without building them, several times faster than decoding it whole."""
    return msgspec.defstruct(name, [(field, Any, None) for field in dict.fromkeys(fields)])


# Bytes that may start a blank line; a record starts with '{'.
_BLANK_START = frozenset(b" \t\r\n\x0b\x0c")


def decoded_records(block: bytes | bytearray, decode: Callable[[memoryview], msgspec.Struct]
                    ) -> Iterator[dict[str, Any]]:
    """Each record of a block of whole JSON Lines, decoded (blank lines skipped) as a dict. A
    line is decoded where it lies in the block: a chunk's block is tens of megabytes, and a list of
    its lines would be a second copy of it. A record holds no raw line break (JSON escapes them),
    and a '\\r' left before a '\\n' is JSON whitespace."""
    as_dict = msgspec.structs.asdict
    view, start, end = memoryview(block), 0, len(block)
    while start < end:
        stop = block.find(b"\n", start)
        stop = end if stop < 0 else stop
        line = view[start:stop]
        if block[start] not in _BLANK_START or bytes(line).strip():
            yield as_dict(decode(line))
        start = stop + 1

"""Where uploads, chunk results and exports live as files: streamed in and out in chunks, so no
file is ever held whole in memory (adapters/files: the local filesystem, an S3-compatible store)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from application.errors import InvalidInput, NotFound

MAX_KEY_LENGTH = 512
# Plain names joined by '/', each starting with a letter, digit or '_': nothing a filesystem or an
# object store reads specially, and no hidden names (adapters keep their partial files in those).
_NAME = r"[A-Za-z0-9_][A-Za-z0-9_.\-]*"
_KEY = re.compile(rf"{_NAME}(/{_NAME})*")


class FileWriter(Protocol):
    async def write(self, chunk: bytes) -> None: ...


@dataclass(frozen=True, slots=True)
class StoredFile:
    key: str
    size: int
    modified_at: datetime  # aware (UTC): when the file was last written


class FileStore(Protocol):
    """Blobs by key ('uploads/<user>/<id>.csv'). A writer commits the file when its block ends
    without an exception, atomically: readers see the old file or the whole new one, never part;
    an exception inside the block leaves nothing behind. Missing keys raise `NotFound`, bad keys
    `InvalidInput` (see `checked_key`)."""

    def open_writer(self, key: str) -> AbstractAsyncContextManager[FileWriter]: ...

    def read(self, key: str, chunk_size: int = ...) -> AsyncIterator[bytes]:
        """The file's bytes in chunks of at most `chunk_size`; NotFound before the first chunk."""
        ...

    async def read_range(self, key: str, start: int, length: int) -> bytes:
        """At most `length` bytes from `start` (fewer at the file's end); NotFound if missing."""
        ...

    async def size(self, key: str) -> int: ...
    async def delete(self, key: str) -> None:
        """Remove the file; deleting a missing key is not an error (a retry may delete twice)."""
        ...
    async def exists(self, key: str) -> bool: ...

    def list_files(self, prefix: str) -> AsyncIterator[StoredFile]:
        """The stored files whose keys start with `prefix` ('jobs/'), in no set order, a page at a
        time (never the whole listing in memory); files being written are not in it."""
        ...

    async def discard_unfinished(self, written_before: datetime) -> int:
        """Throw away writes whose writer died (a kill -9 leaves its partial file, or its S3
        multipart upload, behind) and that nothing was written to since `written_before`; returns
        how many."""
        ...


class FileReferences(Protocol):
    async def referenced(self, keys: Sequence[str]) -> set[str]:
        """Those of `keys` that a stored upload, job chunk or export names as one of its files."""
        ...


def checked_key(key: str) -> str:
    """The key, if it is a relative path of plain names; else InvalidInput saying why. Keys come
    from our code, but a slip must never reach outside the store (`../`, `/etc/...`)."""
    if not isinstance(key, str) or not key:
        raise InvalidInput("A file key must be a non-empty text.", code="invalid_file_key")
    if len(key) > MAX_KEY_LENGTH:
        raise InvalidInput(f"A file key must be at most {MAX_KEY_LENGTH} characters.", code="invalid_file_key")
    if key.startswith("/"):
        raise InvalidInput(f"File key {key[:80]!r} is absolute; use a relative key such as 'uploads/a.csv'.",
                           code="invalid_file_key")
    if any(part in {".", ".."} for part in key.split("/")):
        raise InvalidInput(f"File key {key[:80]!r} may not contain '.' or '..' as a name.", code="invalid_file_key")
    if not _KEY.fullmatch(key):
        raise InvalidInput(
            f"File key {key[:80]!r} must be names of letters, digits, '_', '-' and '.' (each starting with a "
            "letter, digit or '_') joined by single '/'.",
            code="invalid_file_key",
        )
    return key


def missing(key: str) -> NotFound:
    return NotFound(f"No stored file {key!r}: it was deleted or never written.", code="file_not_found")


async def whole_lines(pieces: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """`pieces` (a file read in chunks, cut anywhere) regrouped into blocks of whole lines, each
    ending with its newline (the last may lack one), so a reader can decode line by line while
    holding no more than one piece and one partial line."""
    tail = b""
    async for piece in pieces:
        block = tail + piece if tail else piece
        cut = block.rfind(b"\n") + 1
        if cut:
            yield block[:cut]
        tail = block[cut:]
    if tail:
        yield tail

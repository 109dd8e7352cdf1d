"""A FileStore in a dict (application/ports/files.py), with the adapters' rules: a writer commits
its whole file when its block ends, nothing when it fails; reads come in pieces."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from application.ports.files import checked_key, missing


class _Writer:
    def __init__(self) -> None:
        self.content = bytearray()

    async def write(self, chunk: bytes) -> None:
        self.content += chunk


class InMemoryFileStore:
    def __init__(self, piece_size: int = 64 * 1024) -> None:
        self.files: dict[str, bytes] = {}
        self._piece_size = piece_size

    @asynccontextmanager
    async def open_writer(self, key: str) -> AsyncIterator[_Writer]:
        writer = _Writer()
        checked_key(key)
        yield writer
        self.files[key] = bytes(writer.content)

    async def read(self, key: str, chunk_size: int | None = None) -> AsyncIterator[bytes]:
        if checked_key(key) not in self.files:
            raise missing(key)
        content, size = self.files[key], chunk_size or self._piece_size
        for start in range(0, len(content), size):
            yield content[start:start + size]

    async def size(self, key: str) -> int:
        if key not in self.files:
            raise missing(key)
        return len(self.files[key])

    async def delete(self, key: str) -> None:
        self.files.pop(checked_key(key), None)

    async def exists(self, key: str) -> bool:
        return key in self.files

    def text(self, key: str | None) -> str:
        """A stored file as text ('' for no key): what a test reads back."""
        return self.files[key].decode() if key else ""


async def collected(chunks: AsyncIterator[bytes]) -> bytes:
    """A streamed file's bytes, whole (tests only)."""
    return b"".join([chunk async for chunk in chunks])

"""`FileStore` on the local filesystem (the embedded default, under var/files). A writer fills a
temporary file beside the store and renames it into place when it succeeds, so a reader never sees
half a file; file IO runs in worker threads so the event loop keeps serving requests."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from application.ports.files import StoredFile, checked_key, missing

DEFAULT_CHUNK_SIZE = 1024 * 1024
PARTIAL_DIR = ".partial"  # a hidden name: no key can reach it (checked_key)


class LocalFileWriter:
    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle

    async def write(self, chunk: bytes) -> None:
        if chunk:
            await asyncio.to_thread(self._handle.write, chunk)


class LocalFileStore:
    def __init__(self, root: Path) -> None:
        self._root = Path(root).resolve()

    def _path(self, key: str) -> Path:
        return self._root / checked_key(key)

    @asynccontextmanager
    async def open_writer(self, key: str) -> AsyncIterator[LocalFileWriter]:
        target = self._path(key)
        # Same filesystem as the target, so the final rename is atomic.
        partial = self._root / PARTIAL_DIR / f"{uuid.uuid4().hex}.part"
        handle = await asyncio.to_thread(_open_partial, partial)
        try:
            yield LocalFileWriter(handle)
            await asyncio.to_thread(_commit, handle, partial, target)
        except BaseException:
            await asyncio.to_thread(_discard, handle, partial)
            raise

    async def read(self, key: str, chunk_size: int = DEFAULT_CHUNK_SIZE) -> AsyncIterator[bytes]:
        path = self._path(key)
        try:
            handle = await asyncio.to_thread(path.open, "rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise missing(key) from None
        try:
            while chunk := await asyncio.to_thread(handle.read, chunk_size):
                yield chunk
        finally:
            await asyncio.to_thread(handle.close)

    async def read_range(self, key: str, start: int, length: int) -> bytes:
        try:
            return await asyncio.to_thread(_read_range, self._path(key), start, length)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise missing(key) from None

    async def size(self, key: str) -> int:
        path = self._path(key)
        try:
            stat = await asyncio.to_thread(path.stat)
        except (FileNotFoundError, NotADirectoryError):
            raise missing(key) from None
        if not path.is_file():
            raise missing(key)
        return stat.st_size

    async def delete(self, key: str) -> None:
        path = self._path(key)
        try:
            await asyncio.to_thread(path.unlink)
        except (FileNotFoundError, NotADirectoryError):
            pass

    async def exists(self, key: str) -> bool:
        return await asyncio.to_thread(self._path(key).is_file)

    async def discard_unfinished(self, written_before: datetime) -> int:
        files, _ = await asyncio.to_thread(_entries, self._root / PARTIAL_DIR, True)
        stale = [path for path, _, modified in files if modified < written_before.timestamp()]
        for path in stale:
            await asyncio.to_thread(path.unlink, missing_ok=True)
        return len(stale)

    async def list_files(self, prefix: str) -> AsyncIterator[StoredFile]:
        # One directory read at a time (a job's chunk files, a user's exports): memory holds one
        # directory's entries, whatever the store's size. Hidden names (partial files) are no keys.
        pending = [self._root / prefix.rpartition("/")[0]] if prefix.rpartition("/")[0] else [self._root]
        while pending:
            files, directories = await asyncio.to_thread(_entries, pending.pop())
            pending.extend(directories)
            for path, size, modified in files:
                key = path.relative_to(self._root).as_posix()
                if key.startswith(prefix):
                    yield StoredFile(key, size, datetime.fromtimestamp(modified, UTC))


def _entries(directory: Path, hidden: bool = False) -> tuple[list[tuple[Path, int, float]], list[Path]]:
    """A directory's files (path, size, modification time) and subdirectories, hidden names left
    out unless `hidden`."""
    files, directories = [], []
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.name.startswith(".") and not hidden:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    directories.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    stat = entry.stat(follow_symlinks=False)
                    files.append((Path(entry.path), stat.st_size, stat.st_mtime))
    except (FileNotFoundError, NotADirectoryError):
        pass  # nothing stored there (yet), or deleted since it was listed
    return files, directories


def _read_range(path: Path, start: int, length: int) -> bytes:
    with path.open("rb") as handle:
        handle.seek(start)
        return handle.read(length)


def _open_partial(partial: Path) -> BinaryIO:
    partial.parent.mkdir(parents=True, exist_ok=True)
    return partial.open("xb")


def _commit(handle: BinaryIO, partial: Path, target: Path) -> None:
    handle.flush()
    os.fsync(handle.fileno())  # the bytes are on disk before the name points at them
    handle.close()
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(partial, target)


def _discard(handle: BinaryIO, partial: Path) -> None:
    handle.close()
    partial.unlink(missing_ok=True)

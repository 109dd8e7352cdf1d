"""`FileStore` on the local filesystem (the embedded default, under var/files). A writer fills a
temporary file beside the store and renames it into place when it succeeds, so a reader never sees
half a file; file IO runs in worker threads so the event loop keeps serving requests.

An export's file composed before issue #27 (its chunks' files put together without a copy) is a
directory of hard links to its parts, named `<key>+parts` ('+' is in no key, so no key can name
it or anything in it): it reads, lists and deletes as one file until `perilscope exports convert`
has made its export a dataset and deleted it. Nothing composes files any more."""

from __future__ import annotations

import asyncio
import os
import shutil
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from application.ports.files import StoredFile, checked_key, missing

DEFAULT_CHUNK_SIZE = 1024 * 1024
PARTIAL_DIR = ".partial"  # a hidden name: no key can reach it (checked_key)
COMPOSED_SUFFIX = "+parts"


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
            await asyncio.to_thread(_commit, handle, partial, target, self._composed(key))
        except BaseException:
            await asyncio.to_thread(_discard, handle, partial)
            raise

    def _composed(self, key: str) -> Path:
        return self._root / (checked_key(key) + COMPOSED_SUFFIX)

    async def _paths(self, key: str) -> list[Path]:
        """The files holding the key's bytes, in order: the file itself, or a composed file's parts."""
        path = self._path(key)
        if await asyncio.to_thread(path.is_file):
            return [path]
        parts = await asyncio.to_thread(_parts, self._composed(key))
        if parts is None:
            raise missing(key)
        return parts

    async def read(self, key: str, chunk_size: int = DEFAULT_CHUNK_SIZE) -> AsyncIterator[bytes]:
        for path in await self._paths(key):
            try:
                handle = await asyncio.to_thread(path.open, "rb")
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                raise missing(key) from None  # deleted since it was found
            try:
                while chunk := await asyncio.to_thread(handle.read, chunk_size):
                    yield chunk
            finally:
                await asyncio.to_thread(handle.close)

    async def read_range(self, key: str, start: int, length: int) -> bytes:
        try:
            return await asyncio.to_thread(_read_range, await self._paths(key), start, length)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise missing(key) from None

    async def size(self, key: str) -> int:
        try:
            return await asyncio.to_thread(_total_size, await self._paths(key))
        except (FileNotFoundError, NotADirectoryError):
            raise missing(key) from None

    async def delete(self, key: str) -> None:
        await self._unlink(key)
        await asyncio.to_thread(_remove_tree, self._composed(key))

    async def _unlink(self, key: str) -> None:
        try:
            await asyncio.to_thread(self._path(key).unlink)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            pass

    async def exists(self, key: str) -> bool:
        return await asyncio.to_thread(lambda: self._path(key).is_file() or self._composed(key).is_dir())

    async def discard_unfinished(self, written_before: datetime) -> int:
        files, directories = await asyncio.to_thread(_entries, self._root / PARTIAL_DIR, True)
        stale = [path for path, _, modified in files if modified < written_before.timestamp()]
        for path in stale:
            await asyncio.to_thread(path.unlink, missing_ok=True)
        # A composed file whose maker died before renaming it into place (before issue #27).
        stale_composed = [path for path in directories if _modified(path) < written_before.timestamp()]
        for path in stale_composed:
            await asyncio.to_thread(_remove_tree, path)
        return len(stale) + len(stale_composed)

    async def list_files(self, prefix: str) -> AsyncIterator[StoredFile]:
        # One directory read at a time (a job's chunk files, a user's exports): memory holds one
        # directory's entries, whatever the store's size. Hidden names (partial files) are no keys.
        pending = [self._root / prefix.rpartition("/")[0]] if prefix.rpartition("/")[0] else [self._root]
        while pending:
            files, directories = await asyncio.to_thread(_entries, pending.pop())
            pending.extend(path for path in directories if not path.name.endswith(COMPOSED_SUFFIX))
            composed = [path for path in directories if path.name.endswith(COMPOSED_SUFFIX)]
            files += await asyncio.to_thread(_composed_entries, composed)
            for path, size, modified in files:
                key = path.relative_to(self._root).as_posix().removesuffix(COMPOSED_SUFFIX)
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


def _read_range(paths: list[Path], start: int, length: int) -> bytes:
    """`length` bytes from `start` of the files' bytes joined, read only from the files they span."""
    pieces = []
    for path in paths:
        if length <= 0:
            break
        size = path.stat().st_size
        if start >= size:
            start -= size
            continue
        with path.open("rb") as handle:
            handle.seek(start)
            piece = handle.read(length)
        pieces.append(piece)
        start, length = 0, length - len(piece)
    return b"".join(pieces)


def _total_size(paths: list[Path]) -> int:
    return sum(path.stat().st_size for path in paths)


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return float("inf")  # gone already: nothing to discard


def _parts(directory: Path) -> list[Path] | None:
    """A composed file's parts in order (named by their place), or None when there is none."""
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return [directory / name for name in sorted(names, key=int)]


def _composed_entries(directories: list[Path]) -> list[tuple[Path, int, float]]:
    """Composed files as the listing shows them: one file each, its parts' bytes together."""
    entries = []
    for directory in directories:
        try:
            parts = _parts(directory) or []
            entries.append((directory, _total_size(parts), directory.stat().st_mtime))
        except FileNotFoundError:
            pass  # deleted since it was listed
    return entries


def _remove_tree(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)


def _open_partial(partial: Path) -> BinaryIO:
    partial.parent.mkdir(parents=True, exist_ok=True)
    return partial.open("xb")


def _commit(handle: BinaryIO, partial: Path, target: Path, composed: Path) -> None:
    handle.flush()
    os.fsync(handle.fileno())  # the bytes are on disk before the name points at them
    handle.close()
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(partial, target)
    if composed.exists():  # a file written over a composed one replaces it
        _remove_tree(composed)


def _discard(handle: BinaryIO, partial: Path) -> None:
    handle.close()
    partial.unlink(missing_ok=True)

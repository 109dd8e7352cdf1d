"""Where a batch's input files live in the FileStore (application/ports/files.py), and reading
them back a piece at a time: an upload's UTF-8 text, and each chunk's CSV."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from application.ports.batch import UploadedFile
from application.ports.chunks import ChunkSource
from application.ports.files import FileStore, FileWriter
from domain.batch_input import BatchCsvReader, CsvRow, UploadCaps

# Bytes handed to the CSV reader at once when a caller has the whole body (a test, a bench, a CLI):
# the reader's work between two awaits stays that of one network read.
PIECE_BYTES = 256 * 1024


def upload_key(user_id: str, upload_id: str) -> str:
    return f"uploads/{user_id}/{upload_id}.csv"


def chunk_input_key(job_id: str, index: int) -> str:
    return f"jobs/{job_id}/in/{index}.csv"


def job_of_key(key: str) -> str | None:
    """The job whose chunk files are under the key ('jobs/<job>/...'; see also result_files.py), or None."""
    parts = key.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "jobs" else None


async def pieces(body: bytes | AsyncIterable[bytes]) -> AsyncIterator[bytes]:
    """A body as pieces of bytes, whether it came whole or as a stream."""
    if isinstance(body, bytes | bytearray | memoryview):
        view = memoryview(body)
        for start in range(0, len(view), PIECE_BYTES):
            yield bytes(view[start:start + PIECE_BYTES])
        return
    async for piece in body:
        if piece:
            yield piece


def upload_bytes(files: FileStore, upload: UploadedFile) -> AsyncIterable[bytes]:
    """The upload's stored text, streamed from the FileStore (or, for an upload of before the
    file store, from the database row)."""
    if upload.file_key is None:
        return pieces((upload.content or "").encode())
    return files.read(upload.file_key)


async def stored_rows(
    files: FileStore, upload: UploadedFile, caps: UploadCaps
) -> AsyncIterator[tuple[BatchCsvReader, CsvRow]]:
    """The upload's rows as read again, one piece of the file in memory at a time."""
    reader = BatchCsvReader("upload.csv", caps)
    async for piece in upload_bytes(files, upload):
        for row in reader.feed(piece)[1]:
            yield reader, row
    for row in reader.finish()[1]:
        yield reader, row


async def read_whole(files: FileStore, key: str) -> bytes:
    """A small file whole (a chunk's CSV or part, a stored summary)."""
    return b"".join([piece async for piece in files.read(key)])


async def chunk_text(files: FileStore, source: ChunkSource) -> str:
    """A chunk's CSV: a few thousand rows, read whole."""
    if source.input_key is None:
        return source.text or ""
    return (await read_whole(files, source.input_key)).decode()


async def write_utf8(writer: FileWriter, text: str) -> int:
    """Write text as UTF-8; returns its size in bytes."""
    data = text.encode()
    await writer.write(data)
    return len(data)


async def write_bytes(files: FileStore, key: str, content: bytes) -> int:
    """Store `content` under `key`; returns its size."""
    async with files.open_writer(key) as writer:
        await writer.write(content)
    return len(content)


async def write_text(files: FileStore, key: str, text: str) -> int:
    """Store text as UTF-8 under `key`; returns its size in bytes."""
    return await write_bytes(files, key, text.encode())

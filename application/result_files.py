"""Where a batch's results live in the file store (application/ports/files.py): each chunk's
result, written by the claim that answered it, and each export's files, assembled from them.

Keys: `jobs/<job>/out/<chunk>.a<attempt>.lines|.jsonl|.rows|.rows.json|.tally` (the attempt is the claim's
fencing token, so a claimant whose lease was taken over writes beside the winner, never over it) and
`exports/<user>/<export id>.csv|.jsonl|.summary|.rows` (.summary: the portfolio tally, MessagePack,
where exports assembled before hold a .summary.json; .rows: the viewer's index of its rows). An
export's .csv and .jsonl, and the rows of its .rows, are composed of its chunks' files
(FileStore.compose), so the chunks' keys can go once it is stored while their bytes stay, as the export's."""

from __future__ import annotations

import asyncio

from collections import deque
from collections.abc import AsyncIterator, Awaitable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import msgspec

from application.batch_files import pieces, read_whole, write_bytes, write_text
from application.errors import NotFound
from application.ports.batch import BatchStore, ExportFile
from application.export_records import ExportRecords
from application.ports.chunks import ChunkFiles, ChunkOutput, ChunkResult, ClaimedChunk, part_keys
from application.ports.files import FileStore
from application.portfolio_tally import decode_tally_state, encode_tally
from application.record_blocks import add_off_loop, feed_records
from application.rows_index import StoredIndexMerger, UnreadableIndex, read_index_part
from domain.portfolio import PortfolioTally


T = TypeVar("T")

# Chunks whose parts are read ahead of the one merged: enough to hide a read behind a merge, a
# few hundred kilobytes each.
PARTS_AHEAD = 4


@dataclass(frozen=True, slots=True)
class ExportKeys:
    csv: str
    detail: str
    summary: str
    rows_index: str


def export_keys(user_id: str, export_id: str) -> ExportKeys:
    stem = f"exports/{user_id}/{export_id}"
    return ExportKeys(f"{stem}.csv", f"{stem}.jsonl", f"{stem}.summary", f"{stem}.rows")


def export_of_key(key: str) -> str | None:
    """The export whose file the key is ('exports/<user>/<export>.<kind>'), or None."""
    parts = key.split("/")
    return parts[2].partition(".")[0] if len(parts) == 3 and parts[0] == "exports" else None


async def write_chunk(files: FileStore, chunk: ClaimedChunk, result: ChunkResult) -> ChunkFiles:
    """The chunk's result as this claim's files: its export lines, its detailed records, and what
    the export makes of them: the viewer's index of its rows and the portfolio tally. Made here,
    by whichever worker ran the chunk, so the export's assembly, done once by one process, merges
    small parts instead of decoding every record."""
    stem = f"jobs/{chunk.job_id}/out/{chunk.plan.index}.a{chunk.attempt}"
    lines_key, detail_key = f"{stem}.lines", f"{stem}.jsonl"
    records = ExportRecords(first_index=chunk.plan.first_row)
    await add_off_loop(records.add_block, result.detail)
    lines_bytes = await write_text(files, lines_key, result.lines)
    detail_bytes = await write_bytes(files, detail_key, result.detail)
    parts = part_keys(detail_key)
    await write_bytes(files, parts.rows_json, records.rows_index.take_rows())
    await write_bytes(files, parts.rows_index, records.rows_index.stored_tail())
    await write_bytes(files, parts.tally, encode_tally(records.summary.tally))
    return ChunkFiles(lines_key, lines_bytes, detail_key, detail_bytes, result.detail_columns,
                      rows_failed=result.rows_failed, error=result.error)


@dataclass(frozen=True, slots=True)
class ReadParts:
    """A chunk's parts as read from the store, and the size of its rows' JSON; None where one is
    missing."""

    rows_index: bytes | None
    tally: bytes | None
    rows_json_bytes: int | None = None


async def read_parts(files: FileStore, output: ChunkOutput) -> ReadParts:
    if output.detail_key is None:
        return ReadParts(None, None)
    parts = part_keys(output.detail_key)
    rows_index, tally, rows_json_bytes = await asyncio.gather(
        _unless_missing(read_whole(files, parts.rows_index)), _unless_missing(read_whole(files, parts.tally)),
        _unless_missing(files.size(parts.rows_json)))
    return ReadParts(rows_index, tally, rows_json_bytes)


async def _unless_missing(answer: Awaitable[T]) -> T | None:
    try:
        return await answer
    except NotFound:
        return None


async def with_parts_read_ahead(files: FileStore, outputs: AsyncIterator[ChunkOutput], ahead: int = PARTS_AHEAD
                                ) -> AsyncIterator[tuple[ChunkOutput, ReadParts]]:
    """Each chunk's output with its parts, the next chunks' parts being read meanwhile: the
    reads (threads on the local store, requests on S3) overlap the merging of the one before,
    where one after the other they were a sixth of an export's assembly."""
    reading: deque[tuple[ChunkOutput, asyncio.Task[ReadParts]]] = deque()
    try:
        async for output in outputs:
            reading.append((output, asyncio.ensure_future(read_parts(files, output))))
            if len(reading) > ahead:
                first, parts = reading.popleft()
                yield first, await parts
        while reading:
            first, parts = reading.popleft()
            yield first, await parts
    finally:  # an assembly that failed or stopped early leaves no read running
        for _, parts in reading:
            parts.cancel()
        await asyncio.gather(*(parts for _, parts in reading), return_exceptions=True)


async def merge_parts(files: FileStore, output: ChunkOutput, parts: ReadParts, index: StoredIndexMerger,
                      tally: PortfolioTally) -> str | bytes:
    """The chunk's parts taken into the export's index and tally. Gives the rows' JSON that goes
    next in the index's file: the key of the chunk's file of it, to compose (no byte of it passes
    through here), or, for a part stored with its JSON inside, the JSON. A chunk from before parts,
    or whose parts are missing or damaged, has them made from its records now."""
    if parts.rows_index is not None and parts.tally is not None and output.detail_key is not None:
        try:
            tally_part = decode_tally_state(parts.tally)
            index_part = read_index_part(parts.rows_index)  # checks the part before taking it in
        except (UnreadableIndex, msgspec.DecodeError, msgspec.ValidationError):
            pass
        else:
            in_front = len(index_part.rows_in_front) == index_part.rows_bytes
            if in_front or parts.rows_json_bytes == index_part.rows_bytes:
                index.take(index_part)
                tally.merge(tally_part)
                return bytes(index_part.rows_in_front) if in_front else part_keys(output.detail_key).rows_json
    records = ExportRecords(first_index=output.plan.first_row)
    await feed_records(stored_bytes(files, output.detail_key, output.legacy_detail), records.add_block)
    rows = index.part_rows(records.rows_index.stored())
    tally.merge(records.summary.tally)
    return bytes(rows)


class ScratchFiles:
    """Small files an export is composed of besides the chunks' own (its CSV header, a chunk's
    result kept as text before result files), written under `prefix` and deleted once composed."""

    def __init__(self, files: FileStore, prefix: str) -> None:
        self._files = files
        self._prefix = prefix
        self._keys: list[str] = []

    async def write(self, name: str, content: bytes) -> str:
        return await self.write_pieces(name, [content])

    async def write_pieces(self, name: str, pieces: Iterable[bytes | memoryview]) -> str:
        key = f"{self._prefix}.{name}"
        self._keys.append(key)
        async with self._files.open_writer(key) as writer:
            for piece in pieces:
                await writer.write(piece)
        return key

    async def delete(self) -> None:
        await delete_files(self._files, self._keys)


async def delete_files(files: FileStore, keys: Iterable[str]) -> None:
    for key in keys:
        await files.delete(key)


async def stored_size(files: FileStore, keys: Iterable[str]) -> int:
    """The files' bytes together, as the store has them."""
    return sum([await files.size(key) for key in keys])


def stored_bytes(files: FileStore, key: str | None, legacy_text: str | None) -> AsyncIterator[bytes]:
    """A result's bytes: its file, or the text a row kept before result files."""
    return files.read(key) if key is not None else pieces((legacy_text or "").encode())


async def export_bytes(files: FileStore, store: BatchStore, export: ExportFile, detailed: bool
                       ) -> AsyncIterator[bytes] | None:
    """The export's CSV, or its detailed JSON Lines records, in pieces; None when it has no such part."""
    if not export.legacy:
        key = export.detail_key if detailed else export.csv_key
        return files.read(key) if key is not None else None
    text = await store.legacy_text(export.user_id, export.name, detailed)
    return None if text is None else pieces(text.encode())


async def primed(pieces: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """`pieces` with its first piece already read: a missing file or a failing conversion raises
    here, before a response has started, so the caller still answers with a clear status."""
    iterator = aiter(pieces)
    first = await anext(iterator, None)

    async def rest() -> AsyncIterator[bytes]:
        try:
            if first is not None:
                yield first
            async for piece in iterator:
                yield piece
        finally:  # a client gone mid-download: the file is released now, not when collected
            if hasattr(iterator, "aclose"):
                await iterator.aclose()

    return rest()

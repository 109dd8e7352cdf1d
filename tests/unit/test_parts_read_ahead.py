"""An export's assembly reads the next chunks' parts while it merges one (result_files.
with_parts_read_ahead): every chunk comes once, in order, with its own parts; no more than the
reads ahead are running; and an assembly that stops early leaves no read behind."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from application.ports.chunks import ChunkOutput, part_keys
from application.result_files import ReadParts, with_parts_read_ahead
from domain.chunks import ChunkPlan
from tests.fakes import InMemoryFileStore
from tests.waiting import settle, until


def output(index: int, with_files: bool = True) -> ChunkOutput:
    detail_key = f"jobs/j1/out/{index}.a1.jsonl" if with_files else None
    return ChunkOutput(ChunkPlan(index, index * 10, 10), None, detail_key, ())


async def outputs(count: int, without_files: frozenset[int] = frozenset()) -> AsyncIterator[ChunkOutput]:
    for index in range(count):
        yield output(index, index not in without_files)


def stored(count: int) -> InMemoryFileStore:
    files = InMemoryFileStore()
    for index in range(count):
        parts = part_keys(f"jobs/j1/out/{index}.a1.jsonl")
        files.files[parts.rows_index] = f"rows {index}".encode()
        files.files[parts.tally] = f"tally {index}".encode()
    return files


class GatedStore(InMemoryFileStore):
    """Reads of chunks other than `passing` wait until the test lets them end; it sees which
    have started."""

    def __init__(self, passing: str | None = None) -> None:
        super().__init__()
        self.started: list[str] = []
        self.gate = asyncio.Event()
        self._passing = passing

    async def read(self, key: str, chunk_size: int | None = None) -> AsyncIterator[bytes]:
        self.started.append(key)
        if not key.startswith(f"jobs/j1/out/{self._passing}."):
            await self.gate.wait()
        async for piece in super().read(key, chunk_size):
            yield piece


async def test_every_chunk_comes_once_in_order_with_its_own_parts() -> None:
    files = stored(9)
    del files.files[part_keys("jobs/j1/out/4.a1.jsonl").tally]
    seen = [(chunk.plan.index, parts) async for chunk, parts in
            with_parts_read_ahead(files, outputs(10, without_files=frozenset({7})), ahead=3)]
    assert [index for index, _ in seen] == list(range(10))
    expected = {index: ReadParts(f"rows {index}".encode(), f"tally {index}".encode()) for index in range(9)}
    expected[4] = ReadParts(b"rows 4", None)  # a missing part: its records are read instead
    expected[7] = ReadParts(None, None)  # a chunk from before result files
    assert dict(seen) == expected | {9: ReadParts(None, None)}


async def test_the_reads_run_ahead_of_the_merge_by_at_most_the_chunks_ahead() -> None:
    files = GatedStore()
    files.files.update(stored(10).files)
    chunks = with_parts_read_ahead(files, outputs(10), ahead=3)
    first = asyncio.ensure_future(anext(chunks))
    await until(lambda: len(files.started) >= 8)
    await settle()  # a ninth read, if one were started, would have started by now
    # Chunk 0 is awaited while chunks 1 to 3 are read too, two parts each; chunk 4 is not asked for yet.
    assert not first.done()
    assert sorted({key.split("/")[-1].split(".")[0] for key in files.started}) == ["0", "1", "2", "3"]
    assert len(files.started) == 8
    files.gate.set()
    chunk, parts = await first
    assert chunk.plan.index == 0 and parts.tally == b"tally 0"
    await chunks.aclose()


async def test_an_assembly_that_stops_leaves_no_read_running() -> None:
    files = GatedStore(passing="0")
    files.files.update(stored(10).files)
    chunks = with_parts_read_ahead(files, outputs(10), ahead=4)
    async for chunk, _ in chunks:
        assert chunk.plan.index == 0
        break
    reading = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    assert len(reading) == 4 * 3  # chunks 1 to 4 read ahead (each: its two parts at once), waiting ...
    async with asyncio.timeout(2):  # a read left waiting would hold this forever
        await chunks.aclose()  # ... until the assembly lets go of its chunks, as `async for` ending by an error does
    assert all(task.cancelled() for task in reading)
    assert len(files.started) == 5 * 2  # and nothing read past them

"""Assembling an export writes its manifest and its merged score rows, nothing else: the chunks'
facts files are the export's (no byte copied, composed or read), listed in input order, their
score files are merged into one (adapters/results/export_scores.py, stood in for here: the real
merge is tested in tests/integration/test_result_dataset.py), and its size is every file's as
stored; memory stays small however many chunks (tracemalloc measures every allocation during the
assembly). A missing or repeated chunk is a bug, refused rather than written into an export."""

from __future__ import annotations

import tracemalloc
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from application.ports.batch import BatchJob
from application.ports.chunks import ChunkOutput
from application.ports.files import FileStore
from application.ports.results import MergedScores, decode_manifest
from domain.chunks import ChunkPlan
from tests.fakes import in_memory_batch

CHUNKS, ROWS_PER_CHUNK = 2000, 5000  # ten million rows
MB = 1024 * 1024


def _job(total: int) -> BatchJob:
    return BatchJob(id="job-1", user_id="ann", file_id=None, status="running", stage="export", done=0,
                    total=total, created_at=datetime.now(UTC))


def _output(index: int, first_row: int, rows: int) -> ChunkOutput:
    stem = f"jobs/job-1/out/{index}.a1"
    return ChunkOutput(ChunkPlan(index, first_row, rows), f"{stem}.facts.parquet", f"{stem}.scores.parquet",
                       size_bytes=40_000 + index, user_columns=("Street Address", "City", "State", "Zip", "TIV"))


class _RecordedMerge:
    """Writes a stand-in of the merged file and says the chunks' score files were 1,000 bytes each."""

    def __init__(self) -> None:
        self.merged: list[str] = []

    async def merge(self, files: FileStore, chunk_scores: list[str], key: str) -> MergedScores:
        self.merged = list(chunk_scores)
        async with files.open_writer(key) as writer:
            await writer.write(b"merged")
        return MergedScores(key=key, size_bytes=6, merged_bytes=1000 * len(chunk_scores))


async def _each(outputs: list[ChunkOutput]) -> AsyncIterator[ChunkOutput]:
    for output in outputs:
        yield output


async def test_an_export_of_many_chunks_is_its_manifest_in_input_order_in_small_memory() -> None:
    world = in_memory_batch()
    world.service._scores = merge = _RecordedMerge()  # noqa: SLF001
    tracemalloc.start()
    try:
        outputs = (_output(index, index * ROWS_PER_CHUNK, ROWS_PER_CHUNK) for index in range(CHUNKS))

        async def results() -> AsyncIterator[ChunkOutput]:
            for output in outputs:
                yield output

        export = await world.service.assemble(_job(CHUNKS * ROWS_PER_CHUNK), results())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * MB, f"assembling took {peak / MB:.1f} MB at its peak"
    scores_key = f"exports/ann/{export.id}.scores.parquet"
    assert sorted(world.files.files) == sorted([export.manifest_key, scores_key])  # nothing else written
    assert export.keys == (export.manifest_key,) and export.manifest_key == f"exports/ann/{export.id}.manifest.json"
    manifest = decode_manifest(world.files.files[export.manifest_key])
    assert manifest.scores == scores_key and merge.merged == [f"jobs/job-1/out/{i}.a1.scores.parquet" for i in range(CHUNKS)]
    assert manifest.rows == CHUNKS * ROWS_PER_CHUNK and manifest.version == 1
    assert manifest.user_columns == ["Street Address", "City", "State", "Zip", "TIV"]
    assert [(c.index, c.first_row, c.rows) for c in manifest.chunks[:2]] == [(0, 0, 5000), (1, 5000, 5000)]
    assert manifest.chunks[7].facts == "jobs/job-1/out/7.a1.facts.parquet"
    assert manifest.chunks[7].scores is None and manifest.scores_keys == (scores_key,)
    # The chunks' sizes, less their score files (merged), plus the merged file and the manifest.
    chunk_bytes = sum(40_000 + index for index in range(CHUNKS)) - 1000 * CHUNKS
    assert export.size_bytes == chunk_bytes + 6 + len(world.files.files[export.manifest_key])
    assert export.detail_columns == ("Street Address", "City", "State", "Zip", "TIV")


@pytest.mark.parametrize("plans", [
    [(0, 0, 2), (2, 4, 2)],  # a chunk missing
    [(0, 0, 2), (1, 2, 2), (1, 2, 2)],  # a chunk twice
])
async def test_a_missing_or_repeated_chunk_is_refused_and_nothing_is_written(plans: list[tuple[int, int, int]]) -> None:
    world = in_memory_batch()
    with pytest.raises(ValueError, match="expected row"):
        await world.service.assemble(_job(6), _each([_output(*plan) for plan in plans]))
    assert world.files.files == {}


async def test_a_chunk_without_its_files_is_refused() -> None:
    world = in_memory_batch()
    gone = ChunkOutput(ChunkPlan(0, 0, 2), None, None, 0, ())
    with pytest.raises(ValueError, match="no result files"):
        await world.service.assemble(_job(2), _each([gone]))

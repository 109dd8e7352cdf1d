"""Assembling an export composes it of the chunks' files (no byte copied) and merges their parts:
memory stays at a read buffer or two, however large the export, and the rows come out in input order (tracemalloc measures every
allocation, in every thread, during the assembly); the summary and the viewer's index of rows
stored beside it equal ones built afresh from the detailed records."""

from __future__ import annotations

import tracemalloc
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from adapters.files.local import LocalFileStore
from application.portfolio_tally import decode_summary, tally_lines
from application.rows_index import build_index, decode_stored
from application.ports.batch import BatchJob
from application.ports.chunks import ChunkOutput, ChunkResult, ChunkSource, ClaimedChunk, part_keys
from application.result_files import write_chunk
from domain.chunks import ChunkPlan
from tests.fakes import collected, in_memory_batch

CHUNKS, ROWS_PER_CHUNK = 60, 200
MB = 1024 * 1024


def record(row: int) -> bytes:
    """A detailed record as big as a real one (a few KB: the receipt and perils make most of it)."""
    return msgspec.json.encode({
        "row": row + 2, "input": {"policy": f"P-{row}"}, "status": "answered", "match_level": "zip_centroid",
        "county_fips": f"{53000 + row % 40:05d}", "county_name": "King", "county_state": "WA",
        "Total_Score": (row * 7) % 100, "risk_rating": "Relatively High", "address": f"{row} Main St",
        "receipt": "x" * 3000,
    }) + b"\n"


async def test_an_export_of_many_chunks_is_assembled_in_order_in_flat_memory(tmp_path: Path) -> None:
    files = LocalFileStore(tmp_path / "files")
    world = in_memory_batch(files=files)  # type: ignore[arg-type]
    outputs = []
    for index in range(CHUNKS):
        rows = range(index * ROWS_PER_CHUNK, (index + 1) * ROWS_PER_CHUNK)
        result = ChunkResult(lines="".join(f"{row} Main St,line\r\n" for row in rows),
                             detail=b"".join(record(row) for row in rows), detail_columns=("policy",))
        claim = ClaimedChunk("job-1", ChunkPlan(index, rows.start, len(rows)), ChunkSource(None, ""), 0, attempt=1, owner="w:1")
        written = await write_chunk(files, claim, result)
        outputs.append(ChunkOutput(claim.plan, written.lines_key, written.detail_key, written.detail_columns))
    chunk_bytes = sum((tmp_path / "files" / key).stat().st_size for output in outputs
                      for key in (output.lines_key, output.detail_key))
    # A chunk from before parts has none, and a part may be damaged: made from its records then.
    for output in outputs[::7]:
        (tmp_path / "files" / part_keys(output.detail_key).rows_index).unlink()
    for output in outputs[3::7]:
        (tmp_path / "files" / part_keys(output.detail_key).tally).write_bytes(b"not a tally")
    for output in outputs[5::7]:  # the rows' JSON is gone: the arrays alone cannot make the index
        (tmp_path / "files" / part_keys(output.detail_key).rows_json).unlink()
    for output in outputs[6::7]:  # a part stored before its rows' JSON had a file of its own holds it in front
        parts = part_keys(output.detail_key)
        rows_json = (tmp_path / "files" / parts.rows_json)
        with (tmp_path / "files" / parts.rows_index).open("r+b") as part:
            arrays = part.read()
            part.seek(0)
            part.write(rows_json.read_bytes() + arrays)
        rows_json.unlink()

    async def results() -> AsyncIterator[ChunkOutput]:
        for output in outputs:
            yield output

    job = BatchJob(id="job-1", user_id="ann", file_id=None, status="running", stage="export", done=0,
                   total=CHUNKS * ROWS_PER_CHUNK, created_at=datetime.now(UTC))
    tracemalloc.start()
    try:
        export = await world.service.assemble(job, results())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert export.size_bytes > chunk_bytes > 35 * MB  # the export is tens of MB...
    for key in (outputs[1].detail_key, part_keys(outputs[1].detail_key).rows_json):
        assert (tmp_path / "files" / key).stat().st_nlink == 2, "...shared with the chunk's files"
    assert peak < 8 * MB, f"assembling took {peak / MB:.1f} MB at its peak"  # ...its assembly a few buffers
    detail = await collected(files.read(export.detail_key))
    assert [msgspec.json.decode(line)["row"] for line in detail.splitlines()] == [
        row + 2 for row in range(CHUNKS * ROWS_PER_CHUNK)
    ]
    lines = (await collected(files.read(export.csv_key))).decode().splitlines()
    assert lines[0].startswith("address,") and lines[1:] == [f"{row} Main St,line" for row in range(CHUNKS * ROWS_PER_CHUNK)]
    stored = decode_summary((tmp_path / "files" / export.summary_key).read_bytes())
    assert stored == tally_lines(detail.decode(), None, "composite").summary()
    assert stored.headline.rows == CHUNKS * ROWS_PER_CHUNK
    # So was the viewer's index of rows, merged from the chunks' parts (or their records) as they came.
    rows_index = decode_stored(bytearray(await collected(files.read(export.rows_index_key))))
    built = build_index(detail.decode().splitlines())
    assert rows_index.count == CHUNKS * ROWS_PER_CHUNK and rows_index.choices == built.choices
    assert rows_index.rows == built.rows and rows_index.ends == built.ends and rows_index.codes == built.codes
    assert (rows_index.levels, rows_index.counties, rows_index.ratings) == (built.levels, built.counties, built.ratings)


async def test_a_chunk_kept_as_text_before_result_files_is_composed_with_the_rest(tmp_path: Path) -> None:
    """A job running across the upgrade to result files (migration 0016) has chunks whose result is
    text in the database: the export holds them in their place, and no scratch file is left."""
    files = LocalFileStore(tmp_path / "files")
    world = in_memory_batch(files=files)  # type: ignore[arg-type]
    legacy = ChunkOutput(ChunkPlan(0, 0, 2), None, None, ("policy",), legacy_lines="0 Main St,line\r\n1 Main St,line\r\n",
                         legacy_detail=(record(0) + record(1)).decode())
    result = ChunkResult(lines="2 Main St,line\r\n", detail=record(2), detail_columns=("policy",))
    claim = ClaimedChunk("job-2", ChunkPlan(1, 2, 1), ChunkSource(None, ""), 0, attempt=1, owner="w:1")
    written = await write_chunk(files, claim, result)

    async def results() -> AsyncIterator[ChunkOutput]:
        yield legacy
        yield ChunkOutput(claim.plan, written.lines_key, written.detail_key, written.detail_columns)

    job = BatchJob(id="job-2", user_id="ann", file_id=None, status="running", stage="export", done=0, total=3,
                   created_at=datetime.now(UTC))
    export = await world.service.assemble(job, results())
    lines = (await collected(files.read(export.csv_key))).decode().splitlines()
    assert lines[1:] == [f"{row} Main St,line" for row in range(3)]
    detail = await collected(files.read(export.detail_key))
    assert [msgspec.json.decode(line)["row"] for line in detail.splitlines()] == [2, 3, 4]
    assert [stored.key async for stored in files.list_files("jobs/job-2/out/assembly")] == []
    assert export.size_bytes == sum([await files.size(key) for key in export.keys])

"""An export's columnar dataset (issue #27): chunks written by the real ChunkTable through the
FileStore, read back by ExportDataset's DuckDB views, on the local store and on S3 (a real
S3-compatible server, moto's, started by this module in a process of its own)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.files.local import LocalFileStore
from adapters.results.chunk_writer import ChunkTable, chunk_keys
from adapters.results.dataset import ExportDataset, ParquetCache, connection, detailed_select
from adapters.results.schema import SCORES_SCHEMA, facts_schema
from application.errors import NotFound
from application.ports.files import FileStore
from application.ports.results import decode_manifest, encode_manifest, read_manifest
from domain.detailed_export import ANSWER_COLUMN_NAMES, _answer_record, answer_fields
from domain.export import result_rows
from domain.lookup_result import not_located
from domain.row_facts import answer_record_of, spec_rows_of
from tests.integration.test_file_stores import s3_credentials, s3_endpoint, store
from tests.support.result_dataset import batch_rows, county_scores, sample_answer, write_dataset

# The local store and S3 against moto's server: the FileStore contract's own fixtures.
pytestmark = pytest.mark.xdist_group("s3_server")
__all__ = ["s3_credentials", "s3_endpoint", "store"]


@pytest.fixture
def cache(tmp_path: Path) -> ParquetCache:
    return ParquetCache(tmp_path / "cache")


def _dicts(cursor: Any) -> list[dict[str, Any]]:  # noqa: ANN401
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _rows(dataset: ExportDataset, sql: str) -> list[dict[str, Any]]:
    with dataset.cursor() as cursor:
        return _dicts(cursor.execute(sql))


ROWS = [(line, [f"TIV {line}", "-2+3" if line % 2 else None], answer) for line, answer in [
    (2, sample_answer()),
    (3, not_located("??", "could not read a street and 5-digit ZIP", "2026-11-28T10:00:00+00:00", "s")),
    (5, sample_answer("s2")),
    (6, not_located("1 Main St", "timed out", "2026-11-28T10:00:00+00:00", "s", method="failed")),
]]


async def test_the_detailed_view_is_each_row_with_its_answer_in_input_order(store: FileStore, cache: ParquetCache) -> None:
    written = await write_dataset(store, ["TIV", "Note"], ROWS, chunk_rows=3)
    manifest = await read_manifest(store, written.manifest_key)
    assert manifest == written.manifest and len(manifest.chunks) == 2 and manifest.rows == 4
    dataset = await ExportDataset.open(store, manifest, cache)
    detailed = await asyncio.to_thread(_rows, dataset, "SELECT * FROM detailed")
    assert list(detailed[0]) == ["input_0", "input_1", *ANSWER_COLUMN_NAMES]
    assert detailed == [
        {"input_0": values[0], "input_1": values[1]} | {"row": line} | answer_fields(answer) for line, values, answer in ROWS
    ]
    # The user's values as they came: "-2+3" is not neutralised here (spreadsheets neutralise it).
    assert [row["input_1"] for row in detailed] == [None, "-2+3", "-2+3", None]
    assert await asyncio.to_thread(dataset.query, "SELECT count(*) FROM scores") == [(1,)]


@pytest.mark.filterwarnings("ignore::hypothesis.errors.NonInteractiveExampleWarning")
async def test_every_record_and_spec_row_is_made_again_from_the_dataset(store: FileStore, cache: ParquetCache) -> None:
    rows = [(line, values, answer) for line, (_, values, answer) in enumerate(
        batch_rows(2, 40).example() + batch_rows(2, 40).example(), start=2)]
    written = await write_dataset(store, ["a", "b"], rows, chunk_rows=9)
    dataset = await ExportDataset.open(store, written.manifest, cache)
    facts = await asyncio.to_thread(_rows, dataset, "SELECT * FROM facts")
    scores = {(s["level"], s["geoid"], s["nri_version"]): s for s in await asyncio.to_thread(_rows, dataset, "SELECT * FROM scores")}
    assert [f["row"] for f in facts] == [line for line, _, _ in rows]
    for fact, (_, values, answer) in zip(facts, rows, strict=True):
        county = scores.get(("county", fact["county_fips"], fact["nri_version"])) if fact["scored"] else None
        tract = scores.get(("tract", fact["tract_geoid"], fact["tract_nri_version"])) if fact["tract_scored"] else None
        assert [fact["input_0"], fact["input_1"]] == values
        assert answer_record_of(fact, county, tract) == _answer_record(answer)
        assert spec_rows_of(fact, county) == result_rows(answer)


def _content(dataset: ExportDataset) -> tuple[list, list, list]:
    with dataset.cursor() as cursor:
        facts = cursor.execute("SELECT * FROM facts").fetchall()
        scores = cursor.execute("SELECT * FROM scores ORDER BY level, geoid, nri_version").fetchall()
        detailed = cursor.execute("SELECT * FROM detailed").fetchall()
    return facts, scores, detailed


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(batch_rows(2, 30), st.lists(st.integers(1, 12), min_size=1, max_size=6))
def test_any_chunking_of_the_rows_gives_the_dataset_of_one_chunk(rows: list, sizes: list[int]) -> None:
    """Chunked, with the chunks' score rows merged as a job's finish merges them, or in one chunk
    keeping its own: the same facts, scores and detailed rows."""
    async def content(chunk_sizes: list[int] | None, root: str, merged: bool) -> tuple[list, list, list]:
        files = LocalFileStore(Path(root))
        written = await write_dataset(files, ["a", "b"], rows, chunk_rows=10_000, chunk_sizes=chunk_sizes, merged=merged)
        assert sum(chunk.rows for chunk in written.manifest.chunks) == len(rows)
        return _content(await ExportDataset.open(files, written.manifest))

    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as many:
        whole = asyncio.run(content(None, one, merged=False))
        chunked = asyncio.run(content(sizes, many, merged=True))
    assert chunked == whole
    assert [row[0] for row in whole[0]] == [line for line, _, _ in rows]  # every row once, in input order


async def test_the_exports_score_rows_keep_each_set_once_in_fewer_bytes(tmp_path: Path) -> None:
    """Every chunk of a book in a few counties used the same score sets: merged, each is stored once."""
    files = LocalFileStore(tmp_path)
    rows = [(line, ["1", "x"], ROWS[line % len(ROWS)][2]) for line in range(2, 62)]
    own = await write_dataset(files, ["TIV", "Note"], rows, chunk_rows=5, export_id="own", job_id="own", merged=False)
    merged = await write_dataset(files, ["TIV", "Note"], rows, chunk_rows=5, export_id="merged", job_id="merged")
    assert merged.manifest.scores_keys == (merged.manifest.scores,) and len(own.manifest.scores_keys) == 12
    sets = pq.read_table(tmp_path / merged.manifest.scores).select(["level", "geoid", "nri_version"]).to_pylist()
    assert len(sets) == len({tuple(s.values()) for s in sets}) > 0
    assert not list((tmp_path / "jobs" / "merged").rglob("*.scores.parquet"))  # the chunks' own went
    assert merged.size_bytes < own.size_bytes
    assert sorted(_rows(await ExportDataset.open(files, merged.manifest), "SELECT * FROM detailed"), key=str) == sorted(
        _rows(await ExportDataset.open(files, own.manifest), "SELECT * FROM detailed"), key=str)


async def test_a_row_keeps_the_release_it_was_scored_with(tmp_path: Path) -> None:
    """Two releases of the same county in one export: each row joins its own release's scores."""
    old = sample_answer()
    new = replace(old, perils=county_scores("53033", "1.21.0"), provenance=replace(old.provenance, nri_version="1.21.0"))
    files = LocalFileStore(tmp_path)
    written = await write_dataset(files, [], [(2, [], old), (3, [], new)], chunk_rows=1)
    detailed = _rows(await ExportDataset.open(files, written.manifest), "SELECT * FROM detailed")
    assert [(r["nri_version"], r["Total_Score"]) for r in detailed] == [("1.20.0", 99.1), ("1.21.0", new.perils.total)]
    assert detailed[1] == {"row": 3} | answer_fields(new)


async def test_unknown_is_stored_as_null_never_zero(tmp_path: Path) -> None:
    table = ChunkTable(["x"])
    table.add(2, ["1"], not_located("??", "unreadable", "2026-11-28T10:00:00+00:00", "s"))
    facts_key, scores_key = chunk_keys("jobs/j/out/0.a1")
    written = await table.write(LocalFileStore(tmp_path), facts_key, scores_key)
    assert (written.rows, written.facts_bytes > 0, written.scores_bytes > 0) == (1, True, True)
    stored = pq.read_table(tmp_path / facts_key)
    assert stored.schema.equals(facts_schema(1)) and pq.read_table(tmp_path / scores_key).schema.equals(SCORES_SCHEMA)
    row = stored.to_pylist()[0]
    for name in ("lat", "lng", "county_confidence", "occupant_count", "year_built", "floors", "gross_floor_area_sqft"):
        assert row[name] is None, name
    assert pq.read_metadata(tmp_path / facts_key).row_group(0).column(0).compression == "ZSTD"


async def test_an_export_of_no_rows_has_its_views_empty(store: FileStore, cache: ParquetCache) -> None:
    written = await write_dataset(store, ["a"], [])
    dataset = await ExportDataset.open(store, written.manifest, cache)
    assert _rows(dataset, "SELECT * FROM detailed") == []
    with dataset.cursor() as cursor:
        assert [c[0] for c in cursor.execute("SELECT * FROM detailed").description] == ["input_0", *ANSWER_COLUMN_NAMES]
    empty = ExportDataset(written.manifest, [], [])
    assert _rows(empty, "SELECT * FROM facts") == []


async def test_a_missing_chunk_file_is_not_found(store: FileStore, cache: ParquetCache) -> None:
    written = await write_dataset(store, ["a"], ROWS[:2], chunk_rows=1)
    await store.delete(written.manifest.chunks[1].facts)
    with pytest.raises(NotFound):
        await ExportDataset.open(store, written.manifest, cache)


async def test_a_chunks_views_hold_that_chunk_only(tmp_path: Path) -> None:
    files = LocalFileStore(tmp_path)
    written = await write_dataset(files, ["TIV", "Note"], ROWS, chunk_rows=3)
    dataset = await ExportDataset.open(files, written.manifest)
    with dataset.cursor(chunks=slice(1, 2)) as cursor:
        assert cursor.execute("SELECT row FROM detailed").fetchall() == [(6,)]
    with dataset.cursor() as first, dataset.cursor(chunks=slice(0, 1)) as second:  # each cursor's views its own
        assert first.execute("SELECT count(*) FROM facts").fetchall() == [(4,)]
        assert second.execute("SELECT count(*) FROM facts").fetchall() == [(3,)]


def test_one_connection_per_process_bounded_and_offline() -> None:
    assert connection() is connection()
    settings_now = dict(connection().cursor().execute(
        "SELECT name, value FROM duckdb_settings() WHERE name IN ('threads', 'autoinstall_known_extensions', "
        "'autoload_known_extensions', 'memory_limit')").fetchall())
    assert settings_now["threads"] == "2"
    assert settings_now["autoinstall_known_extensions"] == settings_now["autoload_known_extensions"] == "false"
    assert settings_now["memory_limit"].startswith("122")  # 128 MB as DuckDB reports it (MiB)
    assert "ORDER BY f.row" in detailed_select(0)


async def test_the_s3_cache_keeps_at_most_its_size_least_recently_used_first(tmp_path: Path) -> None:
    files = LocalFileStore(tmp_path / "store")
    for name in ("a", "b", "c"):
        async with files.open_writer(f"x/{name}.parquet") as writer:
            await writer.write(name.encode() * 1000)
    cache = ParquetCache(tmp_path / "cache", max_bytes=2500, keep_seconds=0)
    first = await cache.path_of(files, "x/a.parquet")
    os.utime(first, (time.time() - 100, time.time() - 100))
    second = await cache.path_of(files, "x/b.parquet")
    assert first.exists() and second.read_bytes() == b"b" * 1000
    await cache.path_of(files, "x/c.parquet")  # 3000 bytes: the least recently used goes
    assert not first.exists() and second.exists()
    assert (await cache.path_of(files, "x/a.parquet")).read_bytes() == b"a" * 1000  # fetched again
    with pytest.raises(NotFound):
        await cache.path_of(files, "x/missing.parquet")
    assert [p.name for p in (tmp_path / "cache").iterdir() if p.name.startswith(".")] == []


def test_a_manifest_round_trips() -> None:
    manifest = decode_manifest(b'{"version": 1, "user_columns": ["TIV", "=x"], "rows": 3, "chunks": '
                               b'[{"index": 0, "first_row": 0, "rows": 3, "facts": "f", "scores": "s"}]}')
    assert decode_manifest(encode_manifest(manifest)) == manifest and manifest.keys == ("f", "s")


async def test_a_chunk_of_repeated_answers_stores_few_bytes_a_row(tmp_path: Path) -> None:
    rows = [(line, [f"{line * 1000}", "Main office"], sample_answer()) for line in range(2, 5002)]
    written = await write_dataset(LocalFileStore(tmp_path), ["TIV", "Name"], rows)
    assert written.size_bytes / len(rows) < 100


def test_writing_and_reading_a_dataset_never_imports_pandas(tmp_path: Path) -> None:
    """pyarrow imports pandas to build arrays from Python lists, ~60 MB in every worker that
    writes a chunk: the writer must not, nor a query of the dataset."""
    script = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from adapters.files.local import LocalFileStore\n"
        "from adapters.results.dataset import ExportDataset\n"
        "from tests.support.result_dataset import sample_answer, write_dataset\n"
        "async def main():\n"
        f"    files = LocalFileStore(Path({str(tmp_path)!r}))\n"
        "    written = await write_dataset(files, ['TIV'], [(2, ['1'], sample_answer()), (3, [None], sample_answer())])\n"
        "    dataset = await ExportDataset.open(files, written.manifest)\n"
        "    assert dataset.query('SELECT count(*) FROM detailed') == [(2,)]\n"
        "asyncio.run(main())\n"
        "print('pandas' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).resolve().parents[2], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


async def test_requests_for_one_file_at_once_fetch_it_once(tmp_path: Path) -> None:
    files = LocalFileStore(tmp_path / "store")
    async with files.open_writer("x/a.parquet") as writer:
        await writer.write(b"a" * 5000)
    reads = 0
    original = files.read

    def counted(key: str, chunk_size: int = 1024) -> Any:  # noqa: ANN401
        nonlocal reads
        reads += 1
        return original(key, chunk_size)

    files.read = counted  # type: ignore[method-assign]
    cache = ParquetCache(tmp_path / "cache")
    paths = await asyncio.gather(*(cache.path_of(files, "x/a.parquet") for _ in range(5)))
    assert len(set(paths)) == 1 and reads == 1 and paths[0].read_bytes() == b"a" * 5000


async def test_the_writer_port_makes_tables_and_keys(tmp_path: Path) -> None:
    from adapters.results.chunk_writer import ParquetChunkWriter

    writer = ParquetChunkWriter()
    table = writer.new_table(["TIV"])
    table.add(2, ["5"], sample_answer())
    facts_key, scores_key = writer.chunk_keys("jobs/j/out/3.a2")
    assert (facts_key, scores_key) == ("jobs/j/out/3.a2.facts.parquet", "jobs/j/out/3.a2.scores.parquet")
    written = await table.write(LocalFileStore(tmp_path), facts_key, scores_key)
    assert written.size_bytes == (tmp_path / facts_key).stat().st_size + (tmp_path / scores_key).stat().st_size

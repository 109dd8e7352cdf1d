"""Files a crash left behind (under jobs/ and exports/, named by no row) are deleted once they are
old enough, on the local filesystem and on S3 (moto's server), against SQLite and PostgreSQL;
files that a chunk or an export names (a dataset's files under its name too), young files, and
uploads are kept; a deleted export's chunk files are no one's."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from adapters.db.engine import create_session_factory
from adapters.db.file_references import SqlFileReferences
from application.batch_files import chunk_input_key, write_text
from application.orphan_files import OrphanFiles
from application.ports.batch import BatchJob, ExportFile
from adapters.results.chunk_writer import ParquetChunkWriter
from application.ports.chunks import ChunkResult, StoredChunkInput
from application.ports.files import FileStore
from application.ports.results import manifest_key
from application.result_files import export_keys, write_chunk
from domain.chunks import ChunkPlan
from entrypoints.container import Container
from tests.fakes import FakeClock
from tests.integration.test_chunk_store import split, world  # noqa: F401 - a fixture
from tests.integration.test_file_stores import s3_credentials, s3_endpoint, store  # noqa: F401 - fixtures

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
AGE = timedelta(hours=1)


async def _named_files(container: Container, files: FileStore, user_id: str) -> set[str]:
    """A running job with two chunks (one completed) and an export, their files stored and named."""
    job_id = str(uuid.uuid4())
    await container.batch_store().add_job(BatchJob(id=job_id, user_id=user_id, file_id=None, status="queued",
                                                   stage="search", done=0, total=4, created_at=T0))
    inputs = [StoredChunkInput(ChunkPlan(index, index * 2, 2), index * 2, chunk_input_key(job_id, index),
                               await write_text(files, chunk_input_key(job_id, index), "Street Address\na\nb\n"))
              for index in (0, 1)]
    chunks = container.chunk_store()
    await split(chunks, job_id, inputs)
    claimed = await chunks.claim("host:1", T0, T0 + AGE, max_attempts=3)
    writer = ParquetChunkWriter()
    written = await write_chunk(files, writer, claimed, ChunkResult(writer.new_table(("Street Address",)), ()))
    assert await chunks.complete(claimed, written, T0)
    export_id = str(uuid.uuid4())
    keys = export_keys(user_id, export_id)  # an export from before the dataset, not converted yet
    export = ExportFile(id=export_id, user_id=user_id, name="e.csv", exported_at=T0, csv_key=keys.csv,
                        detail_key=keys.detail, summary_key=keys.summary, rows_index_key=keys.rows_index)
    converted_id = str(uuid.uuid4())  # one converted: its manifest names chunk files named after it
    converted = ExportFile(id=converted_id, user_id=user_id, name="c.csv", exported_at=T0,
                           manifest_key=manifest_key(user_id, converted_id))
    dataset = (f"exports/{user_id}/{converted_id}.0.facts.parquet", f"exports/{user_id}/{converted_id}.0.scores.parquet")
    for key in (*export.keys, *converted.keys, *dataset):
        await write_text(files, key, "export")
    await container.batch_store().add_export(export)
    await container.batch_store().add_export(converted)
    return {*(chunk.input_key for chunk in inputs), *written.keys, *export.keys, *converted.keys, *dataset}


async def test_old_files_no_row_names_are_swept_and_the_rest_kept(world, store: FileStore) -> None:  # noqa: ANN001, F811
    container, user_id = world
    named = await _named_files(container, store, user_id)
    some_job = next(key for key in named if key.startswith("jobs/")).split("/")[1]
    orphans = {
        f"jobs/{some_job}/out/0.a2.facts.parquet",  # a lost claim's result, whose delete failed
        f"jobs/{uuid.uuid4()}/in/0.csv",  # a job that is gone
        f"exports/{user_id}/{uuid.uuid4()}.manifest.json",  # a finisher killed before its export was stored
        f"exports/{user_id}/{uuid.uuid4()}.0.facts.parquet",  # a conversion of an export deleted since
    }
    kept_anyway = {f"uploads/{user_id}/{uuid.uuid4()}.csv"}  # uploads are the purge's business
    for key in orphans | kept_anyway:
        await write_text(store, key, "left over")
    newest = max([stored.modified_at async for stored in store.list_files("")])
    sweep = OrphanFiles(store, SqlFileReferences(create_session_factory(container.engine())),
                        clock := FakeClock(newest + AGE - timedelta(seconds=5)), AGE)
    assert await sweep.sweep() == []  # young: perhaps about to be named
    clock.advance(timedelta(seconds=10))
    assert sorted(await sweep.sweep()) == sorted(orphans)
    assert {stored.key async for stored in store.list_files("")} == named | kept_anyway


async def test_a_deleted_exports_chunk_files_are_no_ones(world, store: FileStore) -> None:  # noqa: ANN001, F811
    """A done job's chunk files are its export's, named by the chunks' rows; deleting the export
    drops those names with its row, so files a crash kept from being deleted are swept."""
    container, user_id = world
    job_id = str(uuid.uuid4())
    batches, chunks = container.batch_store(), container.chunk_store()
    await batches.add_job(BatchJob(id=job_id, user_id=user_id, file_id=None, status="queued", stage="search",
                                   done=0, total=2, created_at=T0))
    await split(chunks, job_id, [StoredChunkInput(ChunkPlan(0, 0, 2), 0, chunk_input_key(job_id, 0), 1)])
    claimed = await chunks.claim("host:1", T0, T0 + AGE, max_attempts=3)
    writer = ParquetChunkWriter()
    written = await write_chunk(store, writer, claimed, ChunkResult(writer.new_table(("Street Address",)), ()))
    assert await chunks.complete(claimed, written, T0)
    assert await chunks.begin_finishing(job_id, "host:1", T0, T0 + AGE)
    export = ExportFile(id=str(uuid.uuid4()), user_id=user_id, name="d.csv", exported_at=T0, job_id=job_id,
                        manifest_key=manifest_key(user_id, "x"))
    assert await chunks.finish(job_id, "host:1", export, T0)
    references = SqlFileReferences(create_session_factory(container.engine()))
    # The facts file is the export's; the score file is no one's (merged into the export's, deleted by the finisher).
    assert await references.referenced(list(written.keys)) == {written.facts_key}
    assert await batches.delete_export(user_id, "d.csv") is not None
    assert await references.referenced(list(written.keys)) == set()

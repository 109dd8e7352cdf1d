"""The SQL chunk store on SQLite and PostgreSQL, with real commits and explicit times (the store
takes `now` from its caller, so these are fake-clock tests of the real adapter): concurrent
claims take each chunk once, a lease taken over fences the late claimant out, jobs are served in
turn, and a job's finishing turn and export happen once."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import delete, func, select

from adapters.db.account_tables import UserRow
from adapters.db.batch_tables import BatchChunkRow, ExportFileRow
from adapters.db import chunk_repository
from adapters.db.chunk_repository import SqlChunkStore
from adapters.db.engine import create_session_factory
from adapters.db.writer import SqlWriter
from adapters.security.passwords import Argon2PasswordHasher
from application.ports.batch import BatchJob, ExportFile
from application.batch_files import chunk_input_key
from application.ports.chunks import ChunkFiles, ChunkSource, StoredChunkInput
from domain.chunks import split_csv
from entrypoints.container import Container, build_container
from tests.conftest import STRONG_PASSWORD, settings_for_tests

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LEASE = timedelta(seconds=30)
RESULT = ChunkFiles("jobs/j/out/0.a1.facts.parquet", "jobs/j/out/0.a1.scores.parquet", 8, user_columns=())


def _csv(rows: int) -> str:
    return "Street Address,City,State,Zip\n" + "".join(f"{n} Main St,Seattle,WA,98104\n" for n in range(rows))


@pytest.fixture
async def world(migrated_database_url: str) -> AsyncIterator[tuple[Container, str]]:
    container = build_container(settings_for_tests(migrated_database_url))
    container.password_hasher.override(Argon2PasswordHasher(time_cost=1, memory_cost_kib=1024))
    user = await container.accounts().create_user(f"{uuid.uuid4().hex}@example.com", STRONG_PASSWORD)
    try:
        yield container, user.id
    finally:
        async with container.engine().begin() as connection:
            await connection.execute(delete(UserRow).where(UserRow.id == user.id))
        await container.engine().dispose()


def _process(container: Container) -> SqlChunkStore:
    """A store as another process has it: its own writer (on SQLite, its own write queue)."""
    sessions = create_session_factory(container.engine())
    return SqlChunkStore(sessions, SqlWriter(sessions))


async def _job(container: Container, user_id: str, rows: int, chunk_rows: int, created_at: datetime = T0) -> str:
    job_id = str(uuid.uuid4())
    await container.batch_store().add_job(
        BatchJob(id=job_id, user_id=user_id, file_id=None, status="queued", stage="search", done=0, total=rows,
                 created_at=created_at)
    )
    assert job_id in await container.chunk_store().unsplit_jobs(T0, limit=1000)
    await split(container.chunk_store(), job_id, _inputs(job_id, rows, chunk_rows))
    return job_id


async def split(store: SqlChunkStore, job_id: str, inputs: list[StoredChunkInput]) -> None:
    """The job split whole by one splitter, in one batch."""
    assert await store.begin_split(job_id, "splitter:1", T0, T0 + LEASE) == 0
    assert await store.add_chunks(job_id, "splitter:1", inputs, T0)
    assert await store.end_split(job_id, "splitter:1", len(inputs))


def _inputs(job_id: str, rows: int, chunk_rows: int) -> list[StoredChunkInput]:
    """The job's chunks as the runner stores them (their CSVs' keys; the files are not needed here)."""
    return [StoredChunkInput(chunk.plan, chunk.line_offset, chunk_input_key(job_id, chunk.plan.index),
                             len(chunk.text.encode()))
            for chunk in split_csv("x.csv", _csv(rows), chunk_rows)]


async def test_concurrent_claimants_take_every_chunk_exactly_once(world) -> None:  # noqa: ANN001
    container, user_id = world
    job_id = await _job(container, user_id, rows=40, chunk_rows=2)
    assert job_id not in await container.chunk_store().unsplit_jobs(T0, limit=1000)
    assert await container.chunk_store().begin_split(job_id, "splitter:2", T0 + LEASE, T0 + 2 * LEASE) is None  # once

    async def claimant(store: SqlChunkStore, owner: str) -> list[int]:
        taken = []
        while chunk := await store.claim(owner, T0, T0 + LEASE, max_attempts=3):
            taken.append(chunk.plan.index)
            await asyncio.sleep(0)
        return taken

    claims = await asyncio.gather(*(claimant(_process(container), f"host:{n}") for n in range(6)))
    every = sorted(index for taken in claims for index in taken)
    assert every == list(range(20)), claims


async def test_a_taken_over_lease_fences_the_late_claimant_out(world) -> None:  # noqa: ANN001
    container, user_id = world
    job_id = await _job(container, user_id, rows=3, chunk_rows=3)
    a, b = _process(container), _process(container)
    first = await a.claim("host-a:1", T0, T0 + LEASE, max_attempts=3)
    assert await a.renew(first, T0 + 2 * LEASE)  # a heartbeat
    assert await b.claim("host-b:2", T0 + LEASE, T0 + 2 * LEASE, max_attempts=3) is None  # still held
    later = T0 + 3 * LEASE
    second = await b.claim("host-b:2", later, later + LEASE, max_attempts=3)  # a's lease ran out
    assert (second.plan.index, second.attempt) == (0, 2)
    assert not await a.renew(first, later + LEASE)
    assert not await a.complete(first, RESULT, later)  # writes nothing
    assert not await a.release(first, "late", later)
    assert await b.complete(second, RESULT, later)
    job = await container.batch_store().job(None, job_id)
    chunks = await b.job_chunks(job_id, later)
    assert (job.done, chunks.done, chunks.worker_count, chunks.last_finished_at) == (3, 1, 0, later)  # counted once


async def test_a_jobs_status_counts_its_workers_and_names_none(world) -> None:  # noqa: ANN001
    container, user_id = world
    job_id = await _job(container, user_id, rows=3, chunk_rows=1)
    store = container.chunk_store()
    for owner in ("host-a:1", "host-b:2", "host-a:1"):  # two chunks on one worker count it once
        assert await store.claim(owner, T0, T0 + LEASE, max_attempts=3) is not None
    chunks = await store.job_chunks(job_id, T0)
    assert chunks.worker_count == 2
    assert (await store.job_chunks(job_id, T0 + 2 * LEASE)).worker_count == 0  # leases ran out: nobody on it


async def test_expired_and_lost_chunks_are_queued_again_and_exhausted_ones_given_up(world) -> None:  # noqa: ANN001
    container, user_id = world
    job_id = await _job(container, user_id, rows=4, chunk_rows=2)
    store = container.chunk_store()
    dying = await store.claim("host:1", T0, T0 + LEASE, max_attempts=1)
    assert await store.requeue_expired(T0 + LEASE / 2, max_attempts=2) == 0
    assert await store.requeue_stale(T0 + LEASE, T0 + LEASE) == 0  # something runs: tasks are not lost
    assert await store.requeue_expired(T0 + 2 * LEASE, max_attempts=2) == 1
    assert await store.requeue_stale(T0 + LEASE, T0 + 2 * LEASE) == 1  # chunk 1 waited with nothing running
    assert await store.requeue_stale(T0 + LEASE, T0 + 2 * LEASE) == 0  # and is not counted twice
    assert await store.queued_count(job_id) == 2
    again = await store.claim("host:2", T0 + 2 * LEASE, T0 + 3 * LEASE, max_attempts=2)
    assert (again.plan.index, again.attempt) == (dying.plan.index, 2)
    later = T0 + 4 * LEASE
    assert await store.claim("host:3", later, later + LEASE, max_attempts=2, exhausted=True) is not None
    assert await store.claim("host:3", later, later + LEASE, max_attempts=2, exhausted=True) is None


async def test_jobs_are_served_in_turn(world) -> None:  # noqa: ANN001
    container, user_id = world
    big = await _job(container, user_id, rows=10, chunk_rows=2, created_at=T0)
    small = await _job(container, user_id, rows=1, chunk_rows=2, created_at=T0 + timedelta(minutes=5))
    store = container.chunk_store()
    order = []
    for step in range(4):
        now = T0 + timedelta(seconds=step)
        chunk = await store.claim("host:1", now, now + LEASE, max_attempts=3)
        order.append("big" if chunk.job_id == big else "small")
        assert await store.complete(chunk, RESULT, now)  # one worker, one chunk at a time
    assert order == ["big", "small", "big", "big"]
    assert (await container.batch_store().job(None, small)).status == "running"


async def test_a_job_is_finished_once_whoever_tries(world) -> None:  # noqa: ANN001
    container, user_id = world
    job_id = await _job(container, user_id, rows=4, chunk_rows=2)
    stores = [_process(container) for _ in range(5)]
    first = await stores[0].claim("host:0", T0, T0 + LEASE, max_attempts=3)
    assert await stores[0].complete(first, RESULT, T0)
    assert not await stores[0].begin_finishing(job_id, "host:0", T0, T0 + LEASE)  # a chunk is left
    second = await stores[1].claim("host:1", T0, T0 + LEASE, max_attempts=3)
    assert await stores[1].complete(second, RESULT, T0)
    assert await stores[0].finishable_jobs(T0) == [job_id]

    turns = await asyncio.gather(*(s.begin_finishing(job_id, f"host:{n}", T0, T0 + LEASE) for n, s in enumerate(stores)))
    assert sum(turns) == 1
    holder = f"host:{turns.index(True)}"
    assert await stores[0].finishable_jobs(T0) == []
    parts = [output async for output in stores[2].results(job_id)]
    assert [(p.plan.first_row, p.keys) for p in parts] == [(0, RESULT.keys), (2, RESULT.keys)]

    def export(name: str) -> ExportFile:
        return ExportFile(id=str(uuid.uuid4()), user_id=user_id, name=name, exported_at=T0, csv_key=f"exports/{name}")

    other = "host:9" if holder != "host:9" else "host:8"
    assert not await stores[3].finish(job_id, other, export("a.csv"), T0)
    assert await stores[3].finish(job_id, holder, export("b.csv"), T0)
    assert not await stores[4].finish(job_id, holder, export("c.csv"), T0)  # done already
    async with container.engine().connect() as connection:
        exports = await connection.scalar(select(func.count()).where(ExportFileRow.job_id == job_id))
    job = await container.batch_store().job(None, job_id)
    assert (exports, job.status, job.export_name, job.done) == (1, "done", "b.csv", 4)


async def test_a_job_fails_once_and_a_finished_job_keeps_only_its_failed_rows(world) -> None:  # noqa: ANN001
    container, user_id = world
    store = container.chunk_store()
    doomed = await _job(container, user_id, rows=2, chunk_rows=2)
    assert await store.fail(doomed, "The uploaded file is gone.", T0)
    assert not await store.fail(doomed, "again", T0)  # ended already: no second end
    assert await store.requeue_stale(T0 + LEASE, T0 + LEASE) == 0  # its chunk gets no tasks, no claims

    job_id = await _job(container, user_id, rows=4, chunk_rows=2)
    done = await store.claim("host:1", T0, T0 + LEASE, max_attempts=3)
    assert await store.complete(done, RESULT, T0)
    given_up = await store.claim("host:1", T0, T0 + LEASE, max_attempts=3)
    failed = ChunkFiles("jobs/j/out/1.a1.facts.parquet", "jobs/j/out/1.a1.scores.parquet", 5, (), rows_failed=2,
                        error="boom")
    assert await store.complete(given_up, failed, T0)
    assert await store.begin_finishing(job_id, "host:1", T0, T0 + LEASE)
    # The done chunk's input is read no more: the finisher deletes its file once the export is stored.
    assert await store.done_input_keys(job_id) == [chunk_input_key(job_id, 0)]
    export = ExportFile(id=str(uuid.uuid4()), user_id=user_id, name="j.csv", exported_at=T0, csv_key="exports/j.csv")
    assert await store.finish(job_id, "host:1", export, T0)
    [kept] = await store.failed_inputs(job_id)
    assert (kept.error, kept.row_count, kept.source) == ("boom", 2, ChunkSource(chunk_input_key(job_id, 1), None))
    assert await store.done_input_keys(job_id) == []  # its key went with the finish; the failed one's stays
    async with container.engine().connect() as connection:
        leftovers = (await connection.execute(
            select(BatchChunkRow.facts_key, BatchChunkRow.input_key, BatchChunkRow.input)
            .where(BatchChunkRow.job_id == job_id).order_by(BatchChunkRow.idx)
        )).all()
    # The results are the export's files: their keys stay, naming them (the file sweep keeps them).
    assert [tuple(row) for row in leftovers] == [(RESULT.facts_key, None, None),
                                                 (failed.facts_key, chunk_input_key(job_id, 1), None)]


async def test_a_chunk_split_before_the_file_store_is_claimed_with_its_text(world) -> None:  # noqa: ANN001
    """Chunks of before migration 0015 keep their CSV in the `input` column and have no key."""
    container, user_id = world
    job_id = await _job(container, user_id, rows=2, chunk_rows=2)
    async with container.engine().begin() as connection:
        await connection.execute(
            BatchChunkRow.__table__.update().where(BatchChunkRow.job_id == job_id)
            .values(input_key=None, input=_csv(2))
        )
    store = container.chunk_store()
    claimed = await store.claim("host:1", T0, T0 + LEASE, max_attempts=3)
    assert claimed.job_id == job_id and claimed.source == ChunkSource(None, _csv(2))


async def test_a_users_storage_counts_their_jobs_chunk_files_while_they_are_kept(world) -> None:  # noqa: ANN001
    container, user_id = world
    store, batches = container.chunk_store(), container.batch_store()
    inputs = {chunk.plan.index: chunk.input_bytes for chunk in _inputs("j", 4, 2)}
    job_id = await _job(container, user_id, rows=4, chunk_rows=2)
    assert await batches.storage_used(user_id) == inputs[0] + inputs[1]  # the chunks' CSVs, while the job runs
    done = await store.claim("host:1", T0, T0 + LEASE, max_attempts=3)
    assert await store.complete(done, RESULT, T0)
    assert await batches.storage_used(user_id) == inputs[0] + inputs[1] + RESULT.size_bytes
    given_up = await store.claim("host:1", T0, T0 + LEASE, max_attempts=3)
    failed = ChunkFiles("jobs/j/out/1.a1.facts.parquet", "jobs/j/out/1.a1.scores.parquet", 18, (), rows_failed=2,
                        error="boom")
    assert await store.complete(given_up, failed, T0)
    assert await store.begin_finishing(job_id, "host:1", T0, T0 + LEASE)
    export = ExportFile(id=str(uuid.uuid4()), user_id=user_id, name="s.csv", exported_at=T0, csv_key="exports/s.csv",
                        size_bytes=1000)
    assert await store.finish(job_id, "host:1", export, T0)
    # The export's files (its chunks' results among them, in its size), and the failed chunk's input
    # (kept to run its rows again).
    assert await batches.storage_used(user_id) == 1000 + inputs[1]

    doomed = await _job(container, user_id, rows=4, chunk_rows=2)
    done = await store.claim("host:1", T0, T0 + LEASE, max_attempts=3)
    assert await store.complete(done, RESULT, T0)
    assert await store.fail(doomed, "The uploaded file is gone.", T0)
    # As it failed, its results and its done chunk's input were deleted; its other chunk's input stays.
    assert await batches.storage_used(user_id) == 1000 + inputs[1] + inputs[1]


async def test_results_come_page_by_page_in_input_order(world, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """A job's results are read a page of chunks at a time: every chunk once, in order, across pages."""
    container, user_id = world
    monkeypatch.setattr(chunk_repository, "RESULTS_PAGE", 2)
    store = container.chunk_store()
    job_id = await _job(container, user_id, rows=10, chunk_rows=2)
    for index in range(5):
        chunk = await store.claim("host:1", T0, T0 + LEASE, max_attempts=3)
        files = ChunkFiles(f"jobs/j/out/{index}.a1.facts.parquet", f"jobs/j/out/{index}.a1.scores.parquet", 10 + index,
                           ("Street Address", "TIV"))
        assert await store.complete(chunk, files, T0)
    outputs = [output async for output in store.results(job_id)]
    assert [(o.plan.index, o.plan.first_row, o.facts_key, o.size_bytes) for o in outputs] == [
        (index, 2 * index, f"jobs/j/out/{index}.a1.facts.parquet", 10 + index) for index in range(5)]
    assert all(o.user_columns == ("Street Address", "TIV") for o in outputs)


async def test_progress_moves_within_a_chunk_fenced_and_never_backwards(world) -> None:  # noqa: ANN001
    """The heartbeat's count of rows answered moves the job's progress; a late claimant's counts
    nothing; a claim after a dead one counts on from where it got; the chunk's end counts the rest."""
    container, user_id = world
    job_id = await _job(container, user_id, rows=7, chunk_rows=5)
    a, b = _process(container), _process(container)

    async def done() -> int:
        return (await container.batch_store().job(None, job_id)).done

    first = await a.claim("host-a:1", T0, T0 + LEASE, max_attempts=3)
    assert await a.renew(first, T0 + LEASE, 2) and await done() == 2
    assert await a.renew(first, T0 + LEASE, 3) and await done() == 3
    assert await a.renew(first, T0 + LEASE) and await done() == 3  # a beat without a count
    later = T0 + 3 * LEASE
    second = await b.claim("host-b:2", later, later + LEASE, max_attempts=3)  # a's lease ran out
    assert not await a.renew(first, later + LEASE, 5) and await done() == 3  # fenced out
    assert await b.renew(second, later + LEASE, 1) and await done() == 3  # never backwards
    assert await b.renew(second, later + LEASE, 9) and await done() == 5  # at most the chunk's rows
    other = await b.claim("host-b:2", later, later + LEASE, max_attempts=3)
    assert await b.renew(other, later + LEASE, 1) and await done() == 6
    assert await b.complete(other, RESULT, later) and await done() == 7
    assert not await a.complete(first, RESULT, later) and await done() == 7
    assert await b.complete(second, RESULT, later) and await done() == 7  # each row counted once
    assert (await b.job_chunks(job_id, later)).done == 2


async def test_one_splitter_at_a_time_and_a_dead_ones_successor_goes_on_after_its_chunks(world) -> None:  # noqa: ANN001
    container, user_id = world
    stores = [_process(container) for _ in range(4)]
    job_id = str(uuid.uuid4())
    await container.batch_store().add_job(BatchJob(id=job_id, user_id=user_id, file_id=None, status="queued",
                                                   stage="search", done=0, total=8, created_at=T0))
    inputs = _inputs(job_id, rows=8, chunk_rows=2)
    turns = await asyncio.gather(*(s.begin_split(job_id, f"splitter:{n}", T0, T0 + LEASE) for n, s in enumerate(stores)))
    assert sorted(turns, key=str) == [0, None, None, None]
    first = f"splitter:{turns.index(0)}"
    store = stores[0]
    assert await store.add_chunks(job_id, first, inputs[:2], T0)
    assert not await store.add_chunks(job_id, "splitter:9", inputs[2:], T0)  # not its turn
    # Stored chunks are claimed and run while the job is being split; it cannot finish before the end.
    for _ in range(2):
        chunk = await store.claim("host:1", T0, T0 + LEASE, max_attempts=3)
        assert await store.complete(chunk, RESULT, T0)
    assert not await store.begin_finishing(job_id, "host:1", T0, T0 + LEASE)
    assert job_id not in await store.finishable_jobs(T0) and await store.job_chunks(job_id, T0) is None
    assert job_id not in await store.unsplit_jobs(T0, limit=1000)  # its splitter is alive
    later = T0 + LEASE + timedelta(seconds=1)
    assert job_id in await store.unsplit_jobs(later, limit=1000)  # ...until its turn runs out
    assert await store.begin_split(job_id, "splitter:8", later, later + LEASE) == 2  # goes on after chunk 1
    assert not await store.add_chunks(job_id, first, inputs[2:], later)  # the first is fenced out
    assert not await store.end_split(job_id, first, 4)
    assert await store.renew_split(job_id, "splitter:8", later + 2 * LEASE)
    assert await store.add_chunks(job_id, "splitter:8", inputs[2:], later)
    assert not await store.end_split(job_id, "splitter:8", 5)  # a total that is not the chunks stored
    assert await store.end_split(job_id, "splitter:8", 4)
    assert await store.begin_split(job_id, "splitter:7", later + 9 * LEASE, later + 10 * LEASE) is None  # split whole
    for _ in range(2):
        chunk = await store.claim("host:1", later, later + LEASE, max_attempts=3)
        assert await store.complete(chunk, RESULT, later)
    assert (await store.job_chunks(job_id, later)).total == 4
    assert await store.begin_finishing(job_id, "host:1", later, later + LEASE)

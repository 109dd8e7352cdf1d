"""How a chunked job runs, on in-memory ports with a fake clock (tests/fakes.py): every row once
and in order, progress that only grows, retries then failed rows, a dead worker's chunk taken
over, one finish, fair turns between jobs. The SQL store's own rules: tests/integration/test_chunk_store.py."""

from __future__ import annotations

from datetime import timedelta

import pytest

from application.batch import BatchService
from application.batch_runner import INPUT_GONE, ChunkPolicy
from application.errors import InvalidInput, NotFound
from application.ports.accounts import AccessClaims
from application.batch_files import chunk_text
from adapters.results.chunk_writer import ParquetChunkWriter
from application.result_files import stored_keys, write_chunk
from application.time_slices import TimeSlices
from domain.accounts import Role
from domain.chunks import rows_of
from domain.lookup_result import LookupResult
from tests.fakes import BatchWorld, in_memory_batch
from tests.waiting import until

ANN, BOB = AccessClaims("ann"), AccessClaims("bob")
LEASE = timedelta(seconds=30)


def streets(count: int, start: int = 1) -> list[str]:
    return [f"{number} Main St" for number in range(start, start + count)]


def csv_of(names: list[str]) -> bytes:
    return ("Street Address,City,State,Zip,Policy\r\n"
            + "".join(f"{name},Anchorage,AK,99501,P-{name.split()[0]}\r\n" for name in names)).encode()


def world(chunk_rows: int = 2, max_attempts: int = 3) -> BatchWorld:
    made = in_memory_batch(monthly_batch_row_limit=1000, policy=ChunkPolicy(chunk_rows=chunk_rows, max_attempts=max_attempts))
    made.lookup.users.update({"ann": Role.USER, "bob": Role.USER})
    return made


COLUMNS = ("Street Address", "City", "State", "Zip", "Policy")


def export_streets(w: BatchWorld, export) -> list[str]:  # noqa: ANN001
    """The export's rows' streets, as uploaded (the user's first column), in its order."""
    return [row["input_0"] for row in w.export_facts(export)]


async def written(w: BatchWorld, chunk, result):  # noqa: ANN001, ANN201
    return await write_chunk(w.files, ParquetChunkWriter(), chunk, result)


async def started(w: BatchWorld, caller: AccessClaims, names: list[str]) -> str:
    upload = await w.service.upload(caller, "book.csv", csv_of(names))
    job = await w.service.start(caller, upload.id)
    await w.service.run(job.id)  # the job's task: split into chunks, one chunk task each
    return job.id


async def run_one_chunk(w: BatchWorld) -> None:
    w.queue.chunk_tasks -= 1
    await w.service.run_chunk()


def failing_for(service: BatchService, street: str, times: int | None = None):  # noqa: ANN201
    """Make the lookup raise for one street (`times` times, or always)."""
    answer = service._answer  # noqa: SLF001 - the one seam between a chunk and the lookup
    calls = {"failed": 0}

    async def flaky(row) -> LookupResult:  # noqa: ANN001
        if row.street == street and (times is None or calls["failed"] < times):
            calls["failed"] += 1
            raise ConnectionError("provider unreachable")
        return await answer(row)

    service._answer = flaky  # noqa: SLF001
    return calls


async def test_a_job_in_chunks_has_every_row_once_in_order_and_progress_only_grows() -> None:
    w = world(chunk_rows=2)
    names = streets(5)
    job_id = await started(w, ANN, names)
    assert w.queue.chunk_tasks == 3 and (await w.service.job_chunks(ANN, job_id)).total == 3
    progress = []
    while w.queue.chunk_tasks:
        await run_one_chunk(w)
        progress.append(w.store.jobs[job_id].done)
    assert progress == [2, 4, 5]
    job = w.store.jobs[job_id]
    assert job.status == "done" and len(w.store.exports_stored) == 1
    [export] = w.store.exports_stored
    assert export_streets(w, export) == names
    facts = w.export_facts(export)
    # Every column of the upload comes back as it came, the address's too, with the row's line.
    assert [row["row"] for row in facts] == [2, 3, 4, 5, 6]
    assert [facts[2][f"input_{i}"] for i in range(5)] == ["3 Main St", "Anchorage", "AK", "99501", "P-3"]
    assert export.detail_columns == COLUMNS
    # The export is its manifest, its chunks' facts files where they were written (nothing copied)
    # and their score rows merged into one file: the chunks' own score files are gone.
    files = await stored_keys(w.files, export)
    assert export.keys == (export.manifest_key,) and len(files) == 1 + 3 + 1
    assert sum(key.endswith(".facts.parquet") and key.startswith(f"jobs/{job_id}/out/") for key in files) == 3
    assert sorted(key for key in w.files.files if key.startswith(("exports/", f"jobs/{job_id}/out/"))) == sorted(files)
    # All of them count against Ann's storage, as stored.
    assert export.size_bytes == sum([len(w.files.files[key]) for key in files])


async def test_the_jobs_task_sent_again_or_after_a_restart_adds_nothing() -> None:
    w = world(chunk_rows=2)
    job_id = await started(w, ANN, streets(3))
    await w.service.run(job_id)  # the same job task again (sent twice)
    assert (await w.service.job_chunks(ANN, job_id)).total == 2 and w.queue.chunk_tasks == 2  # split once
    w.queue.chunk_tasks = 0  # a restart: the in-process tasks are gone...
    assert await w.service.resume_unfinished() == [job_id]
    assert w.queue.chunk_tasks == 2  # ...and sent again for the queued chunks
    while w.queue.chunk_tasks:
        await run_one_chunk(w)
    await w.service.run(job_id)
    await w.service.sweep()
    assert len(w.store.exports_stored) == 1 and w.store.jobs[job_id].done == 3


async def test_a_dead_workers_chunk_is_taken_over_after_its_lease_and_the_late_result_is_dropped() -> None:
    w = world(chunk_rows=2)
    job_id = await started(w, ANN, streets(4))
    clock = w.lookup.clock
    dead = await w.chunks.claim("dead-host:1", clock.now(), clock.now() + LEASE, max_attempts=3)
    assert dead is not None and dead.plan.index == 0
    w.queue.chunk_tasks -= 1  # the dead worker took that task with it
    clock.advance(timedelta(seconds=10))
    await w.service.sweep()
    assert w.queue.chunk_tasks == 1  # the lease still runs: nothing is sent again
    clock.advance(LEASE)
    await w.service.sweep()
    # Expired: the chunk is queued again, with a task; chunk 1, queued a lease ago while nothing
    # ran, gets a second task as if its first were lost (a spare task finds nothing: harmless).
    assert w.chunks.chunks[job_id][0].status == "queued" and w.queue.chunk_tasks == 3
    while w.queue.chunk_tasks:
        await run_one_chunk(w)
    late = await w.service.answer_rows(job_id, [], TimeSlices())  # what the dead worker would write, were it alive
    assert await w.chunks.complete(dead, await written(w, dead, late), clock.now()) is False
    assert w.store.jobs[job_id].status == "done" and w.store.jobs[job_id].done == 4
    [export] = w.store.exports_stored
    assert export_streets(w, export) == streets(4)


async def test_a_claimant_whose_lease_was_taken_over_deletes_its_files_and_only_the_winners_reach_the_export() -> None:
    w = world(chunk_rows=2)
    job_id = await started(w, ANN, streets(2))
    clock = w.lookup.clock
    answer = w.service._answer  # noqa: SLF001

    async def overtaken(row) -> LookupResult:  # noqa: ANN001
        if not w.chunks.chunks[job_id][0].attempts > 1:
            clock.advance(LEASE * 2)  # this worker stalls past its lease; another takes the chunk over
            thief = await w.chunks.claim("thief:2", clock.now(), clock.now() + LEASE, max_attempts=3)
            won = w.service.failed_rows(rows_of(await chunk_text(w.files, thief.source), thief.line_offset), "THE TAKER'S ROWS")
            assert await w.chunks.complete(thief, await written(w, thief, won), clock.now())
        return await answer(row)

    w.service._answer = overtaken  # noqa: SLF001
    await run_one_chunk(w)  # its answer comes too late: dropped
    assert not [key for key in w.files.files if ".a1." in key]  # the stale claimant deleted its own files
    await w.service.sweep()  # the taker's process would finish it; here the sweeper does
    [export] = w.store.exports_stored
    assert w.store.jobs[job_id].status == "done"
    assert ["THE TAKER'S ROWS" in row["message"] for row in w.export_facts(export)] == [True, True]
    assert export_streets(w, export) == streets(2)
    # The taker's files are the export's; the stale claimant's are gone.
    assert sorted(key for key in w.files.files if "/out/" in key) == sorted(w.chunks.chunks[job_id][0].result.keys)


async def test_a_job_whose_export_cannot_be_assembled_fails_and_its_chunk_files_go() -> None:
    w = world(chunk_rows=1)
    job_id = await started(w, ANN, streets(3))

    async def broken(job, results):  # noqa: ANN001, ANN202
        raise OSError("the file store is gone")

    w.service.assemble = broken  # type: ignore[method-assign]
    while w.queue.chunk_tasks:
        await run_one_chunk(w)
    assert w.store.jobs[job_id].status == "failed" and w.store.exports_stored == []
    assert [key for key in w.files.files if "/out/" in key] == []


async def test_a_chunk_whose_input_file_is_gone_fails_the_job_saying_why_instead_of_running_for_ever() -> None:
    w = world(chunk_rows=2, max_attempts=3)
    job_id = await started(w, ANN, streets(4))
    [gone] = [key for key in w.files.files if key == f"jobs/{job_id}/in/1.csv"]
    del w.files.files[gone]
    while w.queue.chunk_tasks:
        await run_one_chunk(w)
    job = w.store.jobs[job_id]
    assert (job.status, job.error) == ("failed", INPUT_GONE)
    assert w.store.exports_stored == []


async def test_a_failing_chunk_is_retried_then_its_rows_are_marked_failed_and_can_run_again() -> None:
    w = world(chunk_rows=2, max_attempts=3)
    working = w.service._answer  # noqa: SLF001
    calls = failing_for(w.service, "3 Main St")
    job_id = await started(w, ANN, streets(5))
    while w.queue.chunk_tasks:
        await run_one_chunk(w)
    assert calls["failed"] == 3  # three attempts, then given up
    job = w.store.jobs[job_id]
    assert job.status == "done" and job.done == 5  # the job finished instead of failing whole
    chunks = await w.service.job_chunks(ANN, job_id)
    assert (chunks.total, chunks.done, chunks.failed, chunks.rows_failed) == (3, 2, 1, 2)
    [export] = w.store.exports_stored
    assert export_streets(w, export) == streets(5)
    rows = w.export_facts(export)
    assert "not processed" in rows[2]["message"] and "ConnectionError" in rows[2]["message"]
    assert "not processed" in rows[3]["message"] and "not processed" not in (rows[4]["message"] or "")
    assert rows[2]["input_4"] == "P-3"  # a row given up keeps the user's values
    # The finisher deleted the done chunks' inputs with the export stored; the failed chunk's stays.
    assert sorted(key for key in w.files.files if key.startswith(f"jobs/{job_id}/in/")) == [f"jobs/{job_id}/in/1.csv"]
    assert await w.chunks.done_input_keys(job_id) == []

    with pytest.raises(NotFound):
        await w.service.rerun_failed(BOB, job_id)  # another user's job is not found
    w.service._answer = working  # noqa: SLF001 - the provider is back
    again = await w.service.rerun_failed(ANN, job_id)
    assert again.total == 2
    await w.run(again.id)
    assert w.store.jobs[again.id].status == "done"
    assert export_streets(w, w.store.exports_stored[-1]) == ["3 Main St", "4 Main St"]
    with pytest.raises(InvalidInput, match="no failed rows"):
        await w.service.rerun_failed(ANN, again.id)


async def test_a_chunk_that_fails_once_is_retried_and_the_job_has_no_failed_rows() -> None:
    w = world(chunk_rows=2)
    failing_for(w.service, "2 Main St", times=1)
    job_id = await started(w, ANN, streets(3))
    while w.queue.chunk_tasks:
        await run_one_chunk(w)
    chunks = await w.service.job_chunks(ANN, job_id)
    assert (chunks.failed, chunks.rows_failed) == (0, 0)
    assert export_streets(w, w.store.exports_stored[0]) == streets(3)


async def test_a_chunk_whose_worker_dies_every_time_is_given_up_by_the_sweeper() -> None:
    w = world(chunk_rows=2, max_attempts=2)
    job_id = await started(w, ANN, streets(3))
    clock = w.lookup.clock
    for attempt in (1, 2):  # a row that kills its worker: claimed, never finished
        assert await w.chunks.claim(f"host:{attempt}", clock.now(), clock.now() + LEASE, max_attempts=2)
        clock.advance(LEASE * 2)
        await w.service.sweep()
    w.queue.chunk_tasks = 0
    await w.service.run_chunk()  # the other chunk
    chunks = await w.service.job_chunks(ANN, job_id)
    assert (chunks.done, chunks.failed, chunks.rows_failed) == (1, 1, 2)
    assert w.store.jobs[job_id].status == "done" and len(w.store.exports_stored) == 1
    assert any("stopped 2 times" in (row["message"] or "") for row in w.export_facts(w.store.exports_stored[0]))


async def test_a_finisher_that_dies_is_replaced_and_the_job_gets_one_export() -> None:
    w = world(chunk_rows=2)
    job_id = await started(w, ANN, streets(2))
    clock = w.lookup.clock
    chunk = await w.chunks.claim("dead:1", clock.now(), clock.now() + LEASE, max_attempts=3)
    result = await w.service.answer_rows(job_id, rows_of(await chunk_text(w.files, chunk.source), chunk.line_offset), TimeSlices())
    assert await w.chunks.complete(chunk, await written(w, chunk, result), clock.now())
    assert await w.chunks.begin_finishing(job_id, "dead:1", clock.now(), clock.now() + LEASE)
    await w.service.sweep()
    assert w.store.exports_stored == []  # the turn is still the dead finisher's
    clock.advance(LEASE * 2)
    await w.service.sweep()
    await w.service.sweep()
    assert w.store.jobs[job_id].status == "done" and len(w.store.exports_stored) == 1
    assert not await w.chunks.finish(job_id, "dead:1", w.store.exports_stored[0], clock.now())


async def test_a_small_job_is_not_starved_by_a_big_one() -> None:
    w = world(chunk_rows=1)
    big = await started(w, ANN, streets(10))
    # The small job's own task waits behind the big job's ten chunk tasks on the queue...
    upload = await w.service.upload(BOB, "small.csv", csv_of(streets(1, start=100)))
    small = (await w.service.start(BOB, upload.id)).id
    tasks_run = 0
    while w.store.jobs[small].status != "done" and tasks_run < 12:
        await run_one_chunk(w)
        tasks_run += 1
    # ...yet the first chunk task splits it and the next serves it: turns, not a line.
    assert tasks_run <= 2
    assert w.store.jobs[big].status == "running"


async def test_job_status_counts_chunks_speed_and_workers() -> None:
    w = world(chunk_rows=2)
    job_id = await started(w, ANN, streets(4))
    clock = w.lookup.clock
    assert w.service.rows_per_second(w.store.jobs[job_id], None) is None  # nothing done: unknown, not 0
    await w.chunks.claim("host-a:7", clock.now(), clock.now() + LEASE, max_attempts=3)
    clock.advance(timedelta(seconds=4))
    await w.service.run_chunk()
    chunks = await w.service.job_chunks(ANN, job_id)
    assert (chunks.total, chunks.done, chunks.worker_count) == (2, 1, 1)
    assert w.service.rows_per_second(w.store.jobs[job_id], chunks) == 0.5  # 2 rows in 4 s


async def test_a_working_chunk_keeps_its_lease_by_heartbeats() -> None:
    lease = timedelta(seconds=9)  # a beat every 3 s
    w = in_memory_batch(monthly_batch_row_limit=1000, policy=ChunkPolicy(chunk_rows=2, lease_seconds=9))
    w.lookup.users["ann"] = Role.USER
    job_id = await started(w, ANN, streets(2))
    clock, answer = w.lookup.clock, w.service._answer  # noqa: SLF001
    swept: list[int] = []

    async def slow(row) -> LookupResult:  # noqa: ANN001
        await until(lambda: clock.sleepers == 1)  # the heartbeat waits for its next beat
        clock.advance(timedelta(seconds=5))  # past the lease since the claim by the second row...
        await until(lambda: _held_until(w, job_id) == clock.now() + lease)  # ...but each beat renews it
        await w.service.sweep()  # another process's sweeper finds it held
        swept.append(w.queue.chunk_tasks)
        return await answer(row)

    w.service._answer = slow  # noqa: SLF001
    await run_one_chunk(w)
    assert swept == [0, 0]  # nothing was queued again
    assert w.store.jobs[job_id].status == "done" and len(w.store.exports_stored) == 1


async def test_progress_moves_within_a_chunk_and_a_claim_after_a_dead_one_never_takes_it_back() -> None:
    """A 3,000-row job of one chunk used to read 0% until the chunk ended (#27): the heartbeat
    records the rows answered so far."""
    w = in_memory_batch(monthly_batch_row_limit=1000, policy=ChunkPolicy(chunk_rows=4, progress_seconds=1))
    w.lookup.users["ann"] = Role.USER
    job_id = await started(w, ANN, streets(4))
    clock, answer = w.lookup.clock, w.service._answer  # noqa: SLF001
    seen: list[int] = []

    async def slow(row) -> LookupResult:  # noqa: ANN001
        await until(lambda: clock.sleepers == 1)  # the heartbeat waits for its next beat
        answered = int(row.street.split()[0]) - 1  # the rows before this one
        clock.advance(timedelta(seconds=1))
        await until(lambda: w.chunks.chunks[job_id][0].rows_answered == answered)
        seen.append(w.store.jobs[job_id].done)
        return await answer(row)

    w.service._answer = slow  # noqa: SLF001
    await run_one_chunk(w)
    assert seen == [0, 1, 2, 3]  # the job's progress, as its status reads it, while the chunk ran
    assert w.store.jobs[job_id].done == 4 and w.store.jobs[job_id].status == "done"
    w.service._answer = answer  # noqa: SLF001

    # A claim that dies after 3 rows; the next one's beats count from there, never back to 0.
    again = await started(w, ANN, streets(4))
    dead = await w.chunks.claim("dead:1", clock.now(), clock.now() + LEASE, max_attempts=3)
    assert await w.chunks.renew(dead, clock.now() + LEASE, 3) and w.store.jobs[again].done == 3
    clock.advance(LEASE * 2)
    taker = await w.chunks.claim("taker:2", clock.now(), clock.now() + LEASE, max_attempts=3)
    assert not await w.chunks.renew(dead, clock.now() + LEASE, 4)  # fenced out: counts nothing
    assert await w.chunks.renew(taker, clock.now() + LEASE, 1) and w.store.jobs[again].done == 3
    assert await w.chunks.renew(taker, clock.now() + LEASE, 4) and w.store.jobs[again].done == 4
    rows = rows_of(await chunk_text(w.files, taker.source), taker.line_offset)
    result = await w.service.answer_rows(again, rows, TimeSlices())
    assert await w.chunks.complete(taker, await written(w, taker, result), clock.now())
    assert w.store.jobs[again].done == 4  # each row counted once


def _held_until(w, job_id: str):  # noqa: ANN001, ANN202
    (chunk,) = w.chunks.chunks[job_id]
    return chunk.lease_expires_at


async def test_a_repeated_address_is_answered_once_across_chunks_and_the_memory_is_bounded() -> None:
    from application.repeat_answers import RepeatAnswers

    w = world(chunk_rows=1)
    job_id = await started(w, ANN, ["7 Main St"] * 3 + ["8 Main St"])
    while w.queue.chunk_tasks:
        await run_one_chunk(w)
    assert w.lookup.places.calls == 2 and w.store.jobs[job_id].status == "done"

    repeats: RepeatAnswers[str] = RepeatAnswers(max_bytes=2 * 11)  # two answers of 10 bytes + 1 of address
    for address in ("a", "b", "a", "c"):  # "b" is the least recently used when "c" comes
        repeats.put("job", address, address.upper() * 10)
    assert [repeats.get("job", a) for a in "abc"] == ["A" * 10, None, "C" * 10]
    assert repeats.get("other job", "a") is None  # answers are shared within a job only
    assert repeats.bytes_kept == 22
    repeats.put("job", "d", "D" * 30)  # larger than the whole bound: not kept, nothing dropped for it
    assert repeats.get("job", "d") is None and repeats.bytes_kept == 22
    big: RepeatAnswers[str] = RepeatAnswers(max_bytes=1000)
    for index in range(500):  # many answers: the bytes kept stay within the bound
        big.put("job", f"{index}", "x" * 90)
        assert big.bytes_kept <= 1000


async def test_a_chunk_turn_told_not_to_split_leaves_a_waiting_job_to_the_server() -> None:
    """A local worker's turn (entrypoints/local_workers.py) only claims: were it to split a job,
    the chunk tasks would go to its own queue and the server would run none of them."""
    w = world()
    upload = await w.service.upload(ANN, "book.csv", csv_of(["1 A St", "2 B St", "3 C St"]))
    job = await w.service.start(ANN, upload.id)
    assert await w.service.run_chunk(split_waiting=False) is False
    assert await w.service.job_chunks(ANN, job.id) is None and w.queue.chunk_tasks == 0
    assert await w.service.run_chunk() is True  # a server's chunk task splits it, then runs a chunk
    assert (await w.service.job_chunks(ANN, job.id)).total == 2


async def test_chunks_run_while_the_job_is_split_and_a_dead_splitters_successor_goes_on_after_them() -> None:
    w = world(chunk_rows=2)
    names = streets(13)  # 7 chunks: stored in batches of 1, 2, 4
    upload = await w.service.upload(ANN, "book.csv", csv_of(names))
    job = await w.service.start(ANN, upload.id)
    runner = w.service._runner  # noqa: SLF001 - the splitter dies after the chunks of two batches
    store_input, stored = runner._store_input, []  # noqa: SLF001

    async def dies_at_the_fourth(job_id: str, chunk):  # noqa: ANN001, ANN202
        if chunk.plan.index == 3:
            raise KeyboardInterrupt  # as a kill -9: nothing after it runs, the turn stays held
        stored.append(chunk.plan.index)
        return await store_input(job_id, chunk)

    runner._store_input = dies_at_the_fourth  # noqa: SLF001
    with pytest.raises(KeyboardInterrupt):
        await w.service.run(job.id)
    runner._store_input = store_input  # noqa: SLF001
    assert [c.plan.index for c in w.chunks.chunks[job.id]] == [0, 1, 2] and w.queue.chunk_tasks == 3
    assert (await w.service.job_chunks(ANN, job.id)) is None  # not split whole: no total yet
    await run_one_chunk(w)
    await run_one_chunk(w)
    await run_one_chunk(w)  # every chunk stored has ended, and the job still cannot finish
    assert w.store.jobs[job.id].status == "running" and w.store.jobs[job.id].done == 6
    await w.service.sweep()
    assert len(w.chunks.chunks[job.id]) == 3  # the dead splitter's turn still runs
    w.lookup.clock.advance(LEASE + timedelta(seconds=1))
    await w.service.sweep()  # its turn is taken over: the chunks after the stored ones
    assert [c.plan.index for c in w.chunks.chunks[job.id]] == list(range(7))
    while w.queue.chunk_tasks:
        await run_one_chunk(w)
    [export] = w.store.exports_stored
    assert export_streets(w, export) == names and w.store.jobs[job.id].done == 13


async def test_a_job_whose_file_goes_while_it_is_split_fails_and_its_chunks_results_go() -> None:
    w = world(chunk_rows=2)
    upload = await w.service.upload(ANN, "book.csv", csv_of(streets(13)))
    job = await w.service.start(ANN, upload.id)
    runner = w.service._runner  # noqa: SLF001
    store_input = runner._store_input  # noqa: SLF001

    async def dies_at_the_fourth(job_id: str, chunk):  # noqa: ANN001, ANN202
        if chunk.plan.index == 3:
            raise KeyboardInterrupt
        return await store_input(job_id, chunk)

    runner._store_input = dies_at_the_fourth  # noqa: SLF001
    with pytest.raises(KeyboardInterrupt):
        await w.service.run(job.id)
    runner._store_input = store_input  # noqa: SLF001
    while w.queue.chunk_tasks:
        await run_one_chunk(w)
    results = [key for c in w.chunks.chunks[job.id] for key in c.result.keys]
    assert len(results) == 3 * 2 and all(key in w.files.files for key in results)
    assert upload.file_key is not None
    del w.files.files[upload.file_key]  # gone (purged, or the store lost it) before the split went on
    w.lookup.clock.advance(LEASE + timedelta(seconds=1))
    await w.service.sweep()
    failed = w.store.jobs[job.id]
    assert (failed.status, failed.error) == ("failed", "The uploaded file is gone.")
    assert not [key for key in results if key in w.files.files]

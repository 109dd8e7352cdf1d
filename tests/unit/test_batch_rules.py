"""The batch's rules on in-memory ports (tests/fakes.py): milliseconds each, no database, no queue
worker. The HTTP tests in tests/api/test_batch*.py are the smoke tests of the same rules."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from application.batch import ROW_NOT_READ
from application.batch_limits import STORED_BYTES_PER_JOB_ESTIMATE
from application.errors import QuotaExceeded, StorageFull
from application.lookup import BATCH
from application.ports.accounts import AccessClaims
from application.ports.batch import ExportFile
from domain.accounts import Role
from tests.fakes import BatchWorld, in_memory_batch

ANN = AccessClaims("ann")
MONTH = "2025-03"  # the fake clock's month
CORDOVA = ("4800 Cordova St", "Anchorage", "AK", "99503")
MAIN = ("100 Main St", "Anchorage", "AK", "99501")


def csv_file(*rows: tuple[str, str, str, str]) -> bytes:
    lines = ["Street Address,City,State,Zip", *(",".join(row) for row in rows)]
    return ("\r\n".join(lines) + "\r\n").encode()


def world_with(role: Role = Role.USER, **limits: int) -> BatchWorld:
    world = in_memory_batch(**limits)
    world.lookup.users["ann"] = role
    return world


def export_addresses(world: BatchWorld) -> list[str]:
    """The first line of each address group of the one export, in the export's order."""
    [export] = world.store.exports_stored
    return [str(row["address"]).splitlines()[0] for row in world.export_facts(export)]


def world_export(user_id: str) -> ExportFile:
    """An export placed in the user's history (no file: only its size counts here)."""
    return ExportFile(id="placed", user_id=user_id, name="placed.csv", exported_at=datetime(2025, 3, 1, tzinfo=UTC))


def one_line(row: tuple[str, str, str, str]) -> str:
    street, city, state, zip5 = row
    return f"{street}, {city}, {state} {zip5}"


async def test_an_upload_past_the_storage_cap_is_refused_and_stores_nothing() -> None:
    first = csv_file(CORDOVA)
    world = world_with(storage_bytes=len(first) + 10)
    await world.service.upload(ANN, "first.csv", first)
    with pytest.raises(StorageFull, match="Storage limit reached"):
        await world.service.upload(ANN, "second.csv", csv_file(MAIN))
    assert [upload.name for upload in world.store.uploads.values()] == ["first.csv"]
    assert await world.store.storage_used("ann") == len(first)


async def test_a_batch_whose_export_could_never_fit_is_refused_at_its_start_and_charges_nothing() -> None:
    upload_bytes = csv_file(CORDOVA, MAIN, CORDOVA)
    # Room for the upload and a little, not for three rows' export (STORED_BYTES_PER_ROW_ESTIMATE each,
    # and the files' own STORED_BYTES_PER_JOB_ESTIMATE).
    world = world_with(storage_bytes=len(upload_bytes) + STORED_BYTES_PER_JOB_ESTIMATE)
    upload = await world.service.upload(ANN, "portfolio.csv", upload_bytes)
    with pytest.raises(StorageFull) as refused:
        await world.service.start(ANN, upload.id)
    assert refused.value.code == "storage_full"
    assert "a batch of 3 rows (its export, estimated) needs 32.3 kB" in refused.value.message
    assert "Delete old exports from your Batch Export History, then start it again" in refused.value.message
    assert await world.lookup.searches.used("ann", MONTH) == 0 and await world.rows.used("ann", MONTH) == 0
    assert world.store.jobs == {} and world.queue.enqueued == []


async def test_an_export_past_the_allowance_at_the_finish_fails_the_job_saying_what_to_delete() -> None:
    world = world_with()
    upload = await world.service.upload(ANN, "portfolio.csv", csv_file(CORDOVA, MAIN))
    job = await world.service.start(ANN, upload.id)
    # While it runs, other files take the room its export needs (the start's estimate was right then).
    await world.store.add_export(replace(world_export("ann"), size_bytes=1024 * 1024 - upload.size_bytes - 100))
    await world.run(job.id)

    failed = world.store.jobs[job.id]
    assert failed.status == "failed" and failed.export_name is None
    assert failed.error.startswith("The export could not be kept. Storage limit reached: you use 1,023.9 kB of your "
                                   "1.0 MB and its export needs")
    assert "Delete old exports from your Batch Export History, then run the batch again." in failed.error
    assert [e.name for e in world.store.exports_stored] == ["placed.csv"]  # its export was not kept
    assert not [key for key in world.files.files if key.startswith("exports/") or "/out/" in key]
    # It gave nothing, so it cost nothing: its search and rows are given back, once.
    assert await world.lookup.searches.used("ann", MONTH) == 0 and await world.rows.used("ann", MONTH) == 0
    await world.service.sweep()
    assert await world.rows.used("ann", MONTH) == 0 and world.store.jobs[job.id].status == "failed"


async def test_an_export_of_client_rows_is_checked_against_the_allowance_before_it_is_written() -> None:
    world = world_with(storage_bytes=400)
    rows = [{"address": "1 Main St, Anchorage, AK 99501" + " (client's note)" * 6}]
    first = await world.service.export_now(ANN, rows)
    assert first.size_bytes < 400
    with pytest.raises(StorageFull) as refused:
        await world.service.export_now(ANN, rows * 3)
    assert "this export needs" in refused.value.message and "then export again" in refused.value.message
    assert [e.id for e in world.store.exports_stored] == [first.id]
    assert list(world.files.files) == [first.csv_key]


async def test_starting_a_batch_charges_one_search_and_the_uploads_rows() -> None:
    world = world_with()
    upload = await world.service.upload(ANN, "portfolio.csv", csv_file(CORDOVA, MAIN, CORDOVA))
    job = await world.service.start(ANN, upload.id)
    assert await world.lookup.searches.used("ann", MONTH) == 1
    assert await world.rows.used("ann", MONTH) == 3
    assert world.queue.enqueued == [job.id]
    [search] = world.lookup.searches.searches
    assert (search.id, search.kind, search.address) == (job.id, BATCH, "portfolio.csv")


async def test_a_failure_while_starting_gives_the_search_and_the_rows_back() -> None:
    world = world_with()
    upload = await world.service.upload(ANN, "portfolio.csv", csv_file(CORDOVA, MAIN))
    world.store.add_job_failure = ConnectionError("the database went away")
    with pytest.raises(ConnectionError):
        await world.service.start(ANN, upload.id)
    assert await world.lookup.searches.used("ann", MONTH) == 0
    assert await world.rows.used("ann", MONTH) == 0
    assert world.store.jobs == {} and world.queue.enqueued == []


async def test_a_batch_over_the_row_allowance_is_refused_saying_how_many_rows_remain() -> None:
    world = world_with(monthly_batch_row_limit=5)
    first = await world.service.upload(ANN, "first.csv", csv_file(CORDOVA, MAIN, CORDOVA))
    await world.service.start(ANN, first.id)
    second = await world.service.upload(ANN, "second.csv", csv_file(MAIN, CORDOVA, MAIN))
    with pytest.raises(QuotaExceeded, match="this file has 3 rows and 2 of your 5 batch rows remain this month"):
        await world.service.start(ANN, second.id)
    # Refused whole: neither the rows nor the search of the second batch stay charged.
    assert await world.rows.used("ann", MONTH) == 3
    assert await world.lookup.searches.used("ann", MONTH) == 1
    assert len(world.queue.enqueued) == 1


async def test_an_administrator_has_no_row_limit_and_the_role_is_the_stored_one() -> None:
    world = world_with(Role.ADMIN, monthly_batch_row_limit=2)
    upload = await world.service.upload(ANN, "large.csv", csv_file(CORDOVA, MAIN, CORDOVA))
    await world.service.start(ANN, upload.id)
    assert await world.rows.used("ann", MONTH) == 3
    assert (await world.service.usage(ANN)).batch_rows_limit is None
    # The same token, after a demotion: the roles port decides, so the limit applies at once.
    world.lookup.users["ann"] = Role.USER
    with pytest.raises(QuotaExceeded, match="this file has 3 rows"):
        await world.service.start(ANN, upload.id)


async def test_a_jobs_rows_are_answered_in_input_order_and_repeats_share_one_answer() -> None:
    world = world_with()
    upload = await world.service.upload(ANN, "portfolio.csv", csv_file(MAIN, CORDOVA, MAIN, MAIN))
    job = await world.service.start(ANN, upload.id)
    await world.run(job.id)
    assert world.store.jobs[job.id].status == "done"
    assert export_addresses(world) == [one_line(MAIN), one_line(CORDOVA), one_line(MAIN), one_line(MAIN)]
    assert world.lookup.places.calls == 2  # one per distinct address


async def test_a_search_now_answers_a_row_at_a_time_as_they_are_read() -> None:
    world = world_with()
    upload = await world.service.upload(ANN, "portfolio.csv", csv_file(CORDOVA, MAIN, CORDOVA))
    results = await world.service.search_now(ANN, upload.id)
    first = await anext(results)
    # The first answer is out before the next row is looked up: no list of every answer is held.
    assert first.query == one_line(CORDOVA) and world.lookup.places.calls == 1
    assert [result.query async for result in results] == [one_line(MAIN), one_line(CORDOVA)]


async def test_an_unparseable_row_is_kept_and_marked_not_located() -> None:
    unreadable = ("somewhere", "", "AK", "ABCDE")  # neither a ZIP code nor a city (#26, item 6)
    world = world_with()
    upload = await world.service.upload(ANN, "portfolio.csv", csv_file(CORDOVA, unreadable, MAIN))
    results = [result async for result in await world.service.search_now(ANN, upload.id)]
    assert [result.query for result in results] == [one_line(CORDOVA), one_line(unreadable), one_line(MAIN)]
    kept = results[1]
    assert (kept.address, kept.location.method, kept.location.notes) == (None, "none", (ROW_NOT_READ,))
    assert world.lookup.places.calls == 2  # no provider is asked about a row that is not an address
    job = await world.service.start(ANN, upload.id)
    await world.run(job.id)
    assert export_addresses(world) == [one_line(CORDOVA), one_line(unreadable), one_line(MAIN)]

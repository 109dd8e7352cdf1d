"""The public API's batches, exports and Idempotency-Key on in-memory ports: the rules in
milliseconds; tests/api/test_public_api_batches.py is their smoke test over HTTP."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import timedelta

import pytest

from adapters.security.secret_box import AesGcmSecretBox

from application.api_batches import ApiBatches, ExportId
from application.api_plans import ApiPlans
from application.errors import Conflict, Forbidden, InvalidInput, NotFound, QuotaExceeded, StorageFull, TooLarge, TooManyRequests
from application.ports.accounts import AccessClaims
from application.idempotency import Idempotency, request_fingerprint
from application.ports.batch import BatchJob
from application.ports.idempotency import StoredReply
from application.ports.public_api import ApiCaller
from domain.accounts import Role
from domain.api_access import ApiScope, Plan, UserPlan
from domain.batch_input import INDEX_COLUMN, SubmittedAddress
from tests.conftest import TEST_SECRET
from tests.fakes import BatchWorld, DictRoles, FakeClock, in_memory_batch
from tests.fakes import collected
from tests.fakes_api import InMemoryDailyUsage, InMemoryIdempotencyKeys, InMemoryPlans

ANN = ApiCaller("ann", "key-1", frozenset({ApiScope.READ, ApiScope.BATCH}))
BOB = ApiCaller("bob", "key-2", frozenset({ApiScope.READ, ApiScope.BATCH}))
CORDOVA = SubmittedAddress("4800 Cordova St", "Anchorage", "AK", "99503")
MAIN = SubmittedAddress("100 Main St", "Anchorage", "AK", "99501")
UPLOAD_OF_THREE = "Street Address,City,State,Zip\n" + "100 Main St,Anchorage,AK,99501\n" * 3


class RecordingListener:
    def __init__(self, failure: Exception | None = None) -> None:
        self.calls: list[tuple[BatchJob, str]] = []
        self.failure = failure

    async def batch_ended(self, job: BatchJob, callback_url: str) -> None:
        self.calls.append((job, callback_url))
        if self.failure:
            raise self.failure


class AcceptingCheck:
    async def check(self, url: str) -> str:
        if "internal" in url:
            raise InvalidInput("That host is private.", code="callback_url_refused")
        return url


@dataclass
class World:
    batches: ApiBatches
    batch: BatchWorld
    usage: InMemoryDailyUsage
    plans: InMemoryPlans
    listener: RecordingListener

    @property
    def clock(self) -> FakeClock:
        return self.batch.lookup.clock

    async def used(self, user_id: str = "ann") -> int:
        return await self.usage.used(user_id, self.clock.now().strftime("%Y-%m-%d"))

    async def run_all(self) -> None:
        for job_id in self.batch.queue.enqueued:
            await self.batch.run(job_id)  # the job's task and its chunk tasks


def world_with(max_addresses: int = 100, storage_bytes: int = 1024 * 1024, listener: RecordingListener | None = None,
               monthly_batch_row_limit: int = 100) -> World:
    listener = listener or RecordingListener()
    batch = in_memory_batch(storage_bytes=storage_bytes, ended=listener, monthly_batch_row_limit=monthly_batch_row_limit)
    usage, plans = InMemoryDailyUsage(), InMemoryPlans()
    api_plans = ApiPlans(plans, usage, DictRoles(batch.lookup.users), batch.lookup.clock)
    batches = ApiBatches(batch.service, api_plans, AcceptingCheck(), batch.lookup.clock, max_addresses)
    return World(batches, batch, usage, plans, listener)


async def test_a_batch_charges_one_request_per_address_and_runs_as_a_job_with_its_export_in_history() -> None:
    world = world_with()
    submitted = await world.batches.submit(ANN, [CORDOVA, MAIN, CORDOVA])

    assert submitted.standing.used == 3 == await world.used()
    assert submitted.export_id == submitted.job.id and submitted.eta_seconds >= 1
    assert submitted.job.status == "queued" and submitted.job.total == 3
    assert world.batch.lookup.searches.searches == []  # not a web search: no monthly quota, no recent search

    await world.run_all()

    state = await world.batches.status(ANN, submitted.export_id)
    assert state.ready and state.job.done == 3 and state.eta_seconds is None
    [export] = world.batch.store.exports_stored
    assert export.user_id == "ann" and export.name.startswith("api-batch_export_")
    records = world.batch.export_facts(export)
    index = f"input_{export.detail_columns.index(INDEX_COLUMN)}"
    assert [r[index] for r in records] == ["0", "1", "2"]  # each row says where it was in the request


async def test_a_batch_larger_than_what_remains_today_is_refused_whole_and_charges_nothing() -> None:
    world = world_with()
    world.plans.plans["ann"] = UserPlan(Plan.ENTERPRISE, 4)
    await world.batches.submit(ANN, [CORDOVA, MAIN])

    with pytest.raises(TooManyRequests) as refused:
        await world.batches.submit(ANN, [CORDOVA, MAIN, CORDOVA])

    assert refused.value.code == "daily_limit_reached" and refused.value.retry_after
    assert "3 addresses" in refused.value.message and "2 of your" in refused.value.message
    assert refused.value.details and refused.value.details["remaining"] == 2
    assert await world.used() == 2 and len(world.batch.store.jobs) == 1
    assert (await world.batches.submit(ANN, [CORDOVA, MAIN])).standing.remaining == 0


async def test_what_a_batch_is_refused_for_is_checked_before_anything_is_charged() -> None:
    world = world_with(max_addresses=2)
    read_only = ApiCaller("ann", "key-3", frozenset({ApiScope.READ}))
    with pytest.raises(Forbidden):
        await world.batches.submit(read_only, [CORDOVA])
    with pytest.raises(InvalidInput) as empty:
        await world.batches.submit(ANN, [])
    assert empty.value.code == "no_addresses"
    with pytest.raises(TooLarge) as large:
        await world.batches.submit(ANN, [CORDOVA] * 3)
    assert large.value.code == "too_many_addresses" and "at most 2" in large.value.message
    with pytest.raises(InvalidInput) as refused_url:
        await world.batches.submit(ANN, [CORDOVA], callback_url="https://internal.example/hook")
    assert refused_url.value.code == "callback_url_refused"
    assert await world.used() == 0 and world.batch.store.jobs == {}


async def test_a_batch_that_cannot_be_stored_gives_its_requests_back() -> None:
    world = world_with(storage_bytes=10)
    with pytest.raises(StorageFull):
        await world.batches.submit(ANN, [CORDOVA, MAIN])
    assert await world.used() == 0 and world.batch.store.jobs == {}
    assert (await world.batch.service.usage(AccessClaims("ann"))).batch_rows_used == 0  # its rows given back too


async def test_a_batchs_addresses_are_rows_of_the_one_monthly_allowance_uploads_spend() -> None:
    world = world_with(monthly_batch_row_limit=5)
    world.batch.lookup.users["ann"] = Role.USER
    await world.batches.submit(ANN, [CORDOVA, MAIN, CORDOVA])
    usage = await world.batch.service.usage(AccessClaims("ann"))
    assert (usage.batch_rows_used, usage.batch_rows_remaining) == (3, 2)

    with pytest.raises(QuotaExceeded) as refused:
        await world.batches.submit(ANN, [CORDOVA, MAIN, CORDOVA])
    assert refused.value.code == "batch_rows_exceeded"
    assert "this batch has 3 rows and 2 of your 5 batch rows remain this month" in refused.value.message
    assert await world.used() == 3 and len(world.batch.store.jobs) == 1  # the plan's requests given back

    upload = await world.batch.service.upload(AccessClaims("ann"), "p.csv", UPLOAD_OF_THREE.encode())
    with pytest.raises(QuotaExceeded):  # whichever door: the web's upload is refused too
        await world.batch.service.start(AccessClaims("ann"), upload.id)
    await world.batches.submit(ANN, [CORDOVA, MAIN])  # exactly what remains
    assert (await world.batch.service.usage(AccessClaims("ann"))).batch_rows_remaining == 0


async def test_the_listener_hears_once_when_a_batch_with_a_callback_url_ends() -> None:
    world = world_with()
    with_url = await world.batches.submit(ANN, [CORDOVA], callback_url=" https://hooks.example.com/ps ")
    await world.batches.submit(ANN, [MAIN])  # no callback URL: nothing to tell

    await world.run_all()
    await world.batch.service.run(with_url.job.id)  # a finished job run again does nothing

    [(job, url)] = world.listener.calls
    assert job.id == with_url.job.id and job.status == "done" and url == "https://hooks.example.com/ps"


async def test_a_failing_listener_never_fails_the_job_and_a_failed_job_is_told_too() -> None:
    world = world_with(listener=RecordingListener(failure=RuntimeError("receiver down")))
    done = await world.batches.submit(ANN, [CORDOVA], callback_url="https://hooks.example.com/ps")
    gone = await world.batches.submit(ANN, [MAIN], callback_url="https://hooks.example.com/ps")
    del world.batch.store.uploads[gone.job.file_id or ""]  # its upload is gone: the job fails

    await world.run_all()

    assert (await world.batches.status(ANN, done.export_id)).job.status == "done"
    # Each told once (in whichever order the chunk tasks ended them).
    assert sorted((job.status, job.id) for job, _ in world.listener.calls) == [("done", done.job.id), ("failed", gone.job.id)]


async def test_exports_answer_409_until_done_then_every_format_and_404_for_anyone_else() -> None:
    world = world_with()
    submitted = await world.batches.submit(ANN, [CORDOVA, MAIN])

    with pytest.raises(Conflict) as early:
        await world.batches.download(ANN, submitted.export_id)
    assert early.value.code == "export_not_ready"
    with pytest.raises(Conflict):
        await world.batches.create_export(ANN, submitted.export_id, None, "xlsx")
    await world.run_all()

    created = await world.batches.create_export(ANN, None, submitted.job.id, "json")
    assert created.export_id == f"{submitted.job.id}.jsonl" and created.format == "jsonl"
    jsonl, _ = await world.batches.download(ANN, created.export_id)
    assert len((await collected(jsonl.chunks)).splitlines()) == 2 and jsonl.name.endswith(".jsonl")
    csv_file, _ = await world.batches.download(ANN, submitted.export_id)
    assert csv_file.media_type.startswith("text/csv") and INDEX_COLUMN.encode() in await collected(csv_file.chunks)
    xlsx, _ = await world.batches.download(ANN, f"{submitted.job.id}.xlsx")
    assert (await collected(xlsx.chunks))[:2] == b"PK"

    for attempt in (
        world.batches.status(BOB, submitted.export_id),
        world.batches.download(BOB, submitted.export_id),
        world.batches.create_export(BOB, submitted.export_id, None, "csv"),
        world.batches.status(ANN, "not-an-id"),
        world.batches.status(ANN, f"{submitted.job.id}.pdf"),
    ):
        with pytest.raises(NotFound):
            await attempt
    with pytest.raises(InvalidInput) as unknown_format:
        await world.batches.create_export(ANN, submitted.export_id, None, "pdf")
    assert unknown_format.value.code == "unsupported_format"
    with pytest.raises(InvalidInput):
        await world.batches.create_export(ANN, None, None, "csv")


def test_export_ids_name_a_job_and_a_format() -> None:
    job_id = "3f2b8c1e-5d4a-4e7b-9c1f-2a6d8e0b7c45"
    assert ExportId.parse(job_id) == ExportId(job_id, "csv")
    assert ExportId.parse(f"{job_id}.XLSX") == ExportId(job_id, "xlsx")
    assert str(ExportId(job_id, "csv")) == job_id and str(ExportId(job_id, "jsonl")) == f"{job_id}.jsonl"


# --- Idempotency-Key ---------------------------------------------------------------------------

def idempotency() -> tuple[Idempotency, InMemoryIdempotencyKeys, FakeClock]:
    store, clock = InMemoryIdempotencyKeys(), FakeClock()
    return Idempotency(store, AesGcmSecretBox(TEST_SECRET, purpose="perilscope-idempotency"), clock), store, clock


class Counter:
    def __init__(self) -> None:
        self.runs = 0

    async def work(self) -> StoredReply:
        self.runs += 1
        return StoredReply(202, json.dumps({"job_id": f"job-{self.runs}"}).encode(), {"X-RateLimit-Remaining": "7"})


async def test_a_retry_with_the_same_key_gets_the_first_answer_and_runs_once() -> None:
    keys, _, _ = idempotency()
    counter = Counter()
    fingerprint = request_fingerprint("POST", "/api/v1/search/batch", b'{"addresses": [1]}')
    first, replayed_first = await keys.run("ann", "k-1", fingerprint, counter.work)
    again, replayed = await keys.run("ann", "k-1", request_fingerprint("POST", "/api/v1/search/batch", b'{"addresses":[1]}'), counter.work)
    assert (replayed_first, replayed) == (False, True) and again == first and counter.runs == 1
    other_user, replayed_other = await keys.run("bob", "k-1", fingerprint, counter.work)  # keys are per user
    assert not replayed_other and counter.runs == 2


async def test_a_kept_answer_is_stored_sealed_for_its_user_and_key() -> None:
    keys, store, _ = idempotency()
    token_answer = StoredReply(200, b'{"access_token": "ps_tok_secret-bearer"}')
    await keys.run("ann", "k-1", "f", lambda: _returning(token_answer))
    [kept] = [record.reply for record in store.rows.values()]
    assert b"secret-bearer" not in kept.body  # a database reader sees no token
    again, replayed = await keys.run("ann", "k-1", "f", lambda: _returning(StoredReply(200, b"{}")))
    assert replayed and again == token_answer


async def _returning(reply: StoredReply) -> StoredReply:
    return reply


async def test_a_key_with_another_body_or_still_running_is_a_conflict() -> None:
    keys, _, _ = idempotency()
    counter = Counter()
    await keys.run("ann", "k-1", "fingerprint-a", counter.work)
    with pytest.raises(Conflict) as reused:
        await keys.run("ann", "k-1", "fingerprint-b", counter.work)
    assert reused.value.code == "idempotency_key_reused"

    started, finish = asyncio.Event(), asyncio.Event()

    async def slow() -> StoredReply:
        started.set()
        await finish.wait()
        return StoredReply(200, b"{}")

    first = asyncio.create_task(keys.run("ann", "k-2", "f", slow))
    await started.wait()
    with pytest.raises(Conflict) as running:
        await keys.run("ann", "k-2", "f", counter.work)
    assert running.value.code == "idempotency_key_in_progress"
    finish.set()
    assert (await first)[1] is False


async def test_a_failed_request_frees_its_key_and_keys_last_24_hours() -> None:
    keys, store, clock = idempotency()
    counter = Counter()

    async def refused() -> StoredReply:
        raise TooManyRequests("limit")

    with pytest.raises(TooManyRequests):
        await keys.run("ann", "k-1", "f", refused)
    assert store.rows == {}
    await keys.run("ann", "k-1", "f", counter.work)
    clock.advance(timedelta(hours=24, seconds=1))
    _, replayed = await keys.run("ann", "k-1", "f-new", counter.work)  # expired: a new request
    assert not replayed and counter.runs == 2
    clock.advance(timedelta(hours=25))
    assert await keys.purge() == 1


@pytest.mark.parametrize("key", ["", "has space", "x" * 256, "naïve", "tab\t"])
async def test_keys_are_1_to_255_visible_ascii_characters(key: str) -> None:
    keys, _, _ = idempotency()
    with pytest.raises(InvalidInput) as refused:
        await keys.run("ann", key, "f", Counter().work)
    assert refused.value.code == "invalid_idempotency_key"


async def test_a_batch_that_cannot_be_queued_is_failed_and_charges_nothing() -> None:
    world = world_with()

    async def broken(job_id: str) -> None:
        raise ConnectionError("queue unreachable")

    world.batch.queue.enqueue = broken  # type: ignore[method-assign]
    with pytest.raises(ConnectionError):
        await world.batches.submit(ANN, [CORDOVA])
    [job] = world.batch.store.jobs.values()
    assert job.status == "failed" and await world.used() == 0
    assert await world.batch.service.resume_unfinished() == []  # never run uncharged after a restart


# --- #26, item 9 ---------------------------------------------------------------------------------

async def test_addresses_a_web_row_would_refuse_are_not_charged_and_not_located_in_their_place() -> None:
    world = world_with()
    digit_missing = SubmittedAddress("4800 Cordova St", "Anchorage", "Alaska", "9950")

    submitted = await world.batches.submit(ANN, [CORDOVA, digit_missing, MAIN])

    assert submitted.charged == 2 == await world.used()
    [refused] = submitted.refused
    assert (refused.address_index, refused.row) == (1, 3) and "Alaska's ZIP codes have 5 beginning with 9" in refused.message
    assert submitted.job.total == 3  # still a row of the batch, in its place
    await world.run_all()
    [export] = world.batch.store.exports_stored
    records = world.batch.export_facts(export)
    index = f"input_{export.detail_columns.index(INDEX_COLUMN)}"
    assert [r[index] for r in records] == ["0", "1", "2"]
    assert records[1]["status"] == "not located" and refused.message in json.dumps(records[1])

    only_refused = await world.batches.submit(ANN, [digit_missing])
    assert only_refused.charged == 0 and only_refused.standing.used == 2 and await world.used() == 2


async def test_own_fields_are_checked_before_anything_is_charged() -> None:
    world = world_with()
    for fields in ((("Zip", "1"),), (("address_index", "7"),), ((" x", "1"),), tuple((f"f{n}", "v") for n in range(21))):
        with pytest.raises(InvalidInput) as refused:
            await world.batches.submit(ANN, [SubmittedAddress("4800 Cordova St", "Anchorage", "AK", "99503", fields)])
        assert refused.value.code == "invalid_own_field" and refused.value.details["address_index"] == 0
    assert await world.used() == 0 and world.batch.store.jobs == {}


async def test_the_listing_holds_the_callers_batch_exports_newest_first_by_page() -> None:
    world = world_with()
    for _ in range(3):
        await world.batches.submit(ANN, [CORDOVA])
        await world.run_all()
        world.clock.advance(timedelta(seconds=1))
    await world.batches.submit(BOB, [MAIN])
    await world.run_all()
    from application.pages import PageRequest

    first, standing = await world.batches.exports(ANN, PageRequest(0, 2))
    second, _ = await world.batches.exports(ANN, PageRequest(2, 2))
    assert len(first.items) == 2 and first.next_offset == 2 and len(second.items) == 1 and second.next_offset is None
    times = [e.exported_at for e in first.items + second.items]
    assert times == sorted(times, reverse=True) and all(e.user_id == "ann" and e.job_id for e in first.items)
    assert standing.used == 3  # listing costs nothing
    with pytest.raises(Forbidden):
        await world.batches.exports(ApiCaller("ann", "key-3", frozenset({ApiScope.READ})), PageRequest())

"""The public API's batches and exports over HTTP on SQLite and PostgreSQL: a batch accepted with 202,
charged per address, run on the web's job machinery into the export history, its export 409 until
done and then every format; scopes, limits, cross-user 404s, Idempotency-Key and the webhook hooks."""

from __future__ import annotations

import csv
import io
import json
import time
import uuid
from collections.abc import Awaitable, Callable

import openpyxl
import pyarrow.parquet as pq
import pytest
from dependency_injector import providers
from httpx import AsyncClient

from application.api_batches import ApiBatches
from application.ports.batch import BatchJob
from entrypoints.container import Container
from tests.api.test_public_api import create_key
from domain.webhooks import verify
from tests.conftest import sign_up_admin, sign_up_and_log_in
from tests.integration.test_webhook_delivery import Receiver, receiver  # noqa: F401 - the fixture

SEATTLE = {"address": "701 5th Ave", "city": "Seattle", "state": "WA", "zip": "98104"}
MIAMI = {"address": "100 Biscayne Blvd", "city": "Miami", "state": "FL", "zip": "33130"}
NOWHERE = {"address": "1 Main St", "city": "Nowhere", "state": "ZZ", "zip": "00001"}


class HeldQueue:
    """Holds the jobs until the test lets them run, so 'not finished yet' is not a race."""

    def __init__(self, container: Container) -> None:
        self._container = container
        self.held: list[str] = []
        self.chunk_tasks = 0

    async def enqueue(self, job_id: str) -> None:
        self.held.append(job_id)

    async def enqueue_chunks(self, count: int) -> None:
        self.chunk_tasks += count

    async def run_all(self, after_each: Callable[[], Awaitable[None]] | None = None) -> None:
        """Every held task, one after another; `after_each` runs between them (e.g. to let a
        webhook's first attempt finish before the next task uses the test's one connection)."""
        while self.held or self.chunk_tasks:
            if self.held:
                await self._container.batch().run(self.held.pop(0))
            else:
                self.chunk_tasks -= 1
                await self._container.batch().run_chunk()
            if after_each is not None:
                await after_each()


class RecordingWebhooks:
    """Both webhook ports: accepts any callback URL and records the batches that ended."""

    def __init__(self) -> None:
        self.calls: list[tuple[BatchJob, str]] = []

    async def check(self, url: str) -> str:
        return url

    async def batch_ended(self, job: BatchJob, callback_url: str) -> None:
        self.calls.append((job, callback_url))


@pytest.fixture
def queue(container: Container) -> HeldQueue:
    held = HeldQueue(container)
    container.job_queue.override(providers.Object(held))
    return held


async def api_user(client: AsyncClient, email: str, scopes: list[str] | None = None) -> tuple[dict, dict]:
    user = await sign_up_and_log_in(client, email)
    key = (await create_key(client, user, scopes or ["read", "batch"]))["key"]
    return user, {"X-API-Key": key}


async def submit(client: AsyncClient, key: dict, addresses: list[dict], path: str = "/api/v1/search/batch", **extra):  # noqa: ANN003, ANN201
    headers = {**key, **extra.pop("headers", {})}
    return await client.post(path, json={"addresses": addresses, **extra}, headers=headers)


async def test_a_batch_is_accepted_charged_per_address_and_runs_into_the_export_history(
    client: AsyncClient, queue: HeldQueue
) -> None:
    ann, key = await api_user(client, "ann@example.com")

    accepted = await submit(client, key, [SEATTLE, MIAMI, NOWHERE], include_details=False)

    assert accepted.status_code == 202, accepted.text
    body = accepted.json()
    assert body["status"] == "queued" and body["export_id"] == body["job_id"] and body["addresses"] == 3
    assert body["status_url"] == f"/api/v1/export/status/{body['export_id']}" and body["eta_seconds"] >= 1
    assert accepted.headers["X-RateLimit-Remaining"] == "97"  # three addresses, three requests
    queued = (await client.get(body["status_url"], headers=key)).json()
    assert queued["status"] == "queued" and queued["progress"] == {"done": 0, "total": 3}
    assert queued["download_url"] is None

    await queue.run_all()

    done = await client.get(body["status_url"], headers=key)
    assert done.status_code == 200 and done.json()["status"] == "done", done.text
    assert done.json()["progress"] == {"done": 3, "total": 3} and done.json()["eta_seconds"] is None
    assert set(done.json()["download_urls"]) == {"csv", "xlsx", "jsonl", "parquet"}
    assert done.headers["X-RateLimit-Remaining"] == "97"  # polling costs nothing
    files = (await client.get("/api/list-exported-files", headers=ann["headers"])).json()["files"]
    assert [f["name"].split("_export_")[0] for f in files] == ["api-batch"]
    # The web's monthly searches are the web's: an API batch is charged to the plan only.
    stats = (await client.get("/api/auth/get-search-stats", headers=ann["headers"])).json()["stats"]
    assert stats["current_month_searches"] == 0

    also = await submit(client, key, [MIAMI], path="/api/v1/batch-assessment")
    assert also.status_code == 202 and also.headers["X-RateLimit-Remaining"] == "96"


async def test_the_export_is_409_until_done_then_a_file_in_each_format(client: AsyncClient, queue: HeldQueue) -> None:
    _, key = await api_user(client, "ann@example.com")
    export_id = (await submit(client, key, [SEATTLE, NOWHERE])).json()["export_id"]

    early = await client.get(f"/api/v1/export/download/{export_id}", headers=key)
    assert early.status_code == 409 and early.json()["code"] == "export_not_ready"
    assert "0 of 2" in early.json()["error"]
    not_finished = await client.post("/api/v1/export/create", json={"export_id": export_id, "format": "xlsx"}, headers=key)
    assert not_finished.status_code == 409

    await queue.run_all()

    plain = await client.get(f"/api/v1/export/download/{export_id}", headers=key)
    assert plain.status_code == 200 and plain.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(plain.content.decode("utf-8-sig"))))
    assert [r["address_index"] for r in rows] == ["0", "1"]
    assert rows[0]["county_fips"] == "53033" and rows[1]["status"] == "not located"

    created = {}
    for fmt in ("xlsx", "jsonl", "parquet", "csv"):
        answer = await client.post("/api/v1/export/create", json={"job_id": export_id, "format": fmt}, headers=key)
        assert answer.status_code == 200, answer.text
        created[fmt] = answer.json()
        assert created[fmt]["status"] == "done" and created[fmt]["format"] == fmt
    xlsx = await client.get(created["xlsx"]["download_url"], headers=key)
    assert xlsx.status_code == 200 and "attachment" in xlsx.headers["content-disposition"]
    sheet = openpyxl.load_workbook(io.BytesIO(xlsx.content), read_only=True)["Rows"]
    table = list(sheet.iter_rows(values_only=True))
    assert "address_index" in table[0] and len(table) == 3
    jsonl = await client.get(created["jsonl"]["download_url"], headers=key)
    assert [json.loads(line)["input"]["address_index"] for line in jsonl.text.splitlines()] == ["0", "1"]
    assert (await client.get(created["csv"]["download_url"], headers=key)).content == plain.content
    parquet = await client.get(created["parquet"]["download_url"], headers=key)
    assert parquet.status_code == 200 and "attachment" in parquet.headers["content-disposition"]
    typed = pq.read_table(io.BytesIO(parquet.content)).to_pylist()
    assert [r["address_index"] for r in typed] == ["0", "1"] and typed[0]["county_fips"] == "53033"
    assert typed[1]["status"] == "not located" and typed[1]["Total_Score"] is None  # unknown stays null, never 0

    unknown = await client.post("/api/v1/export/create", json={"job_id": export_id, "format": "pdf"}, headers=key)
    assert unknown.status_code == 400 and unknown.json()["code"] == "unsupported_format"


async def test_another_users_ids_and_unknown_ids_are_not_found(client: AsyncClient, queue: HeldQueue) -> None:
    _, anns = await api_user(client, "ann@example.com")
    _, bobs = await api_user(client, "bob@example.com")
    export_id = (await submit(client, anns, [SEATTLE])).json()["export_id"]
    await queue.run_all()

    for other in (export_id, str(uuid.uuid4()), "nonsense", f"{export_id}.pdf"):
        for response in (
            await client.get(f"/api/v1/export/status/{other}", headers=bobs if other == export_id else anns),
            await client.get(f"/api/v1/export/download/{other}", headers=bobs if other == export_id else anns),
        ):
            assert response.status_code == 404, (other, response.text)
    create = await client.post("/api/v1/export/create", json={"export_id": export_id, "format": "csv"}, headers=bobs)
    assert create.status_code == 404 and create.json()["code"] == "export_not_found"


async def test_a_read_only_key_may_not_batch_and_a_batch_past_the_days_remaining_requests_charges_nothing(
    client: AsyncClient, container: Container, queue: HeldQueue
) -> None:
    admin = await sign_up_admin(client, container, "root@example.com")
    ann, key = await api_user(client, "ann@example.com")
    _, read_only = await api_user(client, "bob@example.com", ["read"])
    refused = await submit(client, read_only, [SEATTLE])
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"
    await client.post("/api/admin/update-user-plan", json={"uid": ann["uid"], "plan": "enterprise", "daily_limit": 3},
                      headers=admin["headers"])
    assert (await submit(client, key, [SEATTLE])).status_code == 202

    too_many = await submit(client, key, [SEATTLE, MIAMI, NOWHERE])

    assert too_many.status_code == 429 and too_many.json()["code"] == "daily_limit_reached"
    assert "3 addresses" in too_many.json()["error"] and "2 of your" in too_many.json()["error"]
    assert int(too_many.headers["Retry-After"]) > 0 and too_many.headers["X-RateLimit-Remaining"] == "2"
    fits = await submit(client, key, [SEATTLE, MIAMI])
    assert fits.status_code == 202 and fits.headers["X-RateLimit-Remaining"] == "0"
    assert len(queue.held) == 2


async def test_a_batchs_rows_count_in_the_monthly_allowance_the_dashboard_shows(
    client: AsyncClient, container: Container, queue: HeldQueue
) -> None:
    from tests.api.test_batch_bounds import _allow_rows, _start

    await _allow_rows(client, container, 5)
    ann, key = await api_user(client, "ann@example.com")
    accepted = await submit(client, key, [SEATTLE, MIAMI, NOWHERE])
    assert accepted.status_code == 202
    stats = (await client.get("/api/auth/get-search-stats", headers=ann["headers"])).json()["stats"]
    assert (stats["batch_rows_used"], stats["batch_rows_remaining"]) == (3, 2)

    refused = await submit(client, key, [SEATTLE, MIAMI, NOWHERE])
    assert refused.status_code == 429 and refused.json()["code"] == "batch_rows_exceeded"
    assert "this batch has 3 rows and 2 of your 5 batch rows remain this month" in refused.json()["error"]
    status = await client.get(accepted.json()["status_url"], headers=key)
    assert status.headers["X-RateLimit-Remaining"] == "97"  # the refused batch's requests were given back
    assert (await _start(client, ann["headers"])).status_code == 429  # the web upload shares the allowance
    assert len(queue.held) == 1


async def test_batch_sizes_are_bounded(client: AsyncClient, container: Container, queue: HeldQueue) -> None:
    admin = await sign_up_admin(client, container, "root@example.com")
    ann, key = await api_user(client, "ann@example.com")
    await client.post("/api/admin/update-user-plan", json={"uid": ann["uid"], "plan": "enterprise", "daily_limit": 20_000},
                      headers=admin["headers"])
    empty = await submit(client, key, [])
    assert empty.status_code == 400
    ten_thousand = await submit(client, key, [SEATTLE] * 10_000)  # the default cap takes it
    assert ten_thousand.status_code == 202, ten_thousand.text
    assert ten_thousand.headers["X-RateLimit-Remaining"] == "10000"

    too_large = await submit(client, key, [SEATTLE] * 10_001)
    assert too_large.status_code == 413 and too_large.json()["code"] == "too_many_addresses"
    assert "at most 10,000" in too_large.json()["error"]
    assert (await client.get("/api/v1/auth/verify", headers=key)).json()["used_today"] == 10_000
    long_field = await submit(client, key, [{**SEATTLE, "address": "x" * 201}])
    assert long_field.status_code == 400


@pytest.mark.parametrize(
    "callback_url",
    ["http://10.0.0.7/hooks", "http://169.254.169.254/latest/meta-data", "http://user:secret@8.8.8.8/hooks", "ftp://8.8.8.8/"],
)
async def test_a_refused_callback_url_is_400_and_charges_nothing(client: AsyncClient, queue: HeldQueue, callback_url: str) -> None:
    _, key = await api_user(client, "ann@example.com")
    refused = await submit(client, key, [SEATTLE], callback_url=callback_url)
    assert refused.status_code == 400 and refused.json()["code"] == "callback_url_refused", refused.text
    assert (await client.get("/api/v1/auth/verify", headers=key)).json()["used_today"] == 0 and queue.held == []


# The operator's setting lets the test's own receiver on 127.0.0.1 through the SSRF check.
@pytest.mark.parametrize("container_settings", [{"webhook_allowed_hosts": ("127.0.0.1",)}])
async def test_a_finished_batch_posts_a_signed_event_to_its_real_callback_url(
    client: AsyncClient, container: Container, queue: HeldQueue, receiver: Receiver
) -> None:
    ann, key = await api_user(client, "ann@example.com")
    accepted = await submit(client, key, [SEATTLE, MIAMI], callback_url=receiver.url)
    assert accepted.status_code == 202, accepted.text

    # The first attempt runs in the background right after the job ends: settled before going on.
    await queue.run_all(after_each=container.webhooks().settle)

    [(headers, body)] = receiver.received
    secret = (await client.get("/api/webhooks/secret", headers=ann["headers"])).json()["secret"]
    assert verify(secret, headers["x-perilscope-signature"], body, now=int(time.time()))
    assert not verify(secret, headers["x-perilscope-signature"], body.replace(b"done", b"dune"), now=int(time.time()))
    event = json.loads(body)
    assert headers["x-perilscope-event"] == event["type"] == "batch.completed"
    assert event["data"]["job_id"] == accepted.json()["job_id"] and event["data"]["status"] == "done"
    download = await client.get(event["data"]["download_url"], headers=key)
    assert download.status_code == 200 and "701 5th Ave" in download.text


async def test_the_listener_hears_once_with_the_finished_job(client: AsyncClient, container: Container, queue: HeldQueue) -> None:
    listener = RecordingWebhooks()
    container.webhooks.override(providers.Object(listener))
    _, key = await api_user(client, "ann@example.com")
    accepted = await submit(client, key, [SEATTLE], callback_url="https://hooks.example.com/perilscope")
    assert accepted.status_code == 202, accepted.text

    await queue.run_all()

    [(job, url)] = listener.calls
    assert job.id == accepted.json()["job_id"] and job.status == "done" and url == "https://hooks.example.com/perilscope"


async def test_an_idempotency_key_gives_the_first_answer_and_charges_once(client: AsyncClient, queue: HeldQueue) -> None:
    _, key = await api_user(client, "ann@example.com")
    retry = {"headers": {"Idempotency-Key": "batch-2026-11-25-001"}}

    first = await submit(client, key, [SEATTLE, MIAMI], **retry)
    again = await submit(client, key, [SEATTLE, MIAMI], **retry)

    assert first.status_code == again.status_code == 202
    assert again.json() == first.json() and again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["X-RateLimit-Remaining"] == first.headers["X-RateLimit-Remaining"] == "98"
    assert again.headers["Location"] == first.headers["Location"] == first.json()["status_url"]
    assert len(queue.held) == 1
    assert (await client.get("/api/v1/auth/verify", headers=key)).json()["used_today"] == 2

    other_body = await submit(client, key, [SEATTLE], **retry)
    assert other_body.status_code == 409 and other_body.json()["code"] == "idempotency_key_reused"
    other_path = await submit(client, key, [SEATTLE, MIAMI], path="/api/v1/batch-assessment", **retry)
    assert other_path.status_code == 409
    _, bobs = await api_user(client, "bob@example.com")
    assert (await submit(client, bobs, [SEATTLE, MIAMI], **retry)).json()["job_id"] != first.json()["job_id"]
    bad = await submit(client, key, [SEATTLE], headers={"Idempotency-Key": "a key with spaces"})
    assert bad.status_code == 400


async def test_a_refused_request_frees_its_key(client: AsyncClient, queue: HeldQueue) -> None:
    _, key = await api_user(client, "ann@example.com")
    retry = {"headers": {"Idempotency-Key": "k-1"}}
    refused = await submit(client, key, [SEATTLE], callback_url="https://hooks.example.com/x", **retry)
    assert refused.status_code == 400
    assert (await submit(client, key, [SEATTLE], **retry)).status_code == 202  # a new body: the key was freed


async def test_token_requests_take_an_idempotency_key_too(client: AsyncClient) -> None:
    _, key = await api_user(client, "ann@example.com")
    body = {"api_key": key["X-API-Key"], "scope": "batch"}
    first = await client.post("/api/v1/auth/token", json=body, headers={"Idempotency-Key": "token-1"})
    again = await client.post("/api/v1/auth/token", json=body, headers={"Idempotency-Key": "token-1"})
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json() and again.headers["Idempotent-Replayed"] == "true"
    other = await client.post("/api/v1/auth/token", json={**body, "scope": "read"}, headers={"Idempotency-Key": "token-1"})
    assert other.status_code == 409 and other.json()["code"] == "idempotency_key_reused"
    wrong_key = await client.post("/api/v1/auth/token", json={"api_key": "ps_live_nope"}, headers={"Idempotency-Key": "t"})
    assert wrong_key.status_code == 401


async def test_a_smaller_cap_from_the_settings_is_said_in_the_413(client: AsyncClient, container: Container) -> None:
    container.api_batches.override(
        providers.Singleton(ApiBatches, batch=container.batch, plans=container.api_plans,
                            callback_check=container.callback_url_check, clock=container.clock, max_addresses=2)
    )
    _, key = await api_user(client, "ann@example.com")
    too_large = await submit(client, key, [SEATTLE, MIAMI, NOWHERE])
    assert too_large.status_code == 413 and "at most 2" in too_large.json()["error"]
    assert too_large.json()["details"] == {"limit": 2, "sent": 3}



def without_scored_at(export: str, fmt: str) -> list:
    """The export's records without the moment each row was scored (the one field two runs of the
    same rows differ in, in the JSON Lines' receipts; the CSV has no such column)."""
    if fmt == "csv":
        return list(csv.DictReader(io.StringIO(export)))
    records = [json.loads(line) for line in export.splitlines()]
    for record in records:
        del record["receipt"]["scored_at"]
    return records


async def test_include_details_is_accepted_and_changes_nothing(client: AsyncClient, queue: HeldQueue) -> None:
    """SPEC §7 lists include_details without a meaning: every export has the full detail, so true,
    false and leaving it out give the same export, record for record; a value not a boolean is a 400."""
    _, key = await api_user(client, "ann@example.com")
    sent = {"true": {"include_details": True}, "false": {"include_details": False}, "omitted": {}}
    export_ids = {}
    for name, extra in sent.items():
        accepted = await submit(client, key, [SEATTLE, NOWHERE], path="/api/v1/batch-assessment", **extra)
        assert accepted.status_code == 202, accepted.text
        export_ids[name] = accepted.json()["export_id"]
    await queue.run_all()

    exports: dict[str, dict[str, list]] = {"jsonl": {}, "csv": {}}
    for fmt, by_value in exports.items():
        for name, export_id in export_ids.items():
            made = await client.post("/api/v1/export/create", json={"export_id": export_id, "format": fmt}, headers=key)
            answer = await client.get(made.json()["download_url"], headers=key)
            assert answer.status_code == 200, answer.text
            by_value[name] = without_scored_at(answer.text, fmt)
        assert len(by_value["true"]) == 2 and by_value["true"] == by_value["false"] == by_value["omitted"], fmt
    seattle = exports["jsonl"]["false"][0]  # the full detail, though false was sent
    assert seattle["Total_Score"] is not None and seattle["receipt"]["datasets"] and seattle["county_fips"] == "53033"

    refused = await submit(client, key, [SEATTLE], include_details="yes")
    assert refused.status_code == 400, refused.text
    assert refused.json()["code"] == "validation_error" and "include_details" in refused.json()["error"]


# --- #26, item 9: the docs and the answers agree ------------------------------------------------

async def download_rows(client: AsyncClient, key: dict, export_id: str, fmt: str = "csv") -> list[dict]:
    made = await client.post("/api/v1/export/create", json={"export_id": export_id, "format": fmt}, headers=key)
    answer = await client.get(made.json()["download_url"], headers=key)
    assert answer.status_code == 200, answer.text
    if fmt == "jsonl":
        return [json.loads(line) for line in answer.text.splitlines()]
    return list(csv.DictReader(io.StringIO(answer.content.decode("utf-8-sig"))))


async def test_an_address_a_web_row_would_refuse_is_said_so_per_row_and_not_charged(client: AsyncClient, queue: HeldQueue) -> None:
    _, key = await api_user(client, "ann@example.com")
    digit_missing = {"address": "701 5th Ave", "city": "Seattle", "state": "Washington", "zip": "9810"}
    named_state = {**SEATTLE, "state": "Washington"}
    dropped_zero = {"address": "1 Beacon St", "city": "Boston", "state": "MA", "zip": "2108"}

    accepted = await submit(client, key, [SEATTLE, digit_missing, named_state, dropped_zero])

    assert accepted.status_code == 202, accepted.text
    body = accepted.json()
    assert body["addresses"] == 4 and body["requests_charged"] == 3
    [refused] = body["refused"]
    assert refused["address_index"] == 1 and refused["row"] == 3
    assert "ZIP code 9810 has 4 digits" in refused["message"] and "Washington" in refused["message"]
    assert accepted.headers["X-RateLimit-Remaining"] == "97"  # the refused address costs no request
    await queue.run_all()
    rows = await download_rows(client, key, body["export_id"])
    assert [r["status"] for r in rows] == ["answered", "not located", "answered", rows[3]["status"]]
    assert rows[1]["message"] == refused["message"]
    # A state's name is read as its code: the same answer as WA, without a doubt about the state.
    assert rows[2]["county_fips"] == rows[0]["county_fips"] == "53033" and rows[2]["low_confidence"] == "no"
    assert "02108" in rows[3]["normalized_address"]  # 4 digits where ZIP codes begin with 0: the zero put back

    # The same row in an uploaded file gets the same message.
    from domain.batch_input import read_batch_csv
    [web_row] = read_batch_csv("a.csv", b"Street Address,City,State,Zip\n701 5th Ave,Seattle,Washington,9810\n")
    assert web_row.problem == refused["message"]


async def test_an_address_carries_its_own_fields_back_in_every_export_format(client: AsyncClient, queue: HeldQueue) -> None:
    _, key = await api_user(client, "ann@example.com")
    addresses = [
        {**SEATTLE, "fields": {"policy_no": "P-0001", "tiv": "1,250,000"}},
        {**MIAMI, "fields": {"policy_no": "P-0002"}},
        NOWHERE,
    ]
    export_id = (await submit(client, key, addresses)).json()["export_id"]
    await queue.run_all()

    rows = await download_rows(client, key, export_id)
    assert [(r["address_index"], r["policy_no"], r["tiv"]) for r in rows] == [
        ("0", "P-0001", "1,250,000"), ("1", "P-0002", ""), ("2", "", "")]
    # Every column of the batch's upload comes back first, as an upload's do (#27): the address, its index, its fields.
    assert list(rows[0])[:8] == ["Street Address", "City", "State", "Zip", "Country", "address_index", "policy_no", "tiv"]
    records = await download_rows(client, key, export_id, "jsonl")
    assert records[0]["input"]["policy_no"] == "P-0001" and records[1]["input"]["tiv"] == ""
    sheet = openpyxl.load_workbook(io.BytesIO((await client.get(
        f"/api/v1/export/download/{export_id}.xlsx", headers=key)).content), read_only=True)["Rows"]
    table = list(sheet.iter_rows(values_only=True))
    assert table[1][table[0].index("policy_no")] == "P-0001"

    for fields, code in (({"Zip": "1"}, "invalid_own_field"), ({"address_index": "1"}, "invalid_own_field"),
                         ({" padded": "1"}, "invalid_own_field"), ({"n": 1}, "validation_error")):
        refused = await submit(client, key, [{**SEATTLE, "fields": fields}])
        assert refused.status_code == 400 and refused.json()["code"] == code, (fields, refused.text)
    # A field beside the address's own is refused, never dropped: the error says which.
    beside = await submit(client, key, [{**SEATTLE, "policy_no": "P-1"}])
    assert beside.status_code == 400 and "policy_no" in beside.json()["error"]
    assert (await client.get("/api/v1/auth/verify", headers=key)).json()["used_today"] == 3


async def test_row_is_address_index_plus_two_in_every_format(client: AsyncClient, queue: HeldQueue) -> None:
    _, key = await api_user(client, "ann@example.com")
    refused = {"address": "1 Main St", "city": "Austin", "state": "TX", "zip": "7870"}
    export_id = (await submit(client, key, [SEATTLE, refused, MIAMI, SEATTLE, NOWHERE])).json()["export_id"]
    await queue.run_all()

    rows = await download_rows(client, key, export_id)
    assert [(int(r["address_index"]), int(r["row"])) for r in rows] == [(i, i + 2) for i in range(5)]
    records = await download_rows(client, key, export_id, "jsonl")
    assert [(int(r["input"]["address_index"]), r["row"]) for r in records] == [(i, i + 2) for i in range(5)]


async def test_the_caller_lists_their_batch_exports_a_page_at_a_time(client: AsyncClient, queue: HeldQueue) -> None:
    ann, key = await api_user(client, "ann@example.com")
    _, bobs = await api_user(client, "bob@example.com")
    ids = []
    for _ in range(3):
        ids.append((await submit(client, key, [SEATTLE])).json()["export_id"])
        await queue.run_all()
    await submit(client, bobs, [MIAMI])
    await queue.run_all()

    listed = await client.get("/api/v1/exports", headers=key)
    assert listed.status_code == 200, listed.text
    body = listed.json()
    assert [e["export_id"] for e in body["exports"]] == ids[::-1] and body["next_offset"] is None
    newest = body["exports"][0]
    assert newest["job_id"] == ids[-1] and newest["name"].startswith("api-batch_export_")
    assert newest["status_url"] == f"/api/v1/export/status/{ids[-1]}"
    assert (await client.get(newest["download_urls"]["xlsx"], headers=key)).status_code == 200
    web_names = [f["name"] for f in (await client.get("/api/list-exported-files", headers=ann["headers"])).json()["files"]]
    assert [e["name"] for e in body["exports"]] == web_names  # the web's export history, the same exports
    assert listed.headers["X-RateLimit-Remaining"] == "97"  # listing costs nothing

    first = (await client.get("/api/v1/exports", params={"limit": 2}, headers=key)).json()
    second = (await client.get("/api/v1/exports", params={"limit": 2, "offset": first["next_offset"]}, headers=key)).json()
    assert first["next_offset"] == 2 and second["next_offset"] is None
    assert [e["export_id"] for e in first["exports"] + second["exports"]] == ids[::-1]
    for params in ({"cursor": "x"}, {"offset": "-1"}, {"limit": "101"}, {"page": "2"}):
        assert (await client.get("/api/v1/exports", params=params, headers=key)).status_code == 400, params
    _, read_only = await api_user(client, "cy@example.com", ["read"])
    assert (await client.get("/api/v1/exports", headers=read_only)).status_code == 403

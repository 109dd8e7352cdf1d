"""Webhooks over HTTP on SQLite and PostgreSQL: the signing secret on /settings (revealed, kept
encrypted, rotated), the recent deliveries with their attempts, for the owner only, and the same
list for public API callers with the read scope."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from httpx import AsyncClient
from sqlalchemy import text

from adapters.db.webhook_repositories import SqlDeliveryStore
from application.ports.webhook_delivery import Delivery, DeliveryAttempt
from domain.webhooks import DeliveryStatus
from entrypoints.container import Container
from tests.api.test_public_api import create_key
from tests.conftest import sign_up_and_log_in

AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


async def add_delivery(container: Container, user_id: str, answers: list[int | None], at: datetime = AT) -> str:
    """A delivery of `user_id` made at `at`, with one attempt per answer (None: no HTTP answer)."""
    store = SqlDeliveryStore(container.session_factory(), container.writer())
    delivery_id = str(uuid.uuid4())
    await store.add(Delivery(delivery_id, user_id, "job-1", "batch.completed", "https://hooks.example.com/p", "{}",
                             DeliveryStatus.PENDING, at, at))
    now = at
    for number, answer in enumerate(answers):
        assert await store.claim(delivery_id, now, now + timedelta(minutes=1), f"t{number}")
        error = None if answer == 200 else ("No answer within 10 seconds." if answer is None else f"HTTP {answer}")
        done = answer == 200
        await store.record(delivery_id, f"t{number}", DeliveryAttempt(now, 120, answer, error),
                           DeliveryStatus.SUCCEEDED if done else DeliveryStatus.PENDING,
                           None if done else now + timedelta(minutes=1))
        now += timedelta(minutes=1)
    return delivery_id


async def test_the_signing_secret_is_made_on_first_need_kept_encrypted_and_rotated(client: AsyncClient, container: Container) -> None:
    assert (await client.get("/api/webhooks/secret")).status_code == 401
    ann = await sign_up_and_log_in(client, "ann@example.com")
    bob = await sign_up_and_log_in(client, "bob@example.com")

    first = await client.get("/api/webhooks/secret", headers=ann["headers"])
    assert first.status_code == 200, first.text
    secret = first.json()["secret"]
    assert secret.startswith("whsec_") and len(secret) == 38
    assert first.headers["cache-control"] == "no-store"
    assert (await client.get("/api/webhooks/secret", headers=ann["headers"])).json()["secret"] == secret
    assert (await client.get("/api/webhooks/secret", headers=bob["headers"])).json()["secret"] != secret
    async with container.session_factory()() as session:
        stored = " ".join(str(row) for row in (await session.execute(text("SELECT * FROM webhook_secret"))).all())
    assert secret not in stored and "v1:" in stored

    rotated = await client.post("/api/webhooks/secret/rotate", headers=ann["headers"])
    assert rotated.status_code == 200, rotated.text
    assert rotated.json()["secret"] not in (secret, None)
    assert (await client.get("/api/webhooks/secret", headers=ann["headers"])).json()["secret"] == rotated.json()["secret"]
    assert (await client.post("/api/webhooks/secret/rotate")).status_code == 401


async def test_deliveries_and_their_attempts_are_shown_to_their_owner_only(client: AsyncClient, container: Container) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    bob = await sign_up_and_log_in(client, "bob@example.com")
    older = await add_delivery(container, ann["uid"], [500, 200])
    newer = await add_delivery(container, ann["uid"], [None], at=AT + timedelta(hours=1))

    response = await client.get("/api/webhooks/deliveries", headers=ann["headers"])
    assert response.status_code == 200, response.text
    deliveries = response.json()["deliveries"]
    assert [d["id"] for d in deliveries] == [newer, older]  # newest first
    by_id = {d["id"]: d for d in deliveries}
    assert by_id[older]["status"] == "succeeded" and by_id[older]["next_attempt_at"] is None
    assert [(a["status_code"], a["succeeded"]) for a in by_id[older]["attempts"]] == [(200, True), (500, False)]
    assert by_id[newer]["status"] == "pending" and by_id[newer]["attempts"][0]["status_code"] is None
    assert by_id[newer]["attempts"][0]["error"] == "No answer within 10 seconds."

    assert (await client.get("/api/webhooks/deliveries", headers=bob["headers"])).json()["deliveries"] == []
    assert (await client.get("/api/webhooks/deliveries")).status_code == 401
    limited = await client.get("/api/webhooks/deliveries", params={"limit": 1}, headers=ann["headers"])
    assert len(limited.json()["deliveries"]) == 1
    for bad in ("0", "51", "many"):
        assert (await client.get("/api/webhooks/deliveries", params={"limit": bad}, headers=ann["headers"])).status_code == 400


async def test_public_api_callers_list_their_deliveries_with_the_read_scope(client: AsyncClient, container: Container) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    bob = await sign_up_and_log_in(client, "bob@example.com")
    delivery_id = await add_delivery(container, ann["uid"], [200])
    read_key = (await create_key(client, ann, ["read"]))["key"]
    batch_key = (await create_key(client, ann, ["batch"], name="Batch only"))["key"]
    bob_key = (await create_key(client, bob, ["read"]))["key"]

    response = await client.get("/api/v1/webhooks/deliveries", headers={"X-API-Key": read_key})
    assert response.status_code == 200, response.text
    assert [d["id"] for d in response.json()["deliveries"]] == [delivery_id]
    assert response.headers["X-RateLimit-Remaining"] == "100"  # listing costs no request
    assert (await client.get("/api/v1/webhooks/deliveries", headers={"X-API-Key": bob_key})).json()["deliveries"] == []
    refused = await client.get("/api/v1/webhooks/deliveries", headers={"X-API-Key": batch_key})
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"
    assert (await client.get("/api/v1/webhooks/deliveries")).status_code == 401
    # A web session is not an API credential.
    assert (await client.get("/api/v1/webhooks/deliveries", headers=ann["headers"])).status_code == 401


async def test_the_webhook_routes_are_documented_with_schemas(client: AsyncClient) -> None:
    schema = (await client.get("/schema/openapi.json")).json()
    for path in ("/api/webhooks/secret", "/api/webhooks/deliveries", "/api/v1/webhooks/deliveries"):
        ok = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok["$ref"].startswith("#/components/schemas/")
    attempt = schema["components"]["schemas"]["WebhookAttemptBody"]["properties"]
    assert {"attempted_at", "duration_ms", "status_code", "succeeded", "error"} <= set(attempt)
    assert "/api/webhooks/secret/rotate" in schema["paths"]


async def test_public_api_callers_page_through_their_deliveries(client: AsyncClient, container: Container) -> None:
    """#26, item 9: by offset, newest first; a parameter it does not read is a 400, never ignored."""
    ann = await sign_up_and_log_in(client, "ann@example.com")
    made = [await add_delivery(container, ann["uid"], [200], at=AT + timedelta(minutes=n)) for n in range(3)]
    key = {"X-API-Key": (await create_key(client, ann, ["read"]))["key"]}

    first = await client.get("/api/v1/webhooks/deliveries", params={"limit": 2}, headers=key)
    assert first.status_code == 200, first.text
    assert [d["id"] for d in first.json()["deliveries"]] == made[:0:-1]
    assert first.json()["offset"] == 0 and first.json()["next_offset"] == 2
    last = (await client.get("/api/v1/webhooks/deliveries", params={"limit": 2, "offset": 2}, headers=key)).json()
    assert [d["id"] for d in last["deliveries"]] == [made[0]] and last["next_offset"] is None
    assert (await client.get("/api/v1/webhooks/deliveries", headers=key)).json()["next_offset"] is None

    for params, code in (({"cursor": "abc"}, "unknown_query_parameter"), ({"since": "2026-01-01"}, "unknown_query_parameter"),
                         ({"offset": "-1"}, "validation_error"), ({"offset": "x"}, "validation_error")):
        refused = await client.get("/api/v1/webhooks/deliveries", params=params, headers=key)
        assert refused.status_code == 400 and refused.json()["code"] == code, (params, refused.text)
        assert refused.headers["X-RateLimit-Remaining"] == "100"

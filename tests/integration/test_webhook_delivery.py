"""Webhook deliveries for real, on SQLite and PostgreSQL: a receiver listening on 127.0.0.1 (let
through by the operator setting), the database store with its leases, retries moved by a fake clock
instead of sleeping, and two pumps (as two server processes) that never send an attempt twice."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncEngine

from adapters.db.account_tables import UserRow
from adapters.db.webhook_tables import WebhookDeliveryRow
from adapters.db.engine import create_engine, create_session_factory
from adapters.db.webhook_repositories import SqlDeliveryStore, SqlSigningSecretStore
from adapters.db.writer import SqlWriter
from adapters.security.secret_box import AesGcmSecretBox
from adapters.webhooks.http import HttpxWebhookSender, LoopHostResolver
from application.ports.accounts import AccessClaims
from application.ports.batch import BatchJob
from application.ports.webhook_delivery import Delivery, DeliveryAttempt
from application.webhooks import WebhookPolicy, Webhooks
from domain.webhooks import RETRY_WINDOW, DeliveryStatus, verify
from tests.conftest import TEST_SECRET
from tests.fakes import FakeClock


@dataclass
class Receiver:
    """A tiny HTTP server: answers each POST with the next status of `answers` (the last repeats)."""

    answers: list[int] = field(default_factory=lambda: [200])
    received: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/perilscope"

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        self.received.append((headers | {"request-line": lines[0]}, body))
        status = self.answers[min(len(self.received), len(self.answers)) - 1]
        writer.write(f"HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        writer.close()


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    receiver = Receiver()
    server = await asyncio.start_server(receiver.handle, "127.0.0.1", 0)
    receiver.port = server.sockets[0].getsockname()[1]
    yield receiver
    server.close()
    await server.wait_closed()


@pytest.fixture
async def database(migrated_database_url: str) -> AsyncIterator[AsyncEngine]:
    # Its own engine and real commits, as the server's processes have. The pump serves every
    # user, so each test starts with no deliveries left by another.
    engine = create_engine(migrated_database_url, pool_size=10, max_overflow=20)
    async with engine.begin() as connection:
        await connection.execute(delete(WebhookDeliveryRow))
    yield engine
    await engine.dispose()


def webhooks_on(engine: AsyncEngine, clock: FakeClock, allowed: frozenset[str] = frozenset({"127.0.0.1"})) -> Webhooks:
    """The service as one server process builds it (entrypoints/container.py)."""
    sessions = create_session_factory(engine)
    writer = SqlWriter(sessions)
    return Webhooks(
        deliveries=SqlDeliveryStore(sessions, writer),
        secrets=SqlSigningSecretStore(sessions, writer),
        box=AesGcmSecretBox(TEST_SECRET, purpose="perilscope-webhook-secret"),
        resolver=LoopHostResolver(),
        sender=HttpxWebhookSender(),
        clock=clock,
        policy=WebhookPolicy(allowed_hosts=allowed),
    )


async def new_user(engine: AsyncEngine) -> AccessClaims:
    user_id = str(uuid.uuid4())
    async with create_session_factory(engine)() as session:
        session.add(UserRow(id=user_id, email=f"{user_id}@example.com", created_at=datetime.now(UTC)))
        await session.commit()
    return AccessClaims(user_id)


def finished_job(user: AccessClaims, status: str = "done", error: str | None = None) -> BatchJob:
    at = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)
    return BatchJob(
        id=str(uuid.uuid4()), user_id=user.user_id, file_id=None, status=status, stage="export", done=250,
        total=250, created_at=at, finished_at=at, error=error,
    )


async def test_a_finished_batch_posts_one_signed_event_to_a_real_receiver(database: AsyncEngine, receiver: Receiver) -> None:
    clock = FakeClock()
    webhooks = webhooks_on(database, clock)
    ann = await new_user(database)
    job = finished_job(ann)

    url = await webhooks.check(receiver.url)  # allowed by the operator setting, though on loopback
    await webhooks.batch_ended(job, url)
    await webhooks.settle()

    assert len(receiver.received) == 1
    headers, body = receiver.received[0]
    assert headers["request-line"] == "POST /hooks/perilscope HTTP/1.1"
    assert headers["content-type"] == "application/json"
    assert headers["user-agent"] == "PerilScope-Webhooks/1"
    assert headers["x-perilscope-event"] == "batch.completed"
    secret = await webhooks.signing_secret(ann)
    assert verify(secret, headers["x-perilscope-signature"], body, now=int(clock.now().timestamp()))
    assert not verify(await webhooks.rotate_secret(ann), headers["x-perilscope-signature"], body, now=int(clock.now().timestamp()))
    event = json.loads(body)
    assert event["id"] == headers["x-perilscope-delivery"]
    assert event["data"] == {**event["data"], "job_id": job.id, "status": "done", "rows": 250, "error": None}

    [delivery] = await webhooks.deliveries(ann)
    assert delivery.status is DeliveryStatus.SUCCEEDED and delivery.next_attempt_at is None
    assert [(a.status_code, a.succeeded) for a in delivery.attempts] == [(200, True)]
    assert await webhooks.deliveries(await new_user(database)) == []  # nobody else sees it


async def test_a_500_is_retried_a_minute_later_and_every_attempt_is_recorded(database: AsyncEngine, receiver: Receiver) -> None:
    receiver.answers = [500, 200]
    clock = FakeClock()
    webhooks = webhooks_on(database, clock)
    ann = await new_user(database)

    await webhooks.batch_ended(finished_job(ann, "failed", "The upload was unreadable"), receiver.url)
    await webhooks.settle()
    [pending] = await webhooks.deliveries(ann)
    assert pending.status is DeliveryStatus.PENDING and pending.next_attempt_at == clock.now() + timedelta(minutes=1)

    assert await webhooks.deliver_due() == 0  # not due yet
    clock.advance(timedelta(minutes=1))
    assert await webhooks.deliver_due() == 1

    [delivery] = await webhooks.deliveries(ann)
    assert delivery.status is DeliveryStatus.SUCCEEDED and delivery.attempt_count == 2
    assert [a.status_code for a in delivery.attempts] == [200, 500]  # newest first
    assert "HTTP 500" in delivery.attempts[1].error
    first, second = (json.loads(body) for _, body in receiver.received)
    assert first == second and first["type"] == "batch.failed"  # the same event, signed anew
    assert receiver.received[0][0]["x-perilscope-signature"] != receiver.received[1][0]["x-perilscope-signature"]


async def test_retries_stop_a_day_after_the_event_and_the_delivery_fails(database: AsyncEngine, receiver: Receiver) -> None:
    receiver.answers = [503]
    clock = FakeClock()
    webhooks = webhooks_on(database, clock)
    ann = await new_user(database)
    event_at = clock.now()

    await webhooks.batch_ended(finished_job(ann), receiver.url)
    await webhooks.settle()
    for _ in range(30):
        [delivery] = await webhooks.deliveries(ann)
        if delivery.next_attempt_at is None:
            break
        clock.advance(delivery.next_attempt_at - clock.now())
        assert await webhooks.deliver_due() == 1

    assert delivery.status is DeliveryStatus.FAILED
    assert delivery.attempt_count == len(receiver.received) == 9
    assert delivery.attempts[0].attempted_at == event_at + RETRY_WINDOW
    clock.advance(timedelta(days=2))
    assert await webhooks.deliver_due() == 0


async def test_an_address_refused_at_delivery_time_is_a_failed_attempt_without_a_call(
    database: AsyncEngine, receiver: Receiver
) -> None:
    clock = FakeClock()
    webhooks = webhooks_on(database, clock, allowed=frozenset())  # the operator removed the host
    ann = await new_user(database)

    await webhooks.batch_ended(finished_job(ann), receiver.url)
    await webhooks.settle()

    [delivery] = await webhooks.deliveries(ann)
    assert receiver.received == []
    assert delivery.status is DeliveryStatus.PENDING
    # The user sees that the host is not allowed, never what it resolves to or why (the log says).
    error = delivery.attempts[0].error
    assert delivery.attempts[0].status_code is None and "is not allowed" in error and "loopback" not in error


async def test_two_pumps_claiming_at_once_send_each_attempt_once(database: AsyncEngine, receiver: Receiver) -> None:
    clock = FakeClock()
    # Two server processes: their own engines, writers and services over one database.
    second_engine = create_engine(database.url.render_as_string(hide_password=False), pool_size=10, max_overflow=20)
    try:
        first, second = webhooks_on(database, clock), webhooks_on(second_engine, clock)
        ann = await new_user(database)
        store = SqlDeliveryStore(create_session_factory(database), SqlWriter(create_session_factory(database)))
        ids = [str(uuid.uuid4()) for _ in range(12)]
        for delivery_id in ids:  # due, and not yet attempted by anyone
            await store.add(
                Delivery(delivery_id, ann.user_id, "job", "batch.completed", receiver.url, "{}", DeliveryStatus.PENDING,
                         clock.now(), clock.now())
            )

        sent = await asyncio.gather(first.deliver_due(), second.deliver_due(), first.deliver_due(), second.deliver_due())

        assert sum(sent) == 12
        assert sorted(headers["x-perilscope-delivery"] for headers, _ in receiver.received) == sorted(ids)
        deliveries = await first.deliveries(ann)
        assert all(d.status is DeliveryStatus.SUCCEEDED and d.attempt_count == 1 for d in deliveries)
    finally:
        await second_engine.dispose()


async def test_a_lease_keeps_others_out_until_it_runs_out_and_a_stale_holder_records_nothing(database: AsyncEngine) -> None:
    clock = FakeClock()
    ann = await new_user(database)
    sessions = create_session_factory(database)
    store = SqlDeliveryStore(sessions, SqlWriter(sessions))
    delivery_id = str(uuid.uuid4())
    await store.add(Delivery(delivery_id, ann.user_id, "job", "batch.completed", "http://x", "{}",
                             DeliveryStatus.PENDING, clock.now(), clock.now()))
    lease = timedelta(seconds=60)

    assert await store.claim(delivery_id, clock.now(), clock.now() + lease, "dead-process") is not None
    assert await store.claim(delivery_id, clock.now(), clock.now() + lease, "other") is None
    assert await store.due(clock.now(), 10) == []
    clock.advance(lease + timedelta(seconds=1))  # the holder died mid-attempt
    assert await store.due(clock.now(), 10) == [delivery_id]
    assert await store.claim(delivery_id, clock.now(), clock.now() + lease, "other") is not None

    attempt = DeliveryAttempt(clock.now(), 5, 200, None)
    assert not await store.record(delivery_id, "dead-process", attempt, DeliveryStatus.SUCCEEDED, None)
    assert await store.record(delivery_id, "other", attempt, DeliveryStatus.SUCCEEDED, None)
    [delivery] = await store.recent(ann.user_id, 10, 10)
    assert delivery.attempt_count == 1 and len(delivery.attempts) == 1

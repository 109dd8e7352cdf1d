"""Idempotency-Key under concurrency, on SQLite and PostgreSQL: duplicates of one request racing
through three engines (as three server processes would) run the work once; the others are told
the key is in progress, or get the first answer once it is kept."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncEngine

from adapters.clock import SystemClock
from adapters.db.engine import create_engine, create_session_factory
from adapters.db.idempotency_repository import SqlIdempotencyStore
from adapters.db.writer import SqlWriter
from adapters.security.secret_box import AesGcmSecretBox
from application.errors import Conflict
from application.idempotency import Idempotency
from application.ports.idempotency import StoredReply
from tests.conftest import TEST_SECRET
from tests.integration.test_api_daily_limit_concurrency import own_engine, user_id  # noqa: F401 - fixtures


def idempotency_of(engine: AsyncEngine) -> Idempotency:
    sessions = create_session_factory(engine)
    box = AesGcmSecretBox(TEST_SECRET, purpose="perilscope-idempotency")
    return Idempotency(SqlIdempotencyStore(sessions, SqlWriter(sessions)), box, SystemClock())


async def test_concurrent_duplicates_run_once(migrated_database_url: str, user_id: str) -> None:  # noqa: F811
    processes = [create_engine(migrated_database_url, pool_size=10, max_overflow=20) for _ in range(3)]
    services = [idempotency_of(process) for process in processes]
    runs = 0
    release = asyncio.Event()

    async def work() -> StoredReply:
        nonlocal runs
        runs += 1
        await release.wait()  # still running while the duplicates arrive
        return StoredReply(202, b'{"job_id": "j-1"}', {"X-RateLimit-Remaining": "98"})

    async def attempt(n: int) -> tuple[StoredReply, bool] | str:
        try:
            return await services[n % 3].run(user_id, "race-key", "fingerprint", work)
        except Conflict as conflict:
            return conflict.code

    try:
        racing = [asyncio.create_task(attempt(n)) for n in range(12)]
        async with asyncio.timeout(60):
            while runs == 0 or sum(task.done() for task in racing) < 11:
                await asyncio.sleep(0.01)
        release.set()
        outcomes = await asyncio.gather(*racing)
        assert runs == 1
        answered = [outcome for outcome in outcomes if not isinstance(outcome, str)]
        assert answered == [(StoredReply(202, b'{"job_id": "j-1"}', {"X-RateLimit-Remaining": "98"}), False)]
        assert [outcome for outcome in outcomes if isinstance(outcome, str)] == ["idempotency_key_in_progress"] * 11

        replay, replayed = await services[1].run(user_id, "race-key", "fingerprint", work)
        assert replayed and replay.body == b'{"job_id": "j-1"}' and runs == 1
    finally:
        for process in processes:
            await process.dispose()


async def test_keys_are_freed_on_failure_replaced_after_24_hours_and_purged(own_engine: AsyncEngine, user_id: str) -> None:  # noqa: F811
    sessions = create_session_factory(own_engine)
    store = SqlIdempotencyStore(sessions, SqlWriter(sessions))
    now = datetime.now(UTC)
    assert await store.claim(user_id, "k", "f1", now - timedelta(hours=25))
    assert not await store.claim(user_id, "k", "f2", now)
    await store.complete(user_id, "k", StoredReply(202, b'{"a": 1}', {"X-RateLimit-Remaining": "3"}))
    await store.release(user_id, "k")  # answered: kept
    record = await store.record(user_id, "k")
    assert record is not None and record.reply == StoredReply(202, b'{"a": 1}', {"X-RateLimit-Remaining": "3"})

    await store.expire(user_id, "k", now - timedelta(hours=24))
    assert await store.record(user_id, "k") is None and await store.claim(user_id, "k", "f2", now)
    await store.release(user_id, "k")  # unanswered: freed
    assert await store.record(user_id, "k") is None
    assert await store.claim(user_id, "old", "f", now - timedelta(days=2))
    assert await store.claim(user_id, "new", "f", now)
    assert await store.purge(now - timedelta(hours=24)) == 1
    assert await store.record(user_id, "new") is not None

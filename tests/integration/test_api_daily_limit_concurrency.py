"""The public API's daily limit under concurrency, on SQLite and PostgreSQL: 60 requests racing
for a limit of 50 grant exactly 50, and request limit+1 never passes, also when the requests
come through three engines and writers of their own, as three server processes would."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from adapters.db.account_tables import UserRow
from adapters.db.api_repositories import SqlDailyUsageLedger
from adapters.db.api_tables import ApiDailyUsageRow
from adapters.db.engine import create_engine, create_session_factory
from adapters.db.writer import SqlWriter

DAY = "2026-11-23"


@pytest.fixture
async def own_engine(migrated_database_url: str) -> AsyncIterator[AsyncEngine]:
    # Its own engine and real commits: the rolled-back test transaction would serialise everything.
    engine = create_engine(migrated_database_url, pool_size=20, max_overflow=40)
    yield engine
    await engine.dispose()


@pytest.fixture
async def user_id(own_engine: AsyncEngine) -> AsyncIterator[str]:
    user_id = str(uuid.uuid4())
    async with own_engine.begin() as connection:
        await connection.execute(
            insert(UserRow).values(id=user_id, email=f"{user_id}@example.com", role="user", created_at=datetime.now(UTC))
        )
    yield user_id
    async with own_engine.begin() as connection:
        await connection.execute(delete(UserRow).where(UserRow.id == user_id))


def ledger_of(engine: AsyncEngine) -> SqlDailyUsageLedger:
    sessions = create_session_factory(engine)
    return SqlDailyUsageLedger(sessions, SqlWriter(sessions))


async def test_concurrent_requests_of_three_processes_never_pass_the_daily_limit(
    migrated_database_url: str, own_engine: AsyncEngine, user_id: str
) -> None:
    processes = [create_engine(migrated_database_url, pool_size=10, max_overflow=20) for _ in range(3)]
    ledgers = [ledger_of(process) for process in processes]
    try:
        counts = await asyncio.gather(*(ledgers[n % 3].charge(user_id, DAY, limit=50) for n in range(60)))
    finally:
        for process in processes:
            await process.dispose()

    granted = [count for count in counts if count is not None]
    assert sorted(granted) == list(range(1, 51))  # each grant saw its own count
    assert counts.count(None) == 10
    async with own_engine.connect() as connection:
        used = await connection.scalar(
            select(ApiDailyUsageRow.used).where(ApiDailyUsageRow.user_id == user_id, ApiDailyUsageRow.day == DAY)
        )
    ledger = ledger_of(own_engine)
    assert used == 50 == await ledger.used(user_id, DAY)
    assert await ledger.charge(user_id, "2026-11-24", limit=50) == 1  # a new UTC day starts again
    await ledger.release(user_id, DAY)
    assert await ledger.charge(user_id, DAY, limit=50) == 50
    assert await ledger.charge(user_id, DAY, limit=50) is None


async def test_the_first_request_of_a_day_races_safely(own_engine: AsyncEngine, user_id: str) -> None:
    """With no row yet, concurrent first requests and a limit of 1: one insert wins, the rest are refused."""
    ledger = ledger_of(own_engine)
    counts = await asyncio.gather(*(ledger.charge(user_id, DAY, limit=1) for _ in range(30)))
    assert counts.count(1) == 1 and counts.count(None) == 29


async def test_concurrent_batches_are_charged_whole_or_not_at_all(migrated_database_url: str, user_id: str) -> None:
    """Twelve batches of 7 addresses race for 50 requests, through three processes: exactly seven
    fit (49), each charged whole; the others are refused with nothing counted."""
    processes = [create_engine(migrated_database_url, pool_size=10, max_overflow=20) for _ in range(3)]
    ledgers = [ledger_of(process) for process in processes]
    try:
        counts = await asyncio.gather(*(ledgers[n % 3].charge(user_id, DAY, limit=50, count=7) for n in range(12)))
        granted = [count for count in counts if count is not None]
        assert sorted(granted) == list(range(7, 50, 7))  # each batch saw the count after its own 7
        assert await ledgers[0].used(user_id, DAY) == 49
        assert await ledgers[0].charge(user_id, DAY, limit=50, count=2) is None  # 1 remains: refused whole
        assert await ledgers[0].charge(user_id, DAY, limit=50, count=1) == 50
        assert await ledgers[0].charge(user_id, "2026-11-25", limit=50, count=51) is None  # larger than the plan
        await ledgers[0].release(user_id, DAY, count=7)
        assert await ledgers[0].used(user_id, DAY) == 43
    finally:
        for process in processes:
            await process.dispose()

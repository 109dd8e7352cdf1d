"""50 concurrent lookups with one search left grant exactly one, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from sqlalchemy import delete, insert, select

from adapters.db.account_tables import MonthlyUsageRow, UserRow
from adapters.db.engine import create_engine, create_session_factory
from adapters.db.search_repositories import SqlQuotaLedger
from adapters.db.writer import SqlWriter


async def test_fifty_concurrent_reservations_with_one_left_grant_one(migrated_database_url: str) -> None:
    # Its own engine and real commits: the rolled-back test transaction would serialise everything.
    engine = create_engine(migrated_database_url, pool_size=20, max_overflow=40)
    user_id = str(uuid.uuid4())
    month = "2026-11"
    try:
        async with engine.begin() as connection:
            await connection.execute(
                insert(UserRow).values(
                    id=user_id, email=f"{user_id}@example.com", role="user", created_at=datetime.now(UTC)
                )
            )
            await connection.execute(insert(MonthlyUsageRow).values(user_id=user_id, month=month, used=9))
        ledger = SqlQuotaLedger(SqlWriter(create_session_factory(engine)))

        grants = await asyncio.gather(*(ledger.reserve(user_id, month, limit=10) for _ in range(50)))

        assert grants.count(True) == 1
        async with engine.connect() as connection:
            used = await connection.scalar(
                select(MonthlyUsageRow.used).where(MonthlyUsageRow.user_id == user_id, MonthlyUsageRow.month == month)
            )
        assert used == 10
        await ledger.release(user_id, month)
        assert await ledger.reserve(user_id, month, limit=10) is True
        assert await ledger.reserve(user_id, month, limit=10) is False
        assert await ledger.reserve(user_id, month, limit=None) is True  # admins: no limit
    finally:
        async with engine.begin() as connection:
            await connection.execute(delete(UserRow).where(UserRow.id == user_id))
        await engine.dispose()

"""The SQLite store that writes on the event loop's thread, on a real database file."""

from __future__ import annotations

from tests.fakes import sample_answer

import asyncio
import uuid
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import insert

from adapters.db.account_tables import MonthlyUsageRow, UserRow
from adapters.db.engine import create_engine, create_session_factory
from adapters.db.sqlite_loop_store import SqliteLoopSearchStore
from adapters.db.writer import SqlWriter
from application.ports.lookup import StoredSearch
from entrypoints.migrate import upgrade_to_head

MONTH = "2026-11"


def _search(user_id: str) -> StoredSearch:
    return StoredSearch(
        id=str(uuid.uuid4()),
        user_id=user_id,
        kind="single",
        address="701 5th Ave, Seattle, WA 98104",
        occupant_count=1,
        result=sample_answer(),
        created_at=datetime.now(UTC),
        building_key="701 5TH AVE 98104",
    )


async def test_charges_and_stores_atomically_and_the_async_side_reads_it(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'loop.db'}"
    await asyncio.to_thread(upgrade_to_head, url)
    engine = create_engine(url)
    sessions = create_session_factory(engine)
    store = SqliteLoopSearchStore(sessions, SqlWriter(sessions), url)
    try:
        async with engine.begin() as connection:
            await connection.execute(insert(UserRow).values(id="u1", email="u1@example.com", role="user", created_at=datetime.now(UTC)))
            await connection.execute(insert(MonthlyUsageRow).values(user_id="u1", month=MONTH, used=9))

        granted = await asyncio.gather(*(store.add_charged(_search("u1"), MONTH, limit=10) for _ in range(50)))
        assert granted.count(True) == 1
        assert await store.used("u1", MONTH) == 10
        # Only the granted search was stored, and the async engine sees it.
        assert len(await store.recent("u1", 100)) == 1

        # A month's first search creates its row; no limit means no refusal.
        assert await store.add_charged(_search("u1"), "2026-12", limit=None) is True
        assert await store.used("u1", "2026-12") == 1
        # The typed answer comes back as it was stored.
        assert await store.latest_answer("701 5TH AVE 98104", since=datetime(2026, 1, 1, tzinfo=UTC)) == sample_answer()
    finally:
        store.close()
        await engine.dispose()


async def test_writes_interleave_with_the_async_engine(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'mixed.db'}"
    await asyncio.to_thread(upgrade_to_head, url)
    engine = create_engine(url)
    sessions = create_session_factory(engine)
    store = SqliteLoopSearchStore(sessions, SqlWriter(sessions), url)
    try:
        async with engine.begin() as connection:
            await connection.execute(insert(UserRow).values(id="u2", email="u2@example.com", role="user", created_at=datetime.now(UTC)))

        async def async_writes() -> None:  # e.g. a batch job's progress, through aiosqlite
            for _ in range(30):
                await store.add(_search("u2"))

        async def loop_writes() -> list[bool]:
            return [await store.add_charged(_search("u2"), MONTH, limit=None) for _ in range(30)]

        _, granted = await asyncio.gather(async_writes(), loop_writes())
        assert all(granted)
        assert len(await store.recent("u2", 100)) == 60
        assert await store.used("u2", MONTH) == 30
    finally:
        store.close()
        await engine.dispose()

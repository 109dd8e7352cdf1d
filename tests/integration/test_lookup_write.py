"""A single lookup's one write transaction (#29): the request's rate-limit count, the month's
charge and the stored search commit together, on SQLite (through aiosqlite and on the event
loop's thread) and on PostgreSQL, and stay exact under concurrency."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import delete, insert, select

from adapters.db.account_tables import MonthlyUsageRow, SearchRow, UserRow
from adapters.db.engine import create_engine, create_session_factory, is_sqlite
from adapters.db.search_repositories import SqlSearchStore
from adapters.db.sqlite_loop_store import SqliteLoopSearchStore
from adapters.db.throttle import SqlRequestWindow
from adapters.db.writer import SqlWriter
from application.ports.lookup import StoredSearch
from application.ports.throttling import WindowCount, WindowFull
from tests.fakes import FakeClock, sample_answer

MONTH = "2026-11"
WINDOW = 60
# 20 s into a minute: the window ends 40 s later.
AT = datetime(2026, 11, 14, 9, 0, 20, tzinfo=UTC).timestamp()


def _search(user_id: str) -> StoredSearch:
    return StoredSearch(
        id=str(uuid.uuid4()), user_id=user_id, kind="single", address="701 5th Ave, Seattle, WA 98104",
        occupant_count=1, result=sample_answer(), created_at=datetime.now(UTC), building_key=None,
    )


class World:
    def __init__(self, engine, store: SqlSearchStore, writer: SqlWriter) -> None:  # noqa: ANN001
        self.engine = engine
        self.store = store
        self.writer = writer
        self.user_id = str(uuid.uuid4())

    def window(self, limit: int, at: float = AT) -> WindowCount:
        return WindowCount(f"requests:{self.user_id}", limit, WINDOW, at)

    async def stored_searches(self) -> int:
        async with self.engine.connect() as connection:
            return len((await connection.execute(select(SearchRow.id).where(SearchRow.user_id == self.user_id))).all())


@pytest.fixture(params=["async", "loop"])
async def world(request: pytest.FixtureRequest, migrated_database_url: str) -> AsyncIterator[World]:
    """Its own engine and real commits, as a server's concurrent requests have; on SQLite both
    the aiosqlite store and the one that writes on the loop's thread."""
    if request.param == "loop" and not is_sqlite(migrated_database_url):
        pytest.skip("the loop-thread store is SQLite's")
    engine = create_engine(migrated_database_url, pool_size=20, max_overflow=40)
    sessions = create_session_factory(engine)
    writer = SqlWriter(sessions)
    store = (
        SqliteLoopSearchStore(sessions, writer, migrated_database_url) if request.param == "loop"
        else SqlSearchStore(sessions, writer)
    )
    world = World(engine, store, writer)
    async with engine.begin() as connection:
        await connection.execute(insert(UserRow).values(
            id=world.user_id, email=f"{world.user_id}@example.com", role="user", created_at=datetime.now(UTC)
        ))
    try:
        yield world
    finally:
        store.close()
        async with engine.begin() as connection:
            await connection.execute(delete(SearchRow).where(SearchRow.user_id == world.user_id))
            await connection.execute(delete(UserRow).where(UserRow.id == world.user_id))
        await engine.dispose()


async def _charged(world: World, limit: int | None, window: WindowCount | None) -> bool | float:
    """True: counted, charged, stored; False: counted, refused by the quota; a float: the window's wait."""
    try:
        return await world.store.add_charged(_search(world.user_id), MONTH, limit, window)
    except WindowFull as full:
        return full.wait


async def test_concurrent_lookups_get_exactly_the_window_and_each_is_stored(world: World) -> None:
    outcomes = await asyncio.gather(*(_charged(world, None, world.window(7)) for _ in range(40)))
    assert outcomes.count(True) == 7
    assert all(outcome == pytest.approx(40) for outcome in outcomes if outcome is not True)
    assert await world.stored_searches() == 7
    assert await world.store.used(world.user_id, MONTH) == 7
    # The read-only check now sees the window full, and the quota's count.
    assert await world.store.room(world.user_id, MONTH, world.window(7, AT + 10)) == (7, pytest.approx(30))
    assert await world.store.room(world.user_id, MONTH, world.window(8)) == (7, 0.0)
    # The next minute starts over.
    assert await _charged(world, None, world.window(7, AT + 40)) is True


async def test_a_refused_quota_still_counts_in_the_window_and_stores_nothing(world: World) -> None:
    async with world.engine.begin() as connection:
        await connection.execute(insert(MonthlyUsageRow).values(user_id=world.user_id, month=MONTH, used=7))
    outcomes = await asyncio.gather(*(_charged(world, 10, world.window(6)) for _ in range(30)))
    # Six requests fit the window: three are charged and stored, three refused by the quota.
    assert (outcomes.count(True), outcomes.count(False)) == (3, 3)
    assert sum(1 for outcome in outcomes if outcome not in (True, False)) == 24
    assert await world.store.used(world.user_id, MONTH) == 10
    assert await world.stored_searches() == 3
    assert (await world.store.room(world.user_id, MONTH, world.window(6)))[1] == pytest.approx(40)


async def test_uncharged_requests_and_the_window_of_other_callers_share_one_count(world: World) -> None:
    """A lookup that stores nothing (count_request), a lookup (add_charged) and a request of
    another kind (RequestWindow.admit, e.g. a batch) all count in one window, exactly."""
    window = world.window(9)
    admits = SqlRequestWindow(world.writer, FakeClock(datetime.fromtimestamp(AT, UTC)))

    async def uncharged() -> bool:
        try:
            await world.store.count_request(window)
            return True
        except WindowFull:
            return False

    async def other() -> bool:
        return await admits.admit(window.key, window.limit, WINDOW) == 0

    async def lookup() -> bool:
        return await _charged(world, None, window) is True

    outcomes = await asyncio.gather(*(kind() for kind in (uncharged, other, lookup) for _ in range(12)))
    assert outcomes.count(True) == 9
    assert await world.stored_searches() == sum(outcomes[24:])
    with pytest.raises(WindowFull):
        await world.store.count_request(window)


async def test_without_a_window_the_charge_is_as_before(world: World) -> None:
    assert await _charged(world, 1, None) is True
    assert await _charged(world, 1, None) is False
    assert await world.store.room(world.user_id, MONTH, None) == (1, 0.0)
    assert await world.store.room(world.user_id, None, None) == (0, 0.0)
    assert await world.stored_searches() == 1

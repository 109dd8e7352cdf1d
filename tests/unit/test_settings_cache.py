"""System settings are read through a five-second cache (adapters/db/settings_repository.py):
when it expires under load, one request reads the row for all that arrive meanwhile, and a save
is never undone by a read that began before it. No real time passes: the clock is injected."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

from adapters.db.base import Base
from adapters.db.settings_repository import CACHE_SECONDS, SqlSystemSettingsStore
from adapters.db.writer import SqlWriter
from domain.system_settings import SystemSettings


class Monotonic:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FixedClock:
    def now(self) -> datetime:
        return datetime(2026, 11, 28, tzinfo=UTC)


@pytest.fixture
async def sessions(tmp_path: Path) -> AsyncIterator[async_sessionmaker]:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'settings.db'}")
    async with engine.begin() as connection:
        await connection.run_sync(Base.metadata.create_all)
    yield async_sessionmaker(engine, expire_on_commit=False)
    await engine.dispose()


async def test_an_expired_cache_is_read_once_for_every_request_waiting(sessions: async_sessionmaker) -> None:
    opened = 0

    def counting_sessions():  # noqa: ANN202 - the sessionmaker's call, counted
        nonlocal opened
        opened += 1
        return sessions()

    monotonic = Monotonic()
    store = SqlSystemSettingsStore(counting_sessions, SqlWriter(sessions), SystemSettings(),  # type: ignore[arg-type]
                                   FixedClock(), monotonic)  # type: ignore[arg-type]
    await store.current()
    monotonic.now += CACHE_SECONDS + 1
    opened = 0
    answers = await asyncio.gather(*(store.current() for _ in range(32)))
    assert opened == 1
    assert len(set(answers)) == 1


async def test_a_save_wins_over_a_read_that_began_before_it(sessions: async_sessionmaker) -> None:
    monotonic = Monotonic()
    store = SqlSystemSettingsStore(sessions, SqlWriter(sessions), SystemSettings(), FixedClock(), monotonic)  # type: ignore[arg-type]
    stale_read = asyncio.ensure_future(store.current())
    await asyncio.sleep(0)  # the read has begun: it holds the lock and waits on the database
    saved = SystemSettings(monthly_search_limit=7)
    await store.save(saved, "admin")
    await stale_read
    assert await store.current() == saved

"""The reference index (adapters/reference_data/memory_index.py) asks whether `data load` changed
the data at most every `recheck_seconds`, on its injected clock: within the interval it answers
from memory, after it a new load is read. No real time passes in these tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

from adapters.db.base import Base
from adapters.db.reference_tables import DatasetLoadRow, NaicsCodeRow
from adapters.reference_data.memory_index import RECHECK_SECONDS, ReferenceIndex
from entrypoints.settings import Settings, SettingsError


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def sessions(tmp_path: Path) -> AsyncIterator[async_sessionmaker]:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'reference.db'}")
    async with engine.begin() as connection:
        await connection.run_sync(Base.metadata.create_all)
    yield async_sessionmaker(engine, expire_on_commit=False)
    await engine.dispose()


async def _load(sessions: async_sessionmaker, code: str, title: str) -> None:
    """What `perilscope data load` leaves behind: the rows, and a dataset_load row saying so."""
    async with sessions() as session, session.begin():
        session.add(NaicsCodeRow(code=code, title=title, level=6))
        session.add(DatasetLoadRow(dataset=f"naics-{code}", version="1", row_count=1, source_file="naics.csv",
                                   source_fingerprint="naics.csv:1:1", loaded_at=datetime.now(UTC), seconds=0.1))


async def test_a_new_load_is_read_once_the_interval_has_passed_and_not_before(sessions: async_sessionmaker) -> None:
    clock = Clock()
    index = ReferenceIndex(sessions, recheck_seconds=0.2, clock=clock)
    await _load(sessions, "518210", "Computing Infrastructure Providers")
    first = await index.data()
    assert first.naics_titles == {"518210": "Computing Infrastructure Providers"}

    await _load(sessions, "722511", "Full-Service Restaurants")
    clock.now += 0.19
    assert await index.data() is first, "within the interval the data in memory is the answer"

    clock.now += 0.01
    again = await index.data()
    assert again is not first
    assert again.naics_titles["722511"] == "Full-Service Restaurants"


async def test_an_unchanged_load_keeps_the_data_in_memory_after_the_check(sessions: async_sessionmaker) -> None:
    clock = Clock()
    index = ReferenceIndex(sessions, recheck_seconds=5, clock=clock)
    await _load(sessions, "518210", "Computing Infrastructure Providers")
    first = await index.data()
    clock.now += 60
    assert await index.data() is first


async def test_by_default_the_interval_is_thirty_seconds(sessions: async_sessionmaker) -> None:
    clock = Clock()
    index = ReferenceIndex(sessions, clock=clock)
    await _load(sessions, "518210", "Computing Infrastructure Providers")
    first = await index.data()
    await _load(sessions, "722511", "Full-Service Restaurants")
    clock.now += RECHECK_SECONDS - 0.5
    assert await index.data() is first
    clock.now += 0.5
    assert "722511" in (await index.data()).naics_titles


def test_the_interval_comes_from_the_environment_and_is_checked(tmp_path: Path) -> None:
    env = {"PERILSCOPE_SECRET_KEY": "s" * 40, "PERILSCOPE_VAR_DIR": str(tmp_path)}
    assert Settings.from_env(env).reference_recheck_seconds == RECHECK_SECONDS == 30.0
    assert Settings.from_env({**env, "PERILSCOPE_REFERENCE_RECHECK_SECONDS": "0.2"}).reference_recheck_seconds == 0.2
    with pytest.raises(SettingsError, match="PERILSCOPE_REFERENCE_RECHECK_SECONDS"):
        Settings.from_env({**env, "PERILSCOPE_REFERENCE_RECHECK_SECONDS": "-1"})


async def test_many_requests_finding_the_check_due_ask_the_database_once(sessions: async_sessionmaker) -> None:
    """Under load, every request that arrives while the check is due waits on one lock: the first
    checks for all of them (#29: the waiters each asked again, one after another, at p99)."""
    import asyncio

    clock = Clock()
    opened = 0

    def counting_sessions():  # noqa: ANN202 - the sessionmaker's call, counted
        nonlocal opened
        opened += 1
        return sessions()

    index = ReferenceIndex(counting_sessions, recheck_seconds=5, clock=clock)  # type: ignore[arg-type]
    await _load(sessions, "518210", "Computing Infrastructure Providers")
    first = await index.data()
    clock.now += 6
    opened = 0
    answers = await asyncio.gather(*(index.data() for _ in range(32)))
    assert opened == 1
    assert all(answer is first for answer in answers)

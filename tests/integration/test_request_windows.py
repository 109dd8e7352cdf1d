"""The shared request rate limit against the real databases and Redis: concurrent requests never
get more than the limit in a window, a new window starts over, and keys are independent."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from adapters.db.engine import create_engine, create_session_factory
from adapters.db.throttle import SqlRequestWindow
from adapters.db.writer import SqlWriter
from adapters.security.redis_throttle import RedisRequestWindow
from tests.conftest import connect_test_redis
from tests.fakes import FakeClock

LIMIT, WINDOW = 7, 60
# 20 s into a minute: the windows are aligned to the epoch, so the test knows when this one ends.
START = datetime(2026, 3, 14, 9, 0, 20, tzinfo=UTC)


@pytest.fixture
async def database_window(migrated_database_url: str):  # noqa: ANN201
    # Its own engine and real commits, as concurrent requests of a server would have.
    engine = create_engine(migrated_database_url, pool_size=20, max_overflow=40)
    clock = FakeClock(START)
    yield SqlRequestWindow(SqlWriter(create_session_factory(engine)), clock), clock
    await engine.dispose()


@pytest.fixture
async def redis_window():  # noqa: ANN201
    redis = await connect_test_redis()
    clock = FakeClock(START)
    yield RedisRequestWindow(redis, clock, prefix=f"test:{uuid.uuid4().hex}:"), clock
    await redis.aclose()


# Each check runs on SQLite and PostgreSQL (database_window) and on Redis.


async def test_database_concurrent_requests_get_exactly_the_limit(database_window) -> None:  # noqa: ANN001
    await concurrent_requests_get_exactly_the_limit(*database_window)


async def test_redis_concurrent_requests_get_exactly_the_limit(redis_window) -> None:  # noqa: ANN001
    await concurrent_requests_get_exactly_the_limit(*redis_window)


async def test_database_next_window_starts_over_and_keys_are_independent(database_window) -> None:  # noqa: ANN001
    await next_window_starts_over_and_keys_are_independent(*database_window)


async def test_redis_next_window_starts_over_and_keys_are_independent(redis_window) -> None:  # noqa: ANN001
    await next_window_starts_over_and_keys_are_independent(*redis_window)


async def concurrent_requests_get_exactly_the_limit(limiter, _clock) -> None:  # noqa: ANN001
    key = f"requests:{uuid.uuid4()}"
    waits = await asyncio.gather(*(limiter.admit(key, LIMIT, WINDOW) for _ in range(120)))
    assert sum(1 for wait in waits if wait == 0) == LIMIT
    assert all(wait == pytest.approx(40) for wait in waits if wait)  # the rest of this minute


async def next_window_starts_over_and_keys_are_independent(limiter, clock) -> None:  # noqa: ANN001
    key, other = f"requests:{uuid.uuid4()}", f"requests:{uuid.uuid4()}"
    for _ in range(LIMIT):
        assert await limiter.admit(key, LIMIT, WINDOW) == 0
    assert await limiter.admit(key, LIMIT, WINDOW) > 0
    assert await limiter.admit(other, LIMIT, WINDOW) == 0
    clock.advance(timedelta(seconds=39))  # 59 s into the minute: still refused, 1 s to go
    assert await limiter.admit(key, LIMIT, WINDOW) == pytest.approx(1)
    clock.advance(timedelta(seconds=1))  # a new minute
    waits = await asyncio.gather(*(limiter.admit(key, LIMIT, WINDOW) for _ in range(LIMIT + 3)))
    assert waits.count(0) == LIMIT

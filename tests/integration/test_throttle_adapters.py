"""The shared attempt throttles against the real databases and Redis: concurrent attempts never
get more than the rule allows, and each adapter behaves exactly as the model in domain/throttling.py."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.db.engine import create_engine, create_session_factory
from adapters.db.throttle import SqlAttemptThrottle
from adapters.db.writer import SqlWriter
from adapters.security.redis_throttle import RedisAttemptThrottle
from domain.throttling import ThrottleRule, ThrottleState, next_attempt, refunded
from tests.conftest import connect_test_redis
from tests.fakes import FakeClock

RULE = ThrottleRule(free=5, window_seconds=900, first_wait_seconds=30, max_wait_seconds=900)


@pytest.fixture
async def database_throttle(migrated_database_url: str):  # noqa: ANN201
    # Its own engine and real commits: the rolled-back test transaction would serialise everything.
    engine = create_engine(migrated_database_url, pool_size=20, max_overflow=40)
    clock = FakeClock()
    sessions = create_session_factory(engine)
    yield SqlAttemptThrottle(sessions, SqlWriter(sessions), clock), clock
    await engine.dispose()


@pytest.fixture
async def redis_throttle():  # noqa: ANN201
    redis = await connect_test_redis()
    clock = FakeClock()
    yield RedisAttemptThrottle(redis, clock, prefix=f"test:{uuid.uuid4().hex}:"), clock
    await redis.aclose()


# Each check runs on SQLite and PostgreSQL (database_throttle) and once on Redis.


async def test_database_two_hundred_concurrent_attempts_admit_exactly_the_free_ones(database_throttle) -> None:  # noqa: ANN001
    await two_hundred_concurrent_attempts_admit_exactly_the_free_ones(*database_throttle)


async def test_redis_two_hundred_concurrent_attempts_admit_exactly_the_free_ones(redis_throttle) -> None:  # noqa: ANN001
    await two_hundred_concurrent_attempts_admit_exactly_the_free_ones(*redis_throttle)


async def test_database_back_off_doubles_and_clear_starts_over(database_throttle) -> None:  # noqa: ANN001
    await back_off_doubles_and_clear_starts_over(*database_throttle)


async def test_redis_back_off_doubles_and_clear_starts_over(redis_throttle) -> None:  # noqa: ANN001
    await back_off_doubles_and_clear_starts_over(*redis_throttle)


async def two_hundred_concurrent_attempts_admit_exactly_the_free_ones(throttle, _clock) -> None:  # noqa: ANN001
    key = f"login-account:{uuid.uuid4()}@example.com"
    waits = await asyncio.gather(*(throttle.attempt(key, RULE) for _ in range(200)))
    assert sum(1 for wait in waits if wait == 0) == RULE.free
    assert all(0 < wait <= RULE.first_wait_seconds for wait in waits if wait)


async def back_off_doubles_and_clear_starts_over(throttle, clock) -> None:  # noqa: ANN001
    key = f"k:{uuid.uuid4()}"
    for _ in range(RULE.free):
        assert await throttle.attempt(key, RULE) == 0
    assert await throttle.attempt(key, RULE) == pytest.approx(30)
    clock.advance(timedelta(seconds=30))
    assert await throttle.attempt(key, RULE) == 0
    assert await throttle.attempt(key, RULE) == pytest.approx(60)
    await throttle.clear(key)
    assert await throttle.attempt(key, RULE) == 0
    other = f"k:{uuid.uuid4()}"
    assert await throttle.attempt(other, RULE) == 0  # keys are independent


steps = st.lists(
    st.one_of(
        st.tuples(st.just("attempt"), st.just(0)),
        st.tuples(st.just("wait"), st.integers(min_value=1, max_value=1200)),
        st.tuples(st.just("clear"), st.just(0)),
        st.tuples(st.just("refund"), st.just(0)),
    ),
    min_size=1,
    max_size=25,
)


BOUNDED = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])


@BOUNDED
@given(script=steps)
async def test_the_database_adapter_follows_the_model(database_throttle, script) -> None:  # noqa: ANN001
    await follows_the_model(*database_throttle, script)


@BOUNDED
@given(script=steps)
async def test_the_redis_adapter_follows_the_model(redis_throttle, script) -> None:  # noqa: ANN001
    await follows_the_model(*redis_throttle, script)


async def follows_the_model(throttle, clock, script) -> None:  # noqa: ANN001
    key = f"model:{uuid.uuid4()}"
    state: ThrottleState | None = None
    for action, seconds in script:
        if action == "wait":
            clock.advance(timedelta(seconds=seconds))
        elif action == "clear":
            await throttle.clear(key)
            state = None
        elif action == "refund":
            await throttle.refund(key)
            state = refunded(state)
        else:
            new_state, expected_wait = next_attempt(RULE, state, clock.now().timestamp())
            state = new_state or state
            wait = await throttle.attempt(key, RULE)
            assert (wait == 0) == (expected_wait == 0)
            if expected_wait:
                assert wait == pytest.approx(max(expected_wait, 1.0))

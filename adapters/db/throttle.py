"""`AttemptThrottle` and `RequestWindow` in the database: one conditional upsert per attempt, so
the check and the count are a single atomic statement on SQLite and PostgreSQL alike
(domain/throttling.py is the model the attempt statement implements)."""

from __future__ import annotations

import hashlib

from sqlalchemy import case, delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.engine import upsert_insert
from adapters.db.throttle_tables import ThrottleCounterRow
from adapters.db.writer import SqlWriter
from application.ports.clock import Clock
from domain.throttling import ThrottleRule, ThrottleState, next_attempt


def hashed_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class SqlAttemptThrottle:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], writer: SqlWriter, clock: Clock) -> None:
        self._sessions = sessions
        self._writer = writer
        self._clock = clock

    async def attempt(self, key: str, rule: ThrottleRule) -> float:
        now = self._clock.now().timestamp()
        row = ThrottleCounterRow.__table__.c
        async with self._writer.session() as session:
            starts_over = row.last_attempt_at <= now - rule.window_seconds
            admitted = await _counted(
                session, key, now, starts_over,
                or_(starts_over, row.attempts < rule.free, row.last_attempt_at <= now - _wait_after(row.attempts, rule)),
            )
            if admitted:
                await session.commit()
                return 0.0
            stored = (
                await session.execute(
                    select(row.attempts, row.last_attempt_at).where(row.key == hashed_key(key))
                )
            ).first()
        if stored is None:  # cleared between the two statements
            return 0.0
        _, wait = next_attempt(rule, ThrottleState(stored.attempts, stored.last_attempt_at), now)
        return max(wait, 1.0)

    async def refund(self, key: str) -> None:
        await self._writer.execute(
            update(ThrottleCounterRow)
            .where(ThrottleCounterRow.key == hashed_key(key), ThrottleCounterRow.attempts > 0)
            .values(attempts=ThrottleCounterRow.attempts - 1)
        )

    async def clear(self, key: str) -> None:
        await self._writer.execute(delete(ThrottleCounterRow).where(ThrottleCounterRow.key == hashed_key(key)))


class SqlRequestWindow:
    """Fixed windows in the throttle counters' table: a key's row holds the requests admitted since
    its window began and when the last one came; a last request before the current window began
    means the count starts over. No migration: the row's meaning is the attempt throttle's."""

    def __init__(self, writer: SqlWriter, clock: Clock) -> None:
        self._writer = writer
        self._clock = clock

    async def admit(self, key: str, limit: int, window_seconds: int) -> float:
        now = self._clock.now().timestamp()
        window_start = now - now % window_seconds
        row = ThrottleCounterRow.__table__.c
        async with self._writer.session() as session:
            starts_over = row.last_attempt_at < window_start
            admitted = await _counted(session, key, now, starts_over, or_(starts_over, row.attempts < limit))
            if admitted:
                await session.commit()
        return 0.0 if admitted else max(window_start + window_seconds - now, 1.0)


async def _counted(session: AsyncSession, key: str, now: float, starts_over, admitted_when) -> bool:  # noqa: ANN001
    """One attempt counted in one atomic upsert: a new key starts at 1; a stored one starts over
    at 1 when `starts_over`, else adds 1, and only when `admitted_when` holds. False: refused,
    nothing written."""
    row = ThrottleCounterRow.__table__.c
    statement = (
        upsert_insert(session.bind.dialect.name, ThrottleCounterRow)
        .values(key=hashed_key(key), attempts=1, last_attempt_at=now)
        .on_conflict_do_update(
            index_elements=["key"],
            set_={"attempts": case((starts_over, 1), else_=row.attempts + 1), "last_attempt_at": now},
            where=admitted_when,
        )
        .returning(row.attempts)
    )
    return (await session.execute(statement)).first() is not None


def _wait_after(attempts, rule: ThrottleRule):  # noqa: ANN001, ANN202
    """`rule.wait_after(attempts)` as SQL: a CASE over the few doubling steps before the maximum."""
    steps = [(attempts == rule.free + n, rule.wait_after(rule.free + n)) for n in range(rule.doublings_to_max)]
    return case(*steps, else_=float(rule.max_wait_seconds)) if steps else float(rule.max_wait_seconds)

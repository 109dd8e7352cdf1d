"""Racing requests use a TOTP step, a recovery code and a sign-in challenge once, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

from sqlalchemy import delete, insert

from adapters.db.writer import SqlWriter
from adapters.db.account_tables import UserRow
from adapters.db.engine import create_engine, create_session_factory
from adapters.db.mfa_repository import SqlMfaStore

RACERS = 20


async def test_each_factor_is_used_once_under_concurrency(migrated_database_url: str) -> None:
    # Its own engine and real commits: the rolled-back test transaction would serialise everything.
    engine = create_engine(migrated_database_url, pool_size=10, max_overflow=20)
    user_id = str(uuid.uuid4())
    now = datetime.now(UTC)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                insert(UserRow).values(id=user_id, email=f"{user_id}@example.com", role="user", created_at=now)
            )
        sessions = create_session_factory(engine)
        store = SqlMfaStore(sessions, SqlWriter(sessions))
        await store.start_enrolment(user_id, "v1:sealed", now)
        enabled = await asyncio.gather(*(store.enable(user_id, 100, ["h1", "h2"], now) for _ in range(5)))
        assert enabled.count(True) == 1
        enrolment = await store.enrolment(user_id)
        assert enrolment is not None and enrolment.enabled and enrolment.last_used_step == 100
        assert len(enrolment.recovery_codes) == 2

        steps = await asyncio.gather(*(store.use_step(user_id, 101) for _ in range(RACERS)))
        assert steps.count(True) == 1
        assert await store.use_step(user_id, 100) is False  # an earlier step, never again

        code_id = enrolment.recovery_codes[0].id
        codes = await asyncio.gather(*(store.use_recovery_code(code_id, now) for _ in range(RACERS)))
        assert codes.count(True) == 1
        assert len((await store.enrolment(user_id)).unused_recovery_codes) == 1

        await store.set_challenge(user_id, "c" * 64)
        taken = await asyncio.gather(*(store.take_challenge(user_id, "c" * 64) for _ in range(RACERS)))
        assert taken.count(True) == 1

        # Starting over never replaces an enrolment that is on.
        await store.start_enrolment(user_id, "v1:other", now)
        assert (await store.enrolment(user_id)).sealed_secret == "v1:sealed"
    finally:
        async with engine.begin() as connection:
            await connection.execute(delete(UserRow).where(UserRow.id == user_id))
        await engine.dispose()

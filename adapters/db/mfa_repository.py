"""Two-factor enrolments in the database. Every 'use' is one conditional UPDATE, so a code, a time
step or a sign-in challenge is accepted once even when requests race."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.mfa_tables import MfaRecoveryCodeRow, UserMfaRow
from adapters.db.writer import SqlWriter
from application.ports.mfa import MfaEnrolment, RecoveryCodeRecord


class SqlMfaStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer  # every write takes the one writer's turn (adapters/db/writer.py)

    async def enrolment(self, user_id: str) -> MfaEnrolment | None:
        async with self._sessions() as session:
            row = await session.get(UserMfaRow, user_id)
            if row is None:
                return None
            codes = await session.scalars(select(MfaRecoveryCodeRow).where(MfaRecoveryCodeRow.user_id == user_id))
            return MfaEnrolment(
                user_id=row.user_id,
                sealed_secret=row.secret_sealed,
                enabled=row.enabled,
                last_used_step=row.last_used_step,
                pending_challenge=row.pending_challenge,
                recovery_codes=tuple(RecoveryCodeRecord(c.id, c.code_hash, c.used_at is not None) for c in codes),
            )

    async def is_enabled(self, user_id: str) -> bool:
        async with self._sessions() as session:
            enabled = await session.scalar(select(UserMfaRow.enabled).where(UserMfaRow.user_id == user_id))
        return bool(enabled)

    async def start_enrolment(self, user_id: str, sealed_secret: str, at: datetime) -> None:
        async with self._writer.session() as session:
            # Only an unconfirmed enrolment is replaced; an enabled one stays as it is.
            await session.execute(
                delete(UserMfaRow).where(UserMfaRow.user_id == user_id, UserMfaRow.enabled.is_(False))
            )
            if await session.get(UserMfaRow, user_id) is None:
                session.add(UserMfaRow(user_id=user_id, secret_sealed=sealed_secret, enabled=False, created_at=at))
            await session.commit()

    async def enable(self, user_id: str, step: int, recovery_code_hashes: list[str], at: datetime) -> bool:
        async with self._writer.session() as session:
            result = await session.execute(
                update(UserMfaRow)
                .where(UserMfaRow.user_id == user_id, UserMfaRow.enabled.is_(False))
                .values(enabled=True, enabled_at=at, last_used_step=step, pending_challenge=None)
            )
            if result.rowcount != 1:
                return False
            await session.execute(delete(MfaRecoveryCodeRow).where(MfaRecoveryCodeRow.user_id == user_id))
            session.add_all(
                MfaRecoveryCodeRow(id=str(uuid.uuid4()), user_id=user_id, code_hash=code_hash)
                for code_hash in recovery_code_hashes
            )
            await session.commit()
        return True

    async def use_step(self, user_id: str, step: int) -> bool:
        async with self._writer.session() as session:
            result = await session.execute(
                update(UserMfaRow)
                .where(
                    UserMfaRow.user_id == user_id,
                    or_(UserMfaRow.last_used_step.is_(None), UserMfaRow.last_used_step < step),
                )
                .values(last_used_step=step)
            )
            await session.commit()
        return result.rowcount == 1

    async def use_recovery_code(self, code_id: str, at: datetime) -> bool:
        async with self._writer.session() as session:
            result = await session.execute(
                update(MfaRecoveryCodeRow)
                .where(MfaRecoveryCodeRow.id == code_id, MfaRecoveryCodeRow.used_at.is_(None))
                .values(used_at=at)
            )
            await session.commit()
        return result.rowcount == 1

    async def set_challenge(self, user_id: str, challenge_hash: str) -> None:
        async with self._writer.session() as session:
            await session.execute(
                update(UserMfaRow).where(UserMfaRow.user_id == user_id).values(pending_challenge=challenge_hash)
            )
            await session.commit()

    async def take_challenge(self, user_id: str, challenge_hash: str) -> bool:
        async with self._writer.session() as session:
            result = await session.execute(
                update(UserMfaRow)
                .where(UserMfaRow.user_id == user_id, UserMfaRow.pending_challenge == challenge_hash)
                .values(pending_challenge=None)
            )
            await session.commit()
        return result.rowcount == 1

    async def remove(self, user_id: str) -> None:
        async with self._writer.session() as session:
            await session.execute(delete(MfaRecoveryCodeRow).where(MfaRecoveryCodeRow.user_id == user_id))
            await session.execute(delete(UserMfaRow).where(UserMfaRow.user_id == user_id))
            await session.commit()

"""Development mailer: keeps every message in the outbox table and logs it (`perilscope mail outbox`)."""

from __future__ import annotations

import logging

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.account_tables import OutboxMailRow
from adapters.db.writer import SqlWriter
from application.ports.clock import Clock
from application.ports.mail import OutgoingMail

log = logging.getLogger("perilscope.mail")


class OutboxMailer:
    def __init__(self, session_factory: async_sessionmaker[AsyncSession], writer: SqlWriter, clock: Clock) -> None:
        self._session_factory = session_factory
        self._writer = writer
        self._clock = clock

    async def send(self, mail: OutgoingMail) -> None:
        async with self._writer.session() as session:
            session.add(
                OutboxMailRow(to_address=mail.to, subject=mail.subject, body=mail.body, created_at=self._clock.now())
            )
            await session.commit()
        log.info("mail stored in outbox", extra={"to": mail.to, "subject": mail.subject})

    async def recent(self, limit: int = 20) -> list[OutboxMailRow]:
        async with self._session_factory() as session:
            rows = await session.scalars(select(OutboxMailRow).order_by(OutboxMailRow.id.desc()).limit(limit))
            return list(rows)

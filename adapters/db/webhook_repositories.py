"""Webhook deliveries, their attempts and the users' signing secrets in the database. A delivery
is claimed by one conditional UPDATE (a compare-and-set on its lease), which both SQLite and
PostgreSQL apply atomically: of two processes claiming at once, exactly one sees a row changed."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.engine import upsert_insert
from adapters.db.webhook_tables import WebhookAttemptRow, WebhookDeliveryRow, WebhookSecretRow
from adapters.db.writer import SqlWriter
from application.ports.webhook_delivery import Delivery, DeliveryAttempt
from domain.webhooks import DeliveryStatus

Sessions = async_sessionmaker[AsyncSession]
_DELIVERY = WebhookDeliveryRow


def _delivery(row: WebhookDeliveryRow, attempts: tuple[DeliveryAttempt, ...] = ()) -> Delivery:
    return Delivery(
        id=row.id,
        user_id=row.user_id,
        job_id=row.job_id,
        event=row.event,
        url=row.url,
        body=row.body,
        status=DeliveryStatus(row.status),
        created_at=row.created_at,
        next_attempt_at=row.next_attempt_at,
        attempt_count=row.attempt_count,
        attempts=attempts,
    )


def _attempt(row: WebhookAttemptRow) -> DeliveryAttempt:
    return DeliveryAttempt(row.attempted_at, row.duration_ms, row.status_code, row.error)


def _due(now: datetime):  # noqa: ANN202
    return (
        _DELIVERY.status == DeliveryStatus.PENDING.value,
        _DELIVERY.next_attempt_at <= now,
        or_(_DELIVERY.lease_until.is_(None), _DELIVERY.lease_until < now),
    )


class SqlDeliveryStore:
    def __init__(self, sessions: Sessions, writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer

    async def add(self, delivery: Delivery) -> None:
        async with self._writer.session() as session:
            session.add(
                WebhookDeliveryRow(
                    id=delivery.id,
                    user_id=delivery.user_id,
                    job_id=delivery.job_id,
                    event=delivery.event,
                    url=delivery.url,
                    body=delivery.body,
                    status=delivery.status.value,
                    created_at=delivery.created_at,
                    next_attempt_at=delivery.next_attempt_at,
                    attempt_count=delivery.attempt_count,
                )
            )
            await session.commit()

    async def due(self, now: datetime, limit: int) -> list[str]:
        async with self._sessions() as session:
            ids = await session.scalars(
                select(_DELIVERY.id).where(*_due(now)).order_by(_DELIVERY.next_attempt_at, _DELIVERY.id).limit(limit)
            )
            return list(ids)

    async def claim(self, delivery_id: str, now: datetime, lease_until: datetime, token: str) -> Delivery | None:
        async with self._writer.session() as session:
            result = await session.execute(
                update(_DELIVERY)
                .where(_DELIVERY.id == delivery_id, *_due(now))
                .values(lease_token=token, lease_until=lease_until)
            )
            await session.commit()
        if result.rowcount != 1:
            return None
        async with self._sessions() as session:
            row = await session.get(_DELIVERY, delivery_id, populate_existing=True)
            return _delivery(row) if row is not None and row.lease_token == token else None

    async def record(
        self, delivery_id: str, token: str, attempt: DeliveryAttempt, status: DeliveryStatus, next_attempt_at: datetime | None
    ) -> bool:
        async with self._writer.session() as session:
            result = await session.execute(
                update(_DELIVERY)
                .where(_DELIVERY.id == delivery_id, _DELIVERY.lease_token == token)
                .values(
                    status=status.value,
                    next_attempt_at=next_attempt_at,
                    attempt_count=_DELIVERY.attempt_count + 1,
                    lease_token=None,
                    lease_until=None,
                )
            )
            if result.rowcount != 1:
                await session.rollback()
                return False
            session.add(
                WebhookAttemptRow(
                    id=str(uuid.uuid4()),
                    delivery_id=delivery_id,
                    attempted_at=attempt.attempted_at,
                    duration_ms=attempt.duration_ms,
                    status_code=attempt.status_code,
                    error=attempt.error,
                )
            )
            await session.commit()
        return True

    async def recent(self, user_id: str, limit: int, attempts_each: int, offset: int = 0) -> list[Delivery]:
        async with self._sessions() as session:
            rows = list(
                await session.scalars(
                    select(_DELIVERY)
                    .where(_DELIVERY.user_id == user_id)
                    .order_by(_DELIVERY.created_at.desc(), _DELIVERY.id)
                    .offset(offset)
                    .limit(limit)
                )
            )
            attempts: dict[str, list[DeliveryAttempt]] = {row.id: [] for row in rows}
            if rows:
                found = await session.scalars(
                    select(WebhookAttemptRow)
                    .where(WebhookAttemptRow.delivery_id.in_(attempts))
                    .order_by(WebhookAttemptRow.attempted_at.desc(), WebhookAttemptRow.id)
                )
                for attempt in found:
                    if len(attempts[attempt.delivery_id]) < attempts_each:
                        attempts[attempt.delivery_id].append(_attempt(attempt))
            return [_delivery(row, tuple(attempts[row.id])) for row in rows]


class SqlSigningSecretStore:
    def __init__(self, sessions: Sessions, writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer

    async def sealed(self, user_id: str) -> str | None:
        async with self._sessions() as session:
            return await session.scalar(select(WebhookSecretRow.sealed).where(WebhookSecretRow.user_id == user_id))

    async def add_if_absent(self, user_id: str, sealed: str, at: datetime) -> None:
        async with self._writer.session() as session:
            table = WebhookSecretRow.__table__
            statement = upsert_insert(session.bind.dialect.name, table).values(user_id=user_id, sealed=sealed, created_at=at)
            await session.execute(statement.on_conflict_do_nothing(index_elements=[table.c.user_id]))
            await session.commit()

    async def replace(self, user_id: str, sealed: str, at: datetime) -> None:
        async with self._writer.session() as session:
            table = WebhookSecretRow.__table__
            statement = upsert_insert(session.bind.dialect.name, table).values(user_id=user_id, sealed=sealed, created_at=at)
            statement = statement.on_conflict_do_update(
                index_elements=[table.c.user_id], set_={"sealed": sealed, "created_at": at}
            )
            await session.execute(statement)
            await session.commit()

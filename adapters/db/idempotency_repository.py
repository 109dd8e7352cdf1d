"""The public API's Idempotency-Key records: claimed by an insert that the primary key
(user_id, key) guards, so concurrent duplicates in any process cannot both run."""

from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.api_tables import ApiIdempotencyRow
from adapters.db.engine import upsert_insert
from adapters.db.writer import SqlWriter
from application.ports.idempotency import KeyRecord, StoredReply

_KEYS = ApiIdempotencyRow.__table__


class SqlIdempotencyStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer

    async def claim(self, user_id: str, key: str, fingerprint: str, at: datetime) -> bool:
        async with self._writer.session() as session:
            statement = (
                upsert_insert(session.bind.dialect.name, _KEYS)
                .values(user_id=user_id, key=key, fingerprint=fingerprint, created_at=at)
                .on_conflict_do_nothing(index_elements=[_KEYS.c.user_id, _KEYS.c.key])
                .returning(_KEYS.c.key)
            )
            claimed = (await session.execute(statement)).scalar() is not None
            await session.commit()
        return claimed

    async def record(self, user_id: str, key: str) -> KeyRecord | None:
        async with self._sessions() as session:
            row = await session.get(ApiIdempotencyRow, (user_id, key), populate_existing=True)
            if row is None:
                return None
            reply = None
            if row.status_code is not None:
                reply = StoredReply(row.status_code, (row.body or "").encode(), json.loads(row.headers or "{}"))
            return KeyRecord(row.fingerprint, row.created_at, reply)

    async def complete(self, user_id: str, key: str, reply: StoredReply) -> None:
        await self._writer.execute(
            update(ApiIdempotencyRow)
            .where(ApiIdempotencyRow.user_id == user_id, ApiIdempotencyRow.key == key)
            .values(status_code=reply.status_code, body=reply.body.decode(), headers=json.dumps(reply.headers))
        )

    async def release(self, user_id: str, key: str) -> None:
        await self._writer.execute(
            delete(ApiIdempotencyRow).where(
                ApiIdempotencyRow.user_id == user_id, ApiIdempotencyRow.key == key, ApiIdempotencyRow.status_code.is_(None)
            )
        )

    async def expire(self, user_id: str, key: str, created_before: datetime) -> None:
        await self._writer.execute(
            delete(ApiIdempotencyRow).where(
                ApiIdempotencyRow.user_id == user_id, ApiIdempotencyRow.key == key,
                ApiIdempotencyRow.created_at < created_before,
            )
        )

    async def purge(self, created_before: datetime) -> int:
        async with self._writer.session() as session:
            result = await session.execute(delete(ApiIdempotencyRow).where(ApiIdempotencyRow.created_at < created_before))
            await session.commit()
        return result.rowcount

"""The public API's keys, plans and daily counts in the database. The daily count is one
conditional upsert per request, like the monthly quota (search_repositories.charge_statement)."""

from __future__ import annotations

import functools
import hashlib
import uuid
from datetime import datetime


from sqlalchemy import bindparam, delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.api_tables import ApiAnswerRow, ApiDailyUsageRow, ApiKeyRow, ApiPlanRow
from adapters.db.engine import upsert_insert
from adapters.db.writer import SqlWriter
from adapters.db.result_codec import decode_result, encode_result
from application.ports.public_api import ApiKeyRecord, StoredAnswer
from domain.lookup_result import LookupResult
from domain.api_access import DEFAULT_PLAN, LAST_USED_PRECISION, ApiScope, Plan, UserPlan

Sessions = async_sessionmaker[AsyncSession]
_USAGE = ApiDailyUsageRow.__table__


def _record(row: ApiKeyRow) -> ApiKeyRecord:
    return ApiKeyRecord(
        id=row.id,
        user_id=row.user_id,
        name=row.name,
        prefix=row.prefix,
        key_hash=row.key_hash,
        scopes=frozenset(ApiScope(word) for word in row.scopes.split()),
        created_at=row.created_at,
        last_used_at=row.last_used_at,
        revoked_at=row.revoked_at,
    )


class SqlApiKeyStore:
    def __init__(self, sessions: Sessions, writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer

    async def add(self, record: ApiKeyRecord) -> None:
        async with self._writer.session() as session:
            session.add(
                ApiKeyRow(
                    id=record.id,
                    user_id=record.user_id,
                    name=record.name,
                    prefix=record.prefix,
                    key_hash=record.key_hash,
                    scopes=" ".join(sorted(record.scopes)),
                    created_at=record.created_at,
                )
            )
            await session.commit()

    async def active_for(self, user_id: str) -> list[ApiKeyRecord]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(ApiKeyRow)
                .where(ApiKeyRow.user_id == user_id, ApiKeyRow.revoked_at.is_(None))
                .order_by(ApiKeyRow.created_at.desc(), ApiKeyRow.id)
            )
            return [_record(row) for row in rows]

    async def by_hash(self, key_hash: str) -> ApiKeyRecord | None:
        async with self._sessions() as session:
            row = await session.scalar(select(ApiKeyRow).where(ApiKeyRow.key_hash == key_hash))
            return _record(row) if row else None

    async def by_id(self, key_id: str) -> ApiKeyRecord | None:
        async with self._sessions() as session:
            row = await session.get(ApiKeyRow, key_id)
            return _record(row) if row else None

    async def revoke(self, user_id: str, key_id: str, at: datetime) -> bool:
        async with self._writer.session() as session:
            result = await session.execute(
                update(ApiKeyRow)
                .where(ApiKeyRow.id == key_id, ApiKeyRow.user_id == user_id, ApiKeyRow.revoked_at.is_(None))
                .values(revoked_at=at)
            )
            await session.commit()
        return result.rowcount == 1

    async def mark_used(self, key_id: str, at: datetime) -> None:
        # Conditional, so concurrent first uses of a minute write it once.
        async with self._writer.session() as session:
            await session.execute(
                update(ApiKeyRow)
                .where(
                    ApiKeyRow.id == key_id,
                    or_(ApiKeyRow.last_used_at.is_(None), ApiKeyRow.last_used_at <= at - LAST_USED_PRECISION),
                )
                .values(last_used_at=at)
            )
            await session.commit()


class SqlPlanStore:
    def __init__(self, sessions: Sessions, writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer

    async def plan_of(self, user_id: str) -> UserPlan:
        async with self._sessions() as session:
            row = await session.get(ApiPlanRow, user_id)
            return UserPlan(Plan(row.plan), row.daily_limit) if row else DEFAULT_PLAN

    async def set_plan(self, user_id: str, plan: UserPlan) -> None:
        async with self._writer.session() as session:
            await session.execute(delete(ApiPlanRow).where(ApiPlanRow.user_id == user_id))
            session.add(ApiPlanRow(user_id=user_id, plan=plan.plan.value, daily_limit=plan.custom_daily_limit))
            await session.commit()


@functools.cache
def daily_charge_statement(dialect_name: str):  # noqa: ANN201
    """One statement counts `count` requests (a batch's addresses at once): the day's first
    inserts its row, later ones add only while the sum stays within the limit; no row comes back
    when it would not, and then nothing is counted. Parameters: user_id, day, count, limit.
    The caller refuses a first insert above the limit (the insert itself has no condition)."""
    statement = upsert_insert(dialect_name, _USAGE).values(
        user_id=bindparam("user_id"), day=bindparam("day"), used=bindparam("count")
    )
    statement = statement.on_conflict_do_update(
        index_elements=[_USAGE.c.user_id, _USAGE.c.day],
        set_={"used": _USAGE.c.used + bindparam("count")},
        where=_USAGE.c.used + bindparam("count") <= bindparam("limit"),
    )
    return statement.returning(_USAGE.c.used)


class SqlDailyUsageLedger:
    def __init__(self, sessions: Sessions, writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer

    async def charge(self, user_id: str, day: str, limit: int, count: int = 1) -> int | None:
        if count < 1 or count > limit:  # the insert of a day's first request has no condition
            return None
        async with self._writer.session() as session:
            statement = daily_charge_statement(session.bind.dialect.name)
            values = {"user_id": user_id, "day": day, "limit": limit, "count": count}
            used = (await session.execute(statement, values)).scalar()
            await session.commit()
        return used

    async def release(self, user_id: str, day: str, count: int = 1) -> None:
        await self._writer.execute(
            update(ApiDailyUsageRow)
            .where(ApiDailyUsageRow.user_id == user_id, ApiDailyUsageRow.day == day, ApiDailyUsageRow.used >= count)
            .values(used=ApiDailyUsageRow.used - count)
        )

    async def used(self, user_id: str, day: str) -> int:
        async with self._sessions() as session:
            used = await session.scalar(
                select(ApiDailyUsageRow.used).where(ApiDailyUsageRow.user_id == user_id, ApiDailyUsageRow.day == day)
            )
        return used or 0

    async def totals(self, day: str) -> tuple[int, int]:
        async with self._sessions() as session:
            row = (
                await session.execute(
                    select(func.coalesce(func.sum(ApiDailyUsageRow.used), 0), func.count())
                    .where(ApiDailyUsageRow.day == day, ApiDailyUsageRow.used > 0)
                )
            ).one()
        return int(row[0]), int(row[1])


def _address_hash(address: str) -> str:
    return hashlib.sha256(address.encode()).hexdigest()


class SqlApiAnswerStore:
    def __init__(self, sessions: Sessions, writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer

    async def add(self, user_id: str, address: str, answer: LookupResult, at: datetime) -> None:
        async with self._writer.session() as session:
            session.add(
                ApiAnswerRow(
                    id=str(uuid.uuid4()),
                    user_id=user_id,
                    address_hash=_address_hash(address),
                    address=address[:1000],
                    result_json=encode_result(answer),
                    created_at=at,
                )
            )
            await session.commit()

    async def history(
        self, user_id: str, address: str, since: datetime, until: datetime, limit: int, offset: int = 0
    ) -> list[StoredAnswer]:
        async with self._sessions() as session:
            rows = await session.execute(
                select(ApiAnswerRow.created_at, ApiAnswerRow.result_json)
                .where(
                    ApiAnswerRow.user_id == user_id,
                    ApiAnswerRow.address_hash == _address_hash(address),
                    ApiAnswerRow.address == address[:1000],
                    ApiAnswerRow.created_at >= since,
                    ApiAnswerRow.created_at < until,
                )
                .order_by(ApiAnswerRow.created_at.desc(), ApiAnswerRow.id)
                .offset(offset)
                .limit(limit)
            )
            return [StoredAnswer(row.created_at, decode_result(row.result_json)) for row in rows]

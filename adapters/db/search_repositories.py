"""Stored searches and the monthly quota ledger."""

from __future__ import annotations

import functools
from datetime import datetime

from sqlalchemy import and_, bindparam, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.account_tables import MonthlyUsageRow, SearchRow
from adapters.db.engine import upsert_insert
from adapters.db.writer import SqlWriter
from adapters.db.result_codec import decode_result, decode_typed, encode_result
from application.ports.lookup import StoredSearch
from domain.lookup_result import LookupResult

Sessions = async_sessionmaker[AsyncSession]


# The lookup's hot statements are built once, against the tables rather than the ORM classes,
# and run with parameters: building them per request cost more than running them.
INSERT_SEARCH = insert(SearchRow.__table__)
_USAGE = MonthlyUsageRow.__table__


def search_row(search: StoredSearch) -> dict:
    return {
        "id": search.id,
        "user_id": search.user_id,
        "kind": search.kind,
        "address": search.address[:500],
        "building_key": search.building_key,
        "occupant_count": search.occupant_count,
        # msgspec: compact JSON, several times faster than json.dumps for a 20 kB answer.
        "result_json": encode_result(search.result),
        "created_at": search.created_at,
    }


@functools.cache
def charge_statement(dialect_name: str, limited: bool):  # noqa: ANN201
    """One statement counts a search, so concurrent requests can never overspend: a month's first
    search inserts its row at 1, later ones add 1 only while under the limit. No row comes back
    when the limit is used up. Parameters: user_id, month and (when limited) limit."""
    statement = upsert_insert(dialect_name, _USAGE).values(user_id=bindparam("user_id"), month=bindparam("month"), used=1)
    statement = statement.on_conflict_do_update(
        index_elements=[_USAGE.c.user_id, _USAGE.c.month],
        set_={"used": _USAGE.c.used + 1},
        where=(_USAGE.c.used < bindparam("limit")) if limited else None,
    )
    return statement.returning(_USAGE.c.used)


def charge_parameters(user_id: str, month: str, limit: int | None) -> dict:
    return {"user_id": user_id, "month": month, **({"limit": limit} if limit is not None else {})}


async def charge_one(session: AsyncSession, user_id: str, month: str, limit: int | None) -> bool:
    charge = charge_statement(session.bind.dialect.name, limit is not None)
    return (await session.execute(charge, charge_parameters(user_id, month, limit))).first() is not None


# Parameters: building_key, since.
LATEST_ANSWER = (
    select(SearchRow.result_json)
    .where(
        SearchRow.building_key == bindparam("building_key"),
        SearchRow.created_at >= bindparam("since", type_=SearchRow.created_at.type),
        SearchRow.kind == "single",
        SearchRow.result_json.is_not(None),
    )
    .order_by(SearchRow.created_at.desc())
    .limit(1)
)
# Parameters: user_id, month.
USED = select(_USAGE.c.used).where(_USAGE.c.user_id == bindparam("user_id"), _USAGE.c.month == bindparam("month"))


def _stored(row: SearchRow) -> StoredSearch:
    return StoredSearch(
        id=row.id,
        user_id=row.user_id,
        kind=row.kind,
        address=row.address,
        occupant_count=row.occupant_count,
        result=decode_result(row.result_json),
        created_at=row.created_at,
        building_key=row.building_key,
    )


class SqlSearchStore:
    def __init__(self, sessions: Sessions, writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer

    def close(self) -> None:
        """Nothing of its own to release: the engine is disposed by its owner."""

    async def add(self, search: StoredSearch) -> None:
        async with self._writer.session() as session:
            await session.execute(INSERT_SEARCH, search_row(search))
            await session.commit()

    async def add_charged(self, search: StoredSearch, month: str, limit: int | None) -> bool:
        async with self._writer.session() as session:
            if not await charge_one(session, search.user_id, month, limit):
                await session.rollback()
                return False
            await session.execute(INSERT_SEARCH, search_row(search))
            await session.commit()
        return True

    async def used(self, user_id: str, month: str) -> int:
        async with self._sessions() as session:
            used = await session.scalar(USED, {"user_id": user_id, "month": month})
        return used or 0

    async def latest_answer(self, building_key: str, since: datetime) -> LookupResult | None:
        async with self._sessions() as session:
            stored = await session.scalar(LATEST_ANSWER, {"building_key": building_key, "since": since})
        return decode_typed(stored)

    async def recent(self, user_id: str, limit: int) -> list[StoredSearch]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(SearchRow).where(SearchRow.user_id == user_id).order_by(SearchRow.created_at.desc()).limit(limit)
            )
            return [_stored(row) for row in rows]

    async def get(self, user_id: str, search_id: str) -> StoredSearch | None:
        async with self._sessions() as session:
            row = await session.scalar(select(SearchRow).where(SearchRow.id == search_id, SearchRow.user_id == user_id))
            return _stored(row) if row else None

    async def neighbours(self, user_id: str, search: StoredSearch) -> tuple[str | None, str | None]:
        mine = and_(SearchRow.user_id == user_id, SearchRow.kind == search.kind, SearchRow.id != search.id)
        # Ties on created_at are ordered by id, so stepping never skips or repeats a search.
        older = or_(SearchRow.created_at < search.created_at, and_(SearchRow.created_at == search.created_at, SearchRow.id < search.id))
        newer = or_(SearchRow.created_at > search.created_at, and_(SearchRow.created_at == search.created_at, SearchRow.id > search.id))
        async with self._sessions() as session:
            previous_id = await session.scalar(
                select(SearchRow.id).where(mine, older).order_by(SearchRow.created_at.desc(), SearchRow.id.desc()).limit(1)
            )
            next_id = await session.scalar(
                select(SearchRow.id).where(mine, newer).order_by(SearchRow.created_at, SearchRow.id).limit(1)
            )
        return previous_id, next_id


class SqlQuotaLedger:
    def __init__(self, writer: SqlWriter) -> None:
        self._writer = writer

    async def reserve(self, user_id: str, month: str, limit: int | None) -> bool:
        async with self._writer.session() as session:
            granted = await charge_one(session, user_id, month, limit)
            await session.commit()
        return granted

    async def release(self, user_id: str, month: str) -> None:
        await self._writer.execute(
            update(MonthlyUsageRow)
            .where(MonthlyUsageRow.user_id == user_id, MonthlyUsageRow.month == month, MonthlyUsageRow.used > 0)
            .values(used=MonthlyUsageRow.used - 1)
        )

"""The monthly batch row ledger: rows are reserved with one conditional upsert, like searches."""

from __future__ import annotations

import functools

from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.batch_tables import BatchRowUsageRow
from adapters.db.engine import upsert_insert
from adapters.db.writer import SqlWriter

_USAGE = BatchRowUsageRow.__table__


@functools.cache
def reserve_statement(dialect_name: str, limited: bool):  # noqa: ANN201
    """A month's first batch inserts its row with its rows; later ones add theirs only while the
    total stays within the limit, so concurrent starts can never overspend. No row comes back
    when the rows do not fit. Parameters: user_id, month, rows and (when limited) limit."""
    statement = upsert_insert(dialect_name, _USAGE).values(
        user_id=bindparam("user_id"), month=bindparam("month"), rows_used=bindparam("rows")
    )
    statement = statement.on_conflict_do_update(
        index_elements=[_USAGE.c.user_id, _USAGE.c.month],
        set_={"rows_used": _USAGE.c.rows_used + bindparam("rows")},
        where=(_USAGE.c.rows_used + bindparam("rows") <= bindparam("limit")) if limited else None,
    )
    return statement.returning(_USAGE.c.rows_used)


class SqlBatchRowLedger:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer

    async def reserve(self, user_id: str, month: str, rows: int, limit: int | None) -> bool:
        parameters = {"user_id": user_id, "month": month, "rows": rows}
        if limit is not None:
            parameters["limit"] = limit
        async with self._writer.session() as session:
            statement = reserve_statement(session.bind.dialect.name, limit is not None)
            granted = (await session.execute(statement, parameters)).first() is not None
            await session.commit()
        return granted

    async def release(self, user_id: str, month: str, rows: int) -> None:
        async with self._writer.session() as session:
            await session.execute(
                update(BatchRowUsageRow)
                .where(BatchRowUsageRow.user_id == user_id, BatchRowUsageRow.month == month,
                       BatchRowUsageRow.rows_used >= rows)
                .values(rows_used=BatchRowUsageRow.rows_used - rows)
            )
            await session.commit()

    async def used(self, user_id: str, month: str) -> int:
        async with self._sessions() as session:
            used = await session.scalar(
                select(BatchRowUsageRow.rows_used)
                .where(BatchRowUsageRow.user_id == user_id, BatchRowUsageRow.month == month)
            )
        return used or 0

"""Read-only queries over all accounts for the administrators' pages."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.account_repositories import user_from_row
from adapters.db.account_tables import MonthlyUsageRow, SearchRow, UserRow
from application.ports.admin import SystemCounts
from domain.accounts import Role, User


def _searches_since(start: datetime):  # noqa: ANN202
    return func.count().filter(SearchRow.created_at >= start)


class SqlUserDirectory:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def all_users(self) -> list[User]:
        async with self._sessions() as session:
            rows = await session.scalars(select(UserRow).order_by(UserRow.created_at.desc(), UserRow.id))
            return [user_from_row(row) for row in rows]

    async def admin_count(self) -> int:
        async with self._sessions() as session:
            return await session.scalar(select(func.count()).where(UserRow.role == Role.ADMIN.value)) or 0

    async def counts(self, month: str, month_start: datetime, day_start: datetime, near_limit: int) -> SystemCounts:
        async with self._sessions() as session:
            total_users, admin_users = (
                await session.execute(
                    select(func.count(), func.count().filter(UserRow.role == Role.ADMIN.value)).select_from(UserRow)
                )
            ).one()
            total_searches, month_searches, day_searches = (
                await session.execute(
                    select(func.count(), _searches_since(month_start), _searches_since(day_start)).select_from(SearchRow)
                )
            ).one()
            near_limit_users = await session.scalar(
                select(func.count())
                .select_from(MonthlyUsageRow)
                .join(UserRow, UserRow.id == MonthlyUsageRow.user_id)
                .where(
                    MonthlyUsageRow.month == month,
                    MonthlyUsageRow.used >= near_limit,
                    UserRow.role == Role.USER.value,
                )
            )
        return SystemCounts(
            total_users=total_users,
            admin_users=admin_users,
            regular_users=total_users - admin_users,
            total_searches=total_searches,
            month_searches=month_searches,
            day_searches=day_searches,
            near_limit_users=near_limit_users or 0,
        )

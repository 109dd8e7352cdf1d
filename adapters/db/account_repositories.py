"""SQLAlchemy implementations of the account ports, and the unit of work that holds them."""

from __future__ import annotations

from contextlib import AsyncExitStack
from datetime import datetime
from typing import Self

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from adapters.db.account_tables import (
    ExternalIdentityRow,
    MonthlyUsageRow,
    PasswordResetRow,
    RefreshTokenRow,
    SearchRow,
    UserRow,
)
from adapters.db.writer import SqlWriter
from application.ports.accounts import PasswordResetRecord, RefreshTokenRecord, SearchActivity
from domain.accounts import Role, User


def user_from_row(row: UserRow) -> User:
    return User(
        id=row.id,
        email=row.email,
        display_name=row.display_name,
        photo_url=row.photo_url,
        role=Role(row.role),
        created_at=row.created_at,
        password_hash=row.password_hash,
    )


class SqlUserRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def add(self, user: User) -> None:
        self._session.add(
            UserRow(
                id=user.id,
                email=user.email,
                display_name=user.display_name,
                photo_url=user.photo_url,
                role=user.role.value,
                password_hash=user.password_hash,
                created_at=user.created_at,
            )
        )
        await self._session.flush()

    async def by_id(self, user_id: str) -> User | None:
        row = await self._session.get(UserRow, user_id)
        return user_from_row(row) if row else None

    async def by_email(self, email: str) -> User | None:
        row = await self._session.scalar(select(UserRow).where(UserRow.email == email))
        return user_from_row(row) if row else None

    async def update_profile(self, user_id: str, display_name: str | None, photo_url: str | None) -> None:
        await self._set(user_id, display_name=display_name, photo_url=photo_url)

    async def set_password_hash(self, user_id: str, password_hash: str) -> None:
        await self._set(user_id, password_hash=password_hash)

    async def set_role(self, user_id: str, role: Role) -> None:
        await self._set(user_id, role=role.value)

    async def _set(self, user_id: str, **values: object) -> None:
        await self._session.execute(update(UserRow).where(UserRow.id == user_id).values(**values))

    async def by_external_identity(self, issuer: str, subject: str) -> User | None:
        row = await self._session.scalar(
            select(UserRow)
            .join(ExternalIdentityRow, ExternalIdentityRow.user_id == UserRow.id)
            .where(ExternalIdentityRow.issuer == issuer, ExternalIdentityRow.subject == subject)
        )
        return user_from_row(row) if row else None

    async def link_external_identity(self, user_id: str, issuer: str, subject: str) -> None:
        self._session.add(ExternalIdentityRow(user_id=user_id, issuer=issuer, subject=subject))
        await self._session.flush()


class SqlRefreshTokenRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def add(self, record: RefreshTokenRecord) -> None:
        self._session.add(
            RefreshTokenRow(
                id=record.id,
                user_id=record.user_id,
                family_id=record.family_id,
                token_hash=record.token_hash,
                persistent=record.persistent,
                expires_at=record.expires_at,
                revoked_at=record.revoked_at,
            )
        )
        await self._session.flush()

    async def by_hash(self, token_hash: str) -> RefreshTokenRecord | None:
        row = await self._session.scalar(select(RefreshTokenRow).where(RefreshTokenRow.token_hash == token_hash))
        if row is None:
            return None
        return RefreshTokenRecord(
            id=row.id,
            user_id=row.user_id,
            family_id=row.family_id,
            token_hash=row.token_hash,
            expires_at=row.expires_at,
            persistent=row.persistent,
            revoked_at=row.revoked_at,
        )

    async def revoke(self, token_id: str, at: datetime) -> bool:
        result = await self._session.execute(
            update(RefreshTokenRow)
            .where(RefreshTokenRow.id == token_id, RefreshTokenRow.revoked_at.is_(None))
            .values(revoked_at=at)
        )
        return result.rowcount == 1

    async def revoked_at(self, token_id: str) -> datetime | None:
        # A column, not the row: the session's copy of the row may predate a concurrent rotation.
        return await self._session.scalar(select(RefreshTokenRow.revoked_at).where(RefreshTokenRow.id == token_id))

    async def family_alive(self, family_id: str, now: datetime) -> bool:
        alive = await self._session.scalar(
            select(RefreshTokenRow.id).where(
                RefreshTokenRow.family_id == family_id, RefreshTokenRow.revoked_at.is_(None),
                RefreshTokenRow.expires_at > now,
            ).limit(1)
        )
        return alive is not None

    async def revoke_family(self, family_id: str, at: datetime) -> None:
        await self._session.execute(
            update(RefreshTokenRow)
            .where(RefreshTokenRow.family_id == family_id, RefreshTokenRow.revoked_at.is_(None))
            .values(revoked_at=at)
        )

    async def revoke_all_for_user(self, user_id: str, at: datetime, except_family: str | None = None) -> None:
        statement = update(RefreshTokenRow).where(RefreshTokenRow.user_id == user_id, RefreshTokenRow.revoked_at.is_(None))
        if except_family is not None:
            statement = statement.where(RefreshTokenRow.family_id != except_family)
        await self._session.execute(statement.values(revoked_at=at))


class SqlPasswordResetRepository:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def add(self, record: PasswordResetRecord) -> None:
        self._session.add(
            PasswordResetRow(
                id=record.id, user_id=record.user_id, token_hash=record.token_hash, expires_at=record.expires_at
            )
        )
        await self._session.flush()

    async def by_hash(self, token_hash: str) -> PasswordResetRecord | None:
        row = await self._session.scalar(select(PasswordResetRow).where(PasswordResetRow.token_hash == token_hash))
        if row is None:
            return None
        return PasswordResetRecord(
            id=row.id, user_id=row.user_id, token_hash=row.token_hash, expires_at=row.expires_at, used_at=row.used_at
        )

    async def mark_used(self, reset_id: str, at: datetime) -> bool:
        result = await self._session.execute(
            update(PasswordResetRow)
            .where(PasswordResetRow.id == reset_id, PasswordResetRow.used_at.is_(None))
            .values(used_at=at)
        )
        return result.rowcount == 1

    async def invalidate_unused(self, user_id: str, at: datetime) -> None:
        await self._session.execute(
            update(PasswordResetRow)
            .where(PasswordResetRow.user_id == user_id, PasswordResetRow.used_at.is_(None))
            .values(used_at=at)
        )


class SqlSearchActivityReader:
    def __init__(self, session: AsyncSession) -> None:
        self._session = session

    async def activity(self, user_id: str, month: str) -> SearchActivity:
        month_used = await self._session.scalar(
            select(MonthlyUsageRow.used).where(MonthlyUsageRow.user_id == user_id, MonthlyUsageRow.month == month)
        )
        total, last = (
            await self._session.execute(
                select(func.count(SearchRow.id), func.max(SearchRow.created_at)).where(SearchRow.user_id == user_id)
            )
        ).one()
        if isinstance(last, str):  # SQLite returns aggregates of datetimes as text
            last = datetime.fromisoformat(last)
        return SearchActivity(month_searches=month_used or 0, total_searches=total, last_search_at=last)


class SqlUnitOfWork:
    """One session, one transaction: repositories share it; leaving without commit rolls back.

    Every unit of work is a write transaction of the process's one writer: most read before they
    write, and on SQLite such a transaction must hold the write lock from its start (see writer.py).
    Each is a few statements long, so the read-only ones queue for little."""

    def __init__(self, writer: SqlWriter) -> None:
        self._writer = writer

    async def __aenter__(self) -> Self:
        self._exit_stack = AsyncExitStack()
        self.session = await self._exit_stack.enter_async_context(self._writer.session())
        self.users = SqlUserRepository(self.session)
        self.refresh_tokens = SqlRefreshTokenRepository(self.session)
        self.password_resets = SqlPasswordResetRepository(self.session)
        self.search_activity = SqlSearchActivityReader(self.session)
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            await self.session.rollback()
        finally:
            await self._exit_stack.__aexit__(*exc)  # closes the session, gives up the turn

    async def commit(self) -> None:
        await self.session.commit()

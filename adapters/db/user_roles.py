"""Roles read from the users table through a short in-process cache.

The lookup's hot path asks for the caller's role on every request; a few seconds of caching
keeps that off the database. A change made in this process is seen at once (`forget`), one
made by another process (the CLI, a second server) within CACHE_SECONDS."""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.account_tables import UserRow
from domain.accounts import Role

CACHE_SECONDS = 2.0
CACHE_SIZE = 10_000


class CachedUserRoles:
    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._sessions = sessions
        self._monotonic = monotonic
        self._cached: dict[str, tuple[float, Role | None]] = {}

    async def role_of(self, user_id: str) -> Role | None:
        cached = self._cached.get(user_id)
        if cached is not None and self._monotonic() - cached[0] < CACHE_SECONDS:
            return cached[1]
        async with self._sessions() as session:
            value = await session.scalar(select(UserRow.role).where(UserRow.id == user_id))
        role = Role(value) if value is not None else None
        if len(self._cached) >= CACHE_SIZE:
            self._cached.clear()
        self._cached[user_id] = (self._monotonic(), role)
        return role

    def forget(self, user_id: str) -> None:
        self._cached.pop(user_id, None)

"""System settings in the database, read through a short in-process cache."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.engine import upsert_insert
from adapters.db.settings_tables import SETTINGS_ROW_ID, SystemSettingsRow
from adapters.db.writer import SqlWriter
from application.ports.clock import Clock
from domain.system_settings import SystemSettings

# Every lookup reads the settings; a few seconds of caching keeps that off the database, and
# other server processes see a change within this time.
CACHE_SECONDS = 5.0


class SqlSystemSettingsStore:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        writer: SqlWriter,
        defaults: SystemSettings,
        clock: Clock,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._sessions = sessions
        self._writer = writer
        self._defaults = defaults  # until an administrator saves, from the environment
        self._clock = clock
        self._monotonic = monotonic
        self._cached: tuple[float, SystemSettings] | None = None
        self._reading = asyncio.Lock()
        self._saves = 0  # a read that began before a save must not put back what it read

    def _fresh(self) -> SystemSettings | None:
        if self._cached and self._monotonic() - self._cached[0] < CACHE_SECONDS:
            return self._cached[1]
        return None

    async def current(self) -> SystemSettings:
        if (settings := self._fresh()) is not None:
            return settings
        # When the cache expires under load, one request reads the row for all that arrive
        # meanwhile (#29: each of them read it, a burst of reads every five seconds).
        async with self._reading:
            if (settings := self._fresh()) is not None:
                return settings
            saves = self._saves
            async with self._sessions() as session:
                row = await session.get(SystemSettingsRow, SETTINGS_ROW_ID)
                settings = self._defaults if row is None else _settings(row)
            if saves == self._saves:
                self._cached = (self._monotonic(), settings)
            return settings

    async def save(self, settings: SystemSettings, saved_by: str) -> None:
        values = {
            "monthly_search_limit": settings.monthly_search_limit,
            "rate_limiting": settings.rate_limiting,
            "search_caching": settings.search_caching,
            "monthly_batch_row_limit": settings.monthly_batch_row_limit,
            "require_admin_mfa": settings.require_admin_mfa,
            "updated_at": self._clock.now(),
            "updated_by": saved_by,
        }
        async with self._writer.session() as session:
            statement = upsert_insert(session.bind.dialect.name, SystemSettingsRow).values(id=SETTINGS_ROW_ID, **values)
            await session.execute(statement.on_conflict_do_update(index_elements=["id"], set_=values))
            await session.commit()
        self._saves += 1
        self._cached = (self._monotonic(), settings)


def _settings(row: SystemSettingsRow) -> SystemSettings:
    return SystemSettings(
        monthly_search_limit=row.monthly_search_limit,
        rate_limiting=row.rate_limiting,
        search_caching=row.search_caching,
        monthly_batch_row_limit=row.monthly_batch_row_limit,
        require_admin_mfa=row.require_admin_mfa,
    )

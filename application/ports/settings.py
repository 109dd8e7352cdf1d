"""The administrator's system settings, as saved."""

from __future__ import annotations

from typing import Protocol

from domain.system_settings import SystemSettings


class SystemSettingsStore(Protocol):
    """The administrator's settings; every process reads the saved values."""

    async def current(self) -> SystemSettings: ...
    async def save(self, settings: SystemSettings, saved_by: str) -> None: ...

"""The per-user request rate limit that 'Enable API Rate Limiting' switches on and off."""

from __future__ import annotations

from application.errors import TooManyRequests
from application.ports.settings import SystemSettingsStore
from application.ports.throttling import RequestWindow

TOO_MANY_REQUESTS = "Too many requests. Please wait a minute and try again."
MINUTE = 60


class RequestRateLimit:
    def __init__(self, settings: SystemSettingsStore, window: RequestWindow, per_minute: int) -> None:
        self._settings = settings
        self._window = window  # shared by every server process (database or Redis)
        self._per_minute = per_minute

    async def admit(self, user_id: str) -> None:
        if not (await self._settings.current()).rate_limiting:
            return
        wait = await self._window.admit(f"requests:{user_id}", self._per_minute, MINUTE)
        if wait:
            raise TooManyRequests(TOO_MANY_REQUESTS, retry_after=wait, details={"limit": self._per_minute})

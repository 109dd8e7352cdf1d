"""The per-user request rate limit that 'Enable API Rate Limiting' switches on and off."""

from __future__ import annotations

from application.errors import TooManyRequests
from application.ports.settings import SystemSettingsStore
from application.ports.throttling import AttemptLimiter

TOO_MANY_REQUESTS = "Too many requests. Please wait a minute and try again."


class RequestRateLimit:
    def __init__(self, settings: SystemSettingsStore, window: AttemptLimiter) -> None:
        self._settings = settings
        self._window = window  # counts every admitted request per user

    async def admit(self, user_id: str) -> None:
        if not (await self._settings.current()).rate_limiting:
            return
        if self._window.blocked(user_id):
            raise TooManyRequests(TOO_MANY_REQUESTS)
        self._window.record_failure(user_id)

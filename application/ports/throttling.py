"""Counting attempts per key, so guessing (passwords, codes) and mail floods are slowed down."""

from __future__ import annotations

from typing import Protocol

from domain.throttling import ThrottleRule


class AttemptThrottle(Protocol):
    """Attempts per key under a `ThrottleRule`, shared by every server process. `attempt` reserves
    before the work it guards (a password check, a mail), atomically, so concurrent attempts can
    never all slip through; it returns 0 when admitted, else the seconds to wait."""

    async def attempt(self, key: str, rule: ThrottleRule) -> float: ...
    async def refund(self, key: str) -> None:
        """Take back one admitted attempt (it succeeded), so only failures add up."""
        ...
    async def clear(self, key: str) -> None: ...


class RequestWindow(Protocol):
    """Requests per key in fixed windows of `window_seconds` (aligned to the epoch), shared by every
    server process. `admit` counts one request against `limit`, check and count in one atomic step,
    so concurrent requests in any number of processes never get more than `limit` per window;
    it returns 0 when admitted, else the seconds until the window ends."""

    async def admit(self, key: str, limit: int, window_seconds: int) -> float: ...

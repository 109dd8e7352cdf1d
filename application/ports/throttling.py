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


class AttemptLimiter(Protocol):
    """Counts failures per key in a sliding window."""

    def blocked(self, key: str) -> bool: ...
    def record_failure(self, key: str) -> None: ...
    def reset(self, key: str) -> None: ...

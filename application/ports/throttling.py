"""Counting attempts per key, so guessing (passwords, codes) and mail floods are slowed down."""

from __future__ import annotations

from dataclasses import dataclass
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

    # Optional attribute, True when the windows live in the database the searches are written
    # to, so a `WindowCount` can be counted inside a search's own transaction (SearchStore).
    # rides_on_writes: bool


@dataclass(frozen=True, slots=True)
class WindowCount:
    """One request to count in `key`'s fixed window, inside the transaction of the write it comes
    with (a single lookup's charge and stored search, #29), instead of a write of its own: the
    same check and count as `RequestWindow.admit`, at `at` (epoch seconds, the time of that write)."""

    key: str
    limit: int
    window_seconds: int
    at: float = 0.0

    @property
    def window_start(self) -> float:
        return self.at - self.at % self.window_seconds

    def wait_when_full(self) -> float:
        """The seconds until the window ends, as `admit` says them when it refuses."""
        return max(self.window_start + self.window_seconds - self.at, 1.0)


class WindowFull(Exception):
    """A `WindowCount` refused where it rode on another write: that write is not made either."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"request window full for {wait:.0f} s")
        self.wait = wait

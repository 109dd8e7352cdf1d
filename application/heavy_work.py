"""A cap on each user's heavy work at once: detailed downloads (converted row by row as they
stream) and legacy searches (every row of an upload answered in one request). Without it, one
user's eight XLSX downloads at once held every server thread and slowed /health for everyone.

The cap is an `AttemptThrottle` (database or Redis: shared by every server process, checked and
counted atomically): a piece of work takes an attempt when it starts and gives it back when it
ends, so at most `per_user` are admitted at once. A server that dies mid-download cannot give
its attempt back; the key starts over after `hold_seconds` without a new start."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

from application.errors import TooManyRequests
from application.ports.throttling import AttemptThrottle
from domain.throttling import ThrottleRule

PER_USER = 2
HOLD_SECONDS = 600
RETRY_AFTER_SECONDS = 10  # a download or search that holds a place usually ends within seconds
BUSY = {
    "download": "You have {n} downloads being prepared. Wait for one to finish, then try again.",
    "search": "You have {n} searches running. Wait for one to finish, then try again.",
}

End = Callable[[], Awaitable[None]]


class HeavyWork:
    def __init__(self, throttle: AttemptThrottle, per_user: int = PER_USER, hold_seconds: int = HOLD_SECONDS) -> None:
        self._throttle = throttle
        self._per_user = per_user
        self._rule = ThrottleRule(free=per_user, window_seconds=hold_seconds, first_wait_seconds=hold_seconds,
                                  max_wait_seconds=hold_seconds)

    async def begin(self, user_id: str, kind: str) -> End:
        """Take one of the user's places for `kind` (a TooManyRequests when all are taken); the
        returned call gives it back."""
        key = f"heavy:{kind}:{user_id}"
        if await self._throttle.attempt(key, self._rule):
            raise TooManyRequests(BUSY[kind].format(n=self._per_user), retry_after=RETRY_AFTER_SECONDS,
                                  code="too_many_running", details={"limit": self._per_user})

        async def end() -> None:
            await self._throttle.refund(key)

        return end


async def ending_with(pieces: AsyncIterator[bytes], end: End) -> AsyncIterator[bytes]:
    """`pieces`, then `end()` once they are all sent, or the client has gone, or they failed."""
    try:
        async for piece in pieces:
            yield piece
    finally:
        await end()


class Uncapped:
    """No cap: for use-case tests that are not about it."""

    async def begin(self, user_id: str, kind: str) -> End:
        async def end() -> None:
            return None

        return end

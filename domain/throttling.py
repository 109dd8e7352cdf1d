"""Throttling attempts with exponential back-off (sign-in, sign-up, reset mails, contact).

A key gets `free` attempts; after them each attempt must wait, after the previous admitted one,
`first_wait_seconds` doubled for every attempt beyond the free ones, at most `max_wait_seconds`.
A key left alone for `window_seconds` starts over. Back-off rather than a lock-out: an owner
whose account is under attack waits at most `max_wait_seconds`, never indefinitely, while a
guesser gets one try per `max_wait_seconds`."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ThrottleRule:
    free: int
    window_seconds: int
    first_wait_seconds: int
    max_wait_seconds: int

    def __post_init__(self) -> None:
        if not 0 < self.first_wait_seconds <= self.max_wait_seconds <= self.window_seconds:
            raise ValueError("need 0 < first wait <= max wait <= window")

    def wait_after(self, attempts: int) -> float:
        """Seconds the next attempt must wait after `attempts` admitted ones."""
        if attempts < self.free:
            return 0.0
        doublings = attempts - self.free
        if doublings >= 32:
            return float(self.max_wait_seconds)
        return float(min(self.max_wait_seconds, self.first_wait_seconds * 2**doublings))

    @property
    def doublings_to_max(self) -> int:
        """Attempts beyond `free` after which the wait is always the maximum."""
        return max(0, math.ceil(math.log2(self.max_wait_seconds / self.first_wait_seconds)))


@dataclass(frozen=True, slots=True)
class ThrottleState:
    attempts: int
    last_attempt_at: float  # seconds since the epoch


def next_attempt(rule: ThrottleRule, state: ThrottleState | None, now: float) -> tuple[ThrottleState | None, float]:
    """The model every adapter implements atomically: (new state, 0) when the attempt is admitted,
    (None, seconds to wait) when it is refused (a refusal changes nothing)."""
    if state is None or state.last_attempt_at <= now - rule.window_seconds:
        return ThrottleState(1, now), 0.0
    wait = rule.wait_after(state.attempts)
    ready_at = state.last_attempt_at + wait
    if wait > 0 and ready_at > now:
        return None, ready_at - now
    return ThrottleState(state.attempts + 1, now), 0.0


def refunded(state: ThrottleState | None) -> ThrottleState | None:
    """An admitted attempt that turned out harmless (a correct password) no longer counts."""
    if state is None:
        return None
    return ThrottleState(max(0, state.attempts - 1), state.last_attempt_at)

"""How often each guarded action may be tried (domain/throttling.py explains the back-off)."""

from __future__ import annotations

from application.errors import TooManyRequests
from application.ports.throttling import AttemptThrottle
from domain.throttling import ThrottleRule

MINUTE, HOUR = 60, 3600

# Five guesses, then 30 s, 1, 2, 4, 8 min... at most one guess every 15 minutes for an account,
# from however many addresses.
LOGIN_PER_ACCOUNT = ThrottleRule(free=5, window_seconds=15 * MINUTE, first_wait_seconds=30, max_wait_seconds=15 * MINUTE)
# An office behind one address has several people signing in; a guesser spraying accounts does not.
LOGIN_PER_ADDRESS = ThrottleRule(free=20, window_seconds=15 * MINUTE, first_wait_seconds=MINUTE, max_wait_seconds=15 * MINUTE)



def signups_per_address_rule(per_hour: int) -> ThrottleRule:
    """Sign-ups from one address (PERILSCOPE_SIGNUPS_PER_ADDRESS_PER_HOUR): an office may sign up
    its team at once; a script creating accounts may not."""
    return ThrottleRule(free=per_hour, window_seconds=HOUR, first_wait_seconds=5 * MINUTE, max_wait_seconds=HOUR)


RESET_REQUESTS_PER_ADDRESS = ThrottleRule(free=10, window_seconds=HOUR, first_wait_seconds=5 * MINUTE, max_wait_seconds=HOUR)
# Reset mails one account receives: beyond these, requests are answered alike and send nothing.
RESET_MAILS_PER_ACCOUNT = ThrottleRule(free=3, window_seconds=HOUR, first_wait_seconds=10 * MINUTE, max_wait_seconds=HOUR)
CONTACT_PER_ADDRESS = ThrottleRule(free=5, window_seconds=HOUR, first_wait_seconds=10 * MINUTE, max_wait_seconds=HOUR)


async def throttled(throttle: AttemptThrottle, key: str, rule: ThrottleRule, what: str) -> None:
    """Reserve one attempt, or raise TooManyRequests saying how long to wait."""
    wait = await throttle.attempt(key, rule)
    if wait:
        raise TooManyRequests(f"Too many {what}. Please wait {describe_wait(wait)} and try again.", retry_after=wait)


def describe_wait(seconds: float) -> str:
    whole = max(1, round(seconds))
    if whole < 90:
        return f"{whole} second{'s' if whole != 1 else ''}"
    minutes = round(whole / 60)
    return f"{minutes} minutes"
# One-time codes tried at the second sign-in step, on enrolment and on turning it off: a
# 6-digit code has a million values, so five tries per 15 minutes leave a guesser nothing.
MFA_CODES = ThrottleRule(free=5, window_seconds=15 * MINUTE, first_wait_seconds=15 * MINUTE, max_wait_seconds=15 * MINUTE)

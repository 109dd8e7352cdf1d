"""System settings an administrator saves and the product enforces (DESIGN.md departs from
SPEC §2 here: the settings form is saved for real)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from domain.quota import DEFAULT_MONTHLY_LIMIT, NEAR_LIMIT_USED

MIN_MONTHLY_LIMIT = 1
MAX_MONTHLY_LIMIT = 100
# Batch rows a regular user may process per month (one upload holds at most 100,000 rows).
DEFAULT_MONTHLY_BATCH_ROWS = 10_000
MIN_MONTHLY_BATCH_ROWS = 1
MAX_MONTHLY_BATCH_ROWS = 1_000_000
CACHE_HOURS = 24  # a repeat lookup of the same building within this window is served from storage


class SettingsError(ValueError):
    """A setting outside its allowed range; the message is safe to show."""


@dataclass(frozen=True, slots=True)
class SystemSettings:
    monthly_search_limit: int = DEFAULT_MONTHLY_LIMIT
    rate_limiting: bool = True
    search_caching: bool = True
    monthly_batch_row_limit: int = DEFAULT_MONTHLY_BATCH_ROWS
    require_admin_mfa: bool = False  # administrators must sign in with a one-time code too

    def __post_init__(self) -> None:
        if not _whole_number_within(self.monthly_search_limit, MIN_MONTHLY_LIMIT, MAX_MONTHLY_LIMIT):
            raise SettingsError(
                f"The monthly search limit must be a whole number from {MIN_MONTHLY_LIMIT} to {MAX_MONTHLY_LIMIT}"
            )
        if not _whole_number_within(self.monthly_batch_row_limit, MIN_MONTHLY_BATCH_ROWS, MAX_MONTHLY_BATCH_ROWS):
            raise SettingsError(
                f"The monthly batch row allowance must be a whole number from {MIN_MONTHLY_BATCH_ROWS:,} "
                f"to {MAX_MONTHLY_BATCH_ROWS:,}"
            )


def _whole_number_within(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def near_limit_threshold(monthly_limit: int) -> int:
    """Searches used from which a regular user counts as near the limit: 8 of the default 10
    (SPEC §9), and the same 80% share when an administrator changes the limit."""
    return max(1, math.ceil(monthly_limit * NEAR_LIMIT_USED / DEFAULT_MONTHLY_LIMIT))

"""The monthly search quota of SPEC §4, §6 and §9."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

DEFAULT_MONTHLY_LIMIT = 10
WARNING_AT_REMAINING = 3  # 'Note: You have N searches remaining this month'
NEAR_LIMIT_USED = 8  # admins are warned about users with this many searches used


class UsageColour(StrEnum):
    GREEN = "green"
    YELLOW = "yellow"
    RED = "red"


def month_key(moment: datetime) -> str:
    """Quotas are counted per calendar month in UTC."""
    return f"{moment.year:04d}-{moment.month:02d}"


@dataclass(frozen=True, slots=True)
class Quota:
    """Used searches against a limit; a limit of None means unlimited (admins)."""

    used: int
    limit: int | None

    @property
    def remaining(self) -> int | None:
        return None if self.limit is None else max(self.limit - self.used, 0)

    @property
    def exhausted(self) -> bool:
        return self.remaining == 0

    @property
    def colour(self) -> UsageColour:
        remaining = self.remaining
        if remaining is None or remaining > 5:
            return UsageColour.GREEN
        return UsageColour.RED if remaining <= 2 else UsageColour.YELLOW

    @property
    def shows_warning(self) -> bool:
        return self.remaining is not None and self.remaining <= WARNING_AT_REMAINING

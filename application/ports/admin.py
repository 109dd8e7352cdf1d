"""Ports of administration (application/admin.py): every account and the system's counts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from domain.accounts import User


@dataclass(frozen=True, slots=True)
class SystemCounts:
    """SPEC §3 'System stats'."""

    total_users: int
    admin_users: int
    regular_users: int
    total_searches: int
    month_searches: int
    day_searches: int
    near_limit_users: int


class UserDirectory(Protocol):
    async def all_users(self) -> list[User]:
        """Every account, newest first."""
        ...

    async def admin_count(self) -> int: ...

    async def counts(self, month: str, month_start: datetime, day_start: datetime, near_limit: int) -> SystemCounts:
        """Users by role; searches in total, since the month's and the day's start; regular users
        with at least `near_limit` searches charged in `month`."""
        ...

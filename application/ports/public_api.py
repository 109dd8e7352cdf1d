"""The records and ports of the public API (application/api_keys.py, application/api_plans.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from domain.api_access import ApiScope, UserPlan
from domain.lookup_result import LookupResult


@dataclass(frozen=True, slots=True)
class ApiKeyRecord:
    id: str
    user_id: str
    name: str
    prefix: str  # the first characters of the key, to recognise it; never the whole key
    key_hash: str  # SHA-256 of the whole key
    scopes: frozenset[ApiScope]
    created_at: datetime
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class ApiKeyStore(Protocol):
    async def add(self, record: ApiKeyRecord) -> None: ...

    async def active_for(self, user_id: str) -> list[ApiKeyRecord]:
        """The user's keys that are not revoked, newest first."""
        ...

    async def by_hash(self, key_hash: str) -> ApiKeyRecord | None: ...

    async def by_id(self, key_id: str) -> ApiKeyRecord | None: ...

    async def revoke(self, user_id: str, key_id: str, at: datetime) -> bool:
        """Revoke one of the user's active keys; False when there is none with that id (another
        user's key, an unknown id, or revoked already)."""
        ...

    async def mark_used(self, key_id: str, at: datetime) -> None:
        """Record the key's use; may skip the write when it was recorded moments ago."""
        ...


class PlanStore(Protocol):
    async def plan_of(self, user_id: str) -> UserPlan:
        """The user's plan; Standard when none was ever set."""
        ...

    async def set_plan(self, user_id: str, plan: UserPlan) -> None: ...


class DailyUsageLedger(Protocol):
    async def charge(self, user_id: str, day: str, limit: int, count: int = 1) -> int | None:
        """Count `count` requests of `day` (a batch's addresses) in one atomic step, only while the
        day's count stays within `limit` (concurrent callers in any process can never pass it):
        the count after these, or None, with nothing counted, when refused."""
        ...

    async def release(self, user_id: str, day: str, count: int = 1) -> None:
        """Give back charged requests (their work was refused before it was done)."""
        ...

    async def used(self, user_id: str, day: str) -> int: ...

    async def totals(self, day: str) -> tuple[int, int]:
        """Requests charged on `day` across every user, and how many users made them."""
        ...


@dataclass(frozen=True, slots=True)
class StoredAnswer:
    answered_at: datetime
    answer: LookupResult | dict  # dict: an answer that no longer reads as a LookupResult


class ApiAnswerStore(Protocol):
    async def add(self, user_id: str, address: str, answer: LookupResult, at: datetime) -> None: ...

    async def history(
        self, user_id: str, address: str, since: datetime, until: datetime, limit: int, offset: int = 0
    ) -> list[StoredAnswer]:
        """The user's answers for exactly this address line with since <= time < until, newest first."""
        ...


@dataclass(frozen=True, slots=True)
class ApiCaller:
    """Who calls the public API: the key's owner, the key, and what it may do."""

    user_id: str
    key_id: str
    scopes: frozenset[ApiScope]


class ApiTokenIssuer(Protocol):
    """Short-lived bearer tokens for the public API. They name the key and its scopes and are
    made so that no web-session check accepts them (and no web token passes here)."""

    @property
    def lifetime_seconds(self) -> int: ...

    def issue(self, caller: ApiCaller) -> str: ...

    def verify(self, token: str) -> ApiCaller | None: ...

"""The monthly search quota and the per-minute rate limit, for every use case that spends them
(a single lookup, a batch, the older three-call flow)."""

from __future__ import annotations

from dataclasses import dataclass

from application.errors import NotAuthenticated, QuotaExceeded
from application.ports.accounts import AccessClaims, UserRoles
from application.ports.clock import Clock
from application.ports.lookup import QuotaLedger, SearchStore, StoredSearch
from application.ports.settings import SystemSettingsStore
from application.rate_limit import RequestRateLimit
from domain.accounts import Role
from domain.quota import month_key


def limit_reached_message(limit: int) -> str:
    return f"Monthly search limit reached: search limit reached ({limit} searches/month)"


def quota_exceeded(limit: int) -> QuotaExceeded:
    return QuotaExceeded(limit_reached_message(limit), details={"limit": limit})


@dataclass(frozen=True, slots=True)
class MonthlyCharge:
    """Where a search is (or will be) counted: the month, and the caller's limit then."""

    user_id: str
    month: str
    limit: int | None  # None: unlimited (administrators)


class SearchQuota:
    def __init__(
        self,
        ledger: QuotaLedger,
        searches: SearchStore,
        settings: SystemSettingsStore,
        rate_limit: RequestRateLimit,
        roles: UserRoles,
        clock: Clock,
    ) -> None:
        self._ledger = ledger
        self._searches = searches
        self._settings = settings
        self._rate_limit = rate_limit
        self._roles = roles
        self._clock = clock

    async def admit(self, caller: AccessClaims) -> None:
        """The per-user request rate limit, when the administrator has it switched on."""
        await self._rate_limit.admit(caller.user_id)

    async def limit_for(self, caller: AccessClaims) -> int | None:
        """None (unlimited) for admins, else the saved setting. The role is the stored one, so a
        demoted admin is limited from the next request."""
        role = await self._roles.role_of(caller.user_id)
        if role is None:
            raise NotAuthenticated("Your account no longer exists. Please sign up again.")
        if role is Role.ADMIN:
            return None
        return (await self._settings.current()).monthly_search_limit

    async def room_for_one(self, caller: AccessClaims) -> MonthlyCharge:
        """Admit the request and refuse early when the month is used up, before any provider is
        called; the binding count is `store_charged`."""
        await self.admit(caller)
        charge = MonthlyCharge(caller.user_id, month_key(self._clock.now()), await self.limit_for(caller))
        if charge.limit is not None and await self._searches.used(caller.user_id, charge.month) >= charge.limit:
            raise quota_exceeded(charge.limit)
        return charge

    async def store_charged(self, search: StoredSearch, charge: MonthlyCharge) -> None:
        """Count the search and store it in one transaction, or refuse with nothing stored."""
        if not await self._searches.add_charged(search, charge.month, charge.limit):
            raise quota_exceeded(charge.limit or 0)

    async def reserve(self, caller: AccessClaims) -> MonthlyCharge:
        """Count one search now (a batch); give it back with `release` if the work fails."""
        await self.admit(caller)
        charge = MonthlyCharge(caller.user_id, month_key(self._clock.now()), await self.limit_for(caller))
        if not await self._ledger.reserve(charge.user_id, charge.month, charge.limit):
            raise quota_exceeded(charge.limit or 0)
        return charge

    async def release(self, charge: MonthlyCharge) -> None:
        await self._ledger.release(charge.user_id, charge.month)

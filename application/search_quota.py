"""The monthly search quota and the per-minute rate limit, for every use case that spends them
(a single lookup, a batch, the older three-call flow)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from application.errors import NotAuthenticated, QuotaExceeded
from application.ports.accounts import AccessClaims, UserRoles
from application.ports.clock import Clock
from application.ports.lookup import QuotaLedger, SearchStore, StoredSearch
from application.ports.settings import SystemSettingsStore
from application.ports.throttling import WindowCount, WindowFull
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
    # The request's rate-limit count, still to be made with the charge (store_charged) or without
    # it (count_uncharged); None: already counted (Redis), or rate limiting is off.
    window: WindowCount | None = None


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
        """Refuse early, before any provider is called, when the rate limit's window is full or
        the month is used up; the binding counts are `store_charged`'s. Where the window lives in
        the database this only reads (#29): the request is counted in the charge's transaction,
        or by `count_uncharged` when the lookup ends without one. A request refused for its
        quota still counts against the rate limit, as every request that got this far does."""
        window = await self._rate_limit.deferred(caller.user_id)
        charge = MonthlyCharge(caller.user_id, month_key(self._clock.now()), await self.limit_for(caller), window)
        month = charge.month if charge.limit is not None else None
        if window is None:
            used, wait = (await self._searches.used(caller.user_id, month) if month else 0), 0.0
        else:
            used, wait = await self._searches.room(caller.user_id, month, self._now(window))
        if wait:
            raise self._rate_limit.refusal(wait)
        if charge.limit is not None and used >= charge.limit:
            await self.count_uncharged(charge)
            raise quota_exceeded(charge.limit)
        return charge

    async def store_charged(self, search: StoredSearch, charge: MonthlyCharge) -> None:
        """Count the request in its window, the search against the month, and store it, in one
        transaction; or refuse with nothing stored (a full window: nothing counted either)."""
        if charge.window is None:
            stored = await self._searches.add_charged(search, charge.month, charge.limit)
        else:
            try:
                stored = await self._searches.add_charged(search, charge.month, charge.limit, self._now(charge.window))
            except WindowFull as full:
                raise self._rate_limit.refusal(full.wait) from None
        if not stored:
            raise quota_exceeded(charge.limit or 0)

    async def count_uncharged(self, charge: MonthlyCharge) -> None:
        """A request that ends without a charge (not located, failed) counts against the rate
        limit all the same; 429 when the window filled up meanwhile."""
        if charge.window is None:
            return
        try:
            await self._searches.count_request(self._now(charge.window))
        except WindowFull as full:
            raise self._rate_limit.refusal(full.wait) from None

    def _now(self, window: WindowCount) -> WindowCount:
        """Counted in the window of the moment it is written, like `RequestWindow.admit`."""
        return replace(window, at=self._clock.now().timestamp())

    async def reserve(self, caller: AccessClaims) -> MonthlyCharge:
        """Count one search now (a batch); give it back with `release` if the work fails."""
        await self.admit(caller)
        charge = MonthlyCharge(caller.user_id, month_key(self._clock.now()), await self.limit_for(caller))
        if not await self._ledger.reserve(charge.user_id, charge.month, charge.limit):
            raise quota_exceeded(charge.limit or 0)
        return charge

    async def release(self, charge: MonthlyCharge) -> None:
        await self._ledger.release(charge.user_id, charge.month)

"""Plans and their daily request limits for the public API (SPEC §9): every address looked up
through /api/v1 is one request, counted atomically against the owner's plan and reset at UTC
midnight."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from application.ports.public_api import DailyUsageLedger, PlanStore
from application.errors import InvalidInput, NotFound, TooManyRequests
from application.ports.accounts import UserRoles
from application.ports.clock import Clock
from domain.api_access import Plan, PlanError, UserPlan, day_key, next_reset

USER_NOT_FOUND = "User not found"


@dataclass(frozen=True, slots=True)
class DailyStanding:
    """Where a caller stands today: what the X-RateLimit-* headers say."""

    plan: Plan
    limit: int
    used: int
    resets_at: datetime

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used, 0)


def daily_limit_reached(standing: DailyStanding, now: datetime, requested: int = 1) -> TooManyRequests:
    """429 for a request the day's remaining requests cannot pay for; a batch is refused whole."""
    wait = max(math.ceil((standing.resets_at - now).total_seconds()), 1)
    resets = f"It resets at {standing.resets_at.isoformat()} (UTC midnight); ask an administrator about a larger plan."
    if requested > 1 and standing.remaining > 0:
        message = (
            f"Daily API limit: this batch has {requested:,} addresses (one request each) and {standing.remaining:,} "
            f"of your {standing.plan.value} plan's {standing.limit:,} requests remain today. Nothing was charged: "
            f"send at most {standing.remaining:,} addresses now, or the rest after the reset. {resets}"
        )
    else:
        message = (
            f"Daily API limit reached: your {standing.plan.value} plan allows {standing.limit:,} requests a day. {resets}"
        )
    return TooManyRequests(
        message,
        retry_after=wait,
        code="daily_limit_reached",
        details={
            "limit": standing.limit, "remaining": standing.remaining, "reset": int(standing.resets_at.timestamp()),
            "requested": requested,
        },
    )


@dataclass(frozen=True, slots=True)
class ApiDayTotals:
    """The public API's use today (UTC) across the system, for the administrators' statistics."""

    requests: int
    callers: int


class ApiPlans:
    def __init__(self, plans: PlanStore, usage: DailyUsageLedger, roles: UserRoles, clock: Clock) -> None:
        self._plans = plans
        self._usage = usage
        self._roles = roles
        self._clock = clock

    async def plan_of(self, user_id: str) -> UserPlan:
        return await self._plans.plan_of(user_id)

    async def set_plan(self, user_id: str, plan: str, daily_limit: int | None) -> UserPlan:
        """An administrator's change, enforced from the owner's next request. The caller is
        checked as an administrator before this runs (application/admin.py)."""
        if plan not in {known.value for known in Plan}:
            raise InvalidInput(f"The plan must be one of: {', '.join(known.value for known in Plan)}.")
        try:
            chosen = UserPlan(Plan(plan), daily_limit)
        except PlanError as error:
            raise InvalidInput(str(error)) from error
        if await self._roles.role_of(user_id) is None:
            raise NotFound(USER_NOT_FOUND)
        await self._plans.set_plan(user_id, chosen)
        return chosen

    async def standing(self, user_id: str) -> DailyStanding:
        now = self._clock.now()
        plan = await self._plans.plan_of(user_id)
        used = await self._usage.used(user_id, day_key(now))
        return DailyStanding(plan.plan, plan.daily_limit, used, next_reset(now))

    async def charge(self, user_id: str, count: int = 1) -> DailyStanding:
        """Count `count` requests (one per address), or refuse them all (429) when fewer remain
        today: one conditional upsert, so no race between concurrent requests lets request
        limit+1 through, and a refused batch costs nothing."""
        now = self._clock.now()
        plan = await self._plans.plan_of(user_id)
        used = await self._usage.charge(user_id, day_key(now), plan.daily_limit, count)
        if used is None:
            used_now = min(await self._usage.used(user_id, day_key(now)), plan.daily_limit)
            raise daily_limit_reached(DailyStanding(plan.plan, plan.daily_limit, used_now, next_reset(now)), now, count)
        return DailyStanding(plan.plan, plan.daily_limit, used, next_reset(now))

    async def release(self, user_id: str, at: datetime, count: int = 1) -> None:
        """Give back requests charged at `at` whose work was refused (an address not located, a
        batch that could not be stored)."""
        await self._usage.release(user_id, day_key(at), count)

    async def today(self) -> ApiDayTotals:
        requests, callers = await self._usage.totals(day_key(self._clock.now()))
        return ApiDayTotals(requests, callers)

"""The public API's use cases (SPEC §7, /api/v1): each address looked up is one request against
the caller's daily plan, charged before any provider is called and given back when the address
cannot be found."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from application.api_keys import require_scope
from application.api_plans import ApiPlans, DailyStanding
from application.api_ports import ApiCaller
from application.errors import NotFound
from application.lookup import LookupService, is_located, not_located_message
from application.ports import Clock
from domain.api_access import ApiScope


@dataclass(frozen=True, slots=True)
class Assessment:
    answer: dict[str, Any]  # LookupService.answer's shape
    standing: DailyStanding


class PublicApi:
    def __init__(self, lookup: LookupService, plans: ApiPlans, clock: Clock) -> None:
        self._lookup = lookup
        self._plans = plans
        self._clock = clock

    async def standing(self, caller: ApiCaller) -> DailyStanding:
        return await self._plans.standing(caller.user_id)

    async def risk_assessment(self, caller: ApiCaller, text: str) -> Assessment:
        require_scope(caller, ApiScope.READ)
        address = self._lookup.parse(text)  # an address that cannot be read is never charged
        charged_at = self._clock.now()
        standing = await self._plans.charge(caller.user_id)
        try:
            answer = await self._lookup.answer(address, query=text.strip())
            if not is_located(answer):
                raise NotFound(not_located_message(address, answer["location"]["notes"]), code="address_not_found")
        except Exception:
            # Not found, or a provider failed: the caller got no answer, so it costs nothing.
            await self._plans.release(caller.user_id, charged_at)
            raise
        return Assessment(answer, standing)

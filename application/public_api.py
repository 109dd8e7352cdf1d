"""The public API's use cases (SPEC §7, /api/v1): each address looked up is one request against
the caller's daily plan, charged before any provider is called and given back when the address
cannot be found."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from application.api_keys import require_scope
from application.api_plans import ApiPlans, DailyStanding
from application.api_ports import ApiCaller
from application.errors import InvalidInput, NotFound
from application.lookup import LookupService, is_located, not_located_message
from application.ports import Clock
from domain.api_access import ApiScope, address_id, address_of

T = TypeVar("T")
COUNTRIES = {"US", "USA"}
ONLY_US = "Only addresses in the United States can be looked up: send country=US (or leave it out)."
UNKNOWN_ADDRESS_ID = "No address has this address_id: take one from GET /api/v1/search/address."
NO_MATCH = "No matching addresses: check the ZIP code and city, then try again. Nothing was charged."


@dataclass(frozen=True, slots=True)
class Candidate:
    address_id: str
    address: str  # the address line as read
    location: dict[str, Any]  # LookupService.locate's shape


@dataclass(frozen=True, slots=True)
class AddressSearch:
    candidates: list[Candidate]
    standing: DailyStanding


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

        async def answer() -> dict[str, Any]:
            found = await self._lookup.answer(address, query=text.strip())
            if not is_located(found):
                raise NotFound(not_located_message(address, found["location"]["notes"]), code="address_not_found")
            return found

        found, standing = await self._charged(caller, answer)
        return Assessment(found, standing)

    async def risk_for(self, caller: ApiCaller, identifier: str) -> Assessment:
        """The risk answer for an address_id of the address search."""
        text = address_of(identifier)
        if text is None:
            raise NotFound(UNKNOWN_ADDRESS_ID, code="address_not_found")
        return await self.risk_assessment(caller, text)

    async def search_address(self, caller: ApiCaller, query: str, limit: int, country: str) -> AddressSearch:
        """The address as read, with where it lies and how sure that is (its other possible
        counties inside `location.alternatives`); its address_id names it in later calls."""
        require_scope(caller, ApiScope.READ)
        if country.strip().upper() not in COUNTRIES:
            raise InvalidInput(ONLY_US, code="unsupported_country")
        address = self._lookup.parse(query)

        async def locate() -> dict[str, Any]:
            location = await self._lookup.locate(address)
            if location["county_fips"] is None and location["lat"] is None:
                raise NotFound(NO_MATCH, code="address_not_found")
            return location

        location, standing = await self._charged(caller, locate)
        candidates = [Candidate(address_id(address.one_line), address.one_line, location)]
        return AddressSearch(candidates[:limit], standing)

    async def _charged(self, caller: ApiCaller, work: Callable[[], Awaitable[T]]) -> tuple[T, DailyStanding]:
        """One request of the daily limit, charged before the work (so a refusal costs no provider
        call) and given back when the work fails: the caller got no answer."""
        charged_at = self._clock.now()
        standing = await self._plans.charge(caller.user_id)
        try:
            return await work(), standing
        except Exception:
            await self._plans.release(caller.user_id, charged_at)
            raise

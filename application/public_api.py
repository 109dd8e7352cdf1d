"""The public API's use cases (SPEC §7, /api/v1): each address looked up is one request against
the caller's daily plan, charged before any provider is called and given back when the address
cannot be found."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TypeVar

from application.api_keys import require_scope
from application.api_plans import ApiPlans, DailyStanding
from application.ports.public_api import ApiAnswerStore, ApiCaller, StoredAnswer
from application.errors import InvalidInput, NotFound
from application.lookup import LookupService, not_located_message
from application.pages import PageRequest, page_of
from application.ports.clock import Clock
from domain.api_access import ApiScope, address_id, address_of
from domain.lookup_result import Location, LookupResult

T = TypeVar("T")
COUNTRIES = {"US", "USA"}
ONLY_US = "Only addresses in the United States can be looked up: send country=US (or leave it out)."
UNKNOWN_ADDRESS_ID = "No address has this address_id: take one from GET /api/v1/search/address."
HISTORY_LIMIT = 100  # answers on a page of the history, at most (and by default)
DATES_REVERSED = "from_date is after to_date: send the earlier date as from_date."
NO_MATCH = "No matching addresses: check the ZIP code and city, then try again. Nothing was charged."


@dataclass(frozen=True, slots=True)
class Candidate:
    address_id: str
    address: str  # the address line as read
    location: Location


@dataclass(frozen=True, slots=True)
class AddressSearch:
    candidates: list[Candidate]
    standing: DailyStanding


@dataclass(frozen=True, slots=True)
class Assessment:
    answer: LookupResult
    standing: DailyStanding


@dataclass(frozen=True, slots=True)
class AnswerHistory:
    address: str
    answers: list[StoredAnswer]  # newest first
    standing: DailyStanding
    offset: int = 0
    next_offset: int | None = None  # where the next page starts; None: no more answers


def _day_start(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


class PublicApi:
    def __init__(self, lookup: LookupService, plans: ApiPlans, answers: ApiAnswerStore, clock: Clock) -> None:
        self._lookup = lookup
        self._plans = plans
        self._answers = answers
        self._clock = clock

    async def standing(self, caller: ApiCaller) -> DailyStanding:
        return await self._plans.standing(caller.user_id)

    async def risk_assessment(self, caller: ApiCaller, text: str) -> Assessment:
        require_scope(caller, ApiScope.READ)
        address = self._lookup.parse(text)  # an address that cannot be read is never charged

        async def answer() -> LookupResult:
            found = await self._lookup.answer(address, query=text.strip())
            if not found.location.located:
                raise NotFound(not_located_message(address, found.location.notes), code="address_not_found")
            return found

        found, standing = await self._charged(caller, answer)
        # Kept under the address as read, so its history is found by the address_id of the search.
        await self._answers.add(caller.user_id, address.one_line, found, self._clock.now())
        return Assessment(found, standing)

    async def risk_for(self, caller: ApiCaller, identifier: str) -> Assessment:
        """The risk answer for an address_id of the address search."""
        text = address_of(identifier)
        if text is None:
            raise NotFound(UNKNOWN_ADDRESS_ID, code="address_not_found")
        return await self.risk_assessment(caller, text)

    async def history(
        self, caller: ApiCaller, identifier: str, from_date: date | None, to_date: date | None,
        page: PageRequest = PageRequest(limit=HISTORY_LIMIT),
    ) -> AnswerHistory:
        """The caller's own earlier answers for an address_id, days inclusive (UTC), a page at a
        time (newest first); reading them is not a look-up and costs no request."""
        require_scope(caller, ApiScope.READ)
        text = address_of(identifier)
        if text is None:
            raise NotFound(UNKNOWN_ADDRESS_ID, code="address_not_found")
        if from_date and to_date and from_date > to_date:
            raise InvalidInput(DATES_REVERSED)
        address = self._lookup.parse(text)
        since = _day_start(from_date) if from_date else datetime(1970, 1, 1, tzinfo=UTC)
        until = _day_start(to_date + timedelta(days=1)) if to_date else self._clock.now() + timedelta(seconds=1)
        fetched = await self._answers.history(caller.user_id, address.one_line, since, until, page.fetch, page.offset)
        answers = page_of(fetched, page)
        standing = await self._plans.standing(caller.user_id)
        return AnswerHistory(address.one_line, answers.items, standing, answers.offset, answers.next_offset)

    async def search_address(self, caller: ApiCaller, query: str, limit: int, country: str) -> AddressSearch:
        """The address as read, with where it lies and how sure that is (its other possible
        counties inside `location.alternatives`); its address_id names it in later calls."""
        require_scope(caller, ApiScope.READ)
        if country.strip().upper() not in COUNTRIES:
            raise InvalidInput(ONLY_US, code="unsupported_country")
        address = self._lookup.parse(query)

        async def locate() -> list[Candidate]:
            # An address without a ZIP code may name several places (#26, item 7): one candidate each.
            found = []
            for reading in (await self._lookup.readings(address))[:limit]:
                location = await self._lookup.locate(reading)
                if location.located:
                    found.append(Candidate(address_id(reading.one_line), reading.one_line, location))
            if not found:
                raise NotFound(NO_MATCH, code="address_not_found")
            return found

        candidates, standing = await self._charged(caller, locate)
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

"""The single property lookup: reserve quota, parse, geocode, find occupants, classify,
score perils, find the building, store the search (DESIGN.md, "The two main flows")."""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, replace
from datetime import timedelta
from typing import Any

from application.errors import InvalidInput, NotAuthenticated, NotFound, QuotaExceeded
from application.lookup_ports import (
    AddressParser,
    CountyLocator,
    DataCatalogue,
    CountyPerils,
    Geocoder,
    NaicsClassifier,
    PerilScoresSource,
    PlacesProvider,
    PropertyRecords,
    QuotaLedger,
    SearchStore,
    StoredSearch,
)
from application.ports import AccessClaims, Clock, SystemSettingsStore, UserRoles
from application.rate_limit import RequestRateLimit
from domain.accounts import Role
from domain.county_choice import CountyChoice, decided_by_geocoder, with_note
from domain.address import YEAR_BUILT, AddressError, format_address_text, parse_address_text
from domain.occupancy import UNKNOWN, Building, GeoPoint, Occupant, ParsedAddress
from domain.perils import HAZARDS, PerilScores
from domain.quota import month_key
from domain.system_settings import CACHE_HOURS

SINGLE, BATCH = "single", "batch"
STREET_NOT_READ = (
    "The street could not be read as a number and name, so this answer is for the ZIP code and city, "
    "not for a building: check the street."
)
RECENT_LIMIT = 50


def not_located_message(address: ParsedAddress, notes: list[str]) -> str:
    why = " ".join(notes) or f"ZIP code {address.zip5} and the city named do not match any place we know."
    return f"Could not locate this address, so nothing was charged. {why} Check the ZIP code and city, then try again."


def is_located(answer: dict[str, Any]) -> bool:
    """Whether an answer found the address at all (a county or a point): one that did not is
    refused (404) and charges nothing."""
    return answer["location"]["county_fips"] is not None or answer["receipt"]["lat"] is not None


def limit_reached_message(limit: int) -> str:
    return f"Monthly search limit reached: search limit reached ({limit} searches/month)"


@dataclass(frozen=True, slots=True)
class LookupProviders:
    parser: AddressParser
    geocoder: Geocoder
    places: PlacesProvider
    perils: PerilScoresSource
    locator: CountyLocator
    buildings: PropertyRecords
    naics: NaicsClassifier
    catalogue: DataCatalogue


class LookupService:
    def __init__(
        self,
        providers: LookupProviders,
        searches: SearchStore,
        quota: QuotaLedger,
        clock: Clock,
        settings: SystemSettingsStore,
        rate_limit: RequestRateLimit,
        roles: UserRoles,
    ) -> None:
        self._p = providers
        self._searches = searches
        self._quota = quota
        self._clock = clock
        self._settings = settings
        self._rate_limit = rate_limit
        self._roles = roles

    def parse(self, text: str) -> ParsedAddress:
        try:
            return self._p.parser.parse(text)
        except AddressError as error:
            raise InvalidInput(error.message) from error

    async def _limit_for(self, caller: AccessClaims) -> int | None:
        """The caller's monthly limit: None (unlimited) for admins, else the saved setting. The role
        is the stored one, so a demoted admin is limited from the next request."""
        role = await self._roles.role_of(caller.user_id)
        if role is None:
            raise NotAuthenticated("Your account no longer exists. Please sign up again.")
        if role is Role.ADMIN:
            return None
        return (await self._settings.current()).monthly_search_limit

    async def admit(self, caller: AccessClaims) -> None:
        """The per-user request rate limit, when the administrator has it switched on."""
        await self._rate_limit.admit(caller.user_id)

    async def charge(self, caller: AccessClaims) -> str:
        """Reserve one search of this month (a batch); returns the month to release on failure."""
        await self.admit(caller)
        month = month_key(self._clock.now())
        limit = await self._limit_for(caller)
        if not await self._quota.reserve(caller.user_id, month, limit):
            raise QuotaExceeded(limit_reached_message(limit or 0))
        return month

    async def release(self, user_id: str, month: str) -> None:
        await self._quota.release(user_id, month)

    async def look_up(self, caller: AccessClaims, text: str) -> dict[str, Any]:
        address = self.parse(text)  # rejected input is never charged
        await self.admit(caller)
        month = month_key(self._clock.now())
        limit = await self._limit_for(caller)
        # A cheap early refusal, so a user at the limit costs no provider calls...
        if limit is not None and await self._searches.used(caller.user_id, month) >= limit:
            raise QuotaExceeded(limit_reached_message(limit))
        cached = await self._cached_answer(address, text.strip())
        result = cached or await self.answer(address, query=text.strip())
        if not is_located(result):
            raise NotFound(not_located_message(address, result["location"]["notes"]))  # and not charged
        search = StoredSearch(
            id=result["search_id"],
            user_id=caller.user_id,
            kind=SINGLE,
            address=text.strip(),
            occupant_count=result["total_results"],
            result=result,
            created_at=self._clock.now(),
            # Only answers fresh from the providers serve as cache entries, so a cached copy never
            # extends the 24 hours.
            building_key=None if cached or not address.street_read else str(address.key),
        )
        # ...and the binding one: the charge and the stored search commit together, atomically.
        if not await self._searches.add_charged(search, month, limit):
            raise QuotaExceeded(limit_reached_message(limit or 0))
        return result

    async def _cached_answer(self, address: ParsedAddress, query: str) -> dict[str, Any] | None:
        """With 'Enable Search Caching' on, a building looked up in the last 24 hours is answered
        from the stored result, without calling any provider; it still counts as a search."""
        if not (await self._settings.current()).search_caching:
            return None
        now = self._clock.now()
        stored = await self._searches.latest_answer(str(address.key), since=now - timedelta(hours=CACHE_HOURS))
        if stored is None:
            return None
        if not address.street_read:
            return None  # a ZIP-level answer is not a building's
        # The county depends on the city typed, not only on the building: a cached answer serves
        # only an asker whose address leads to the same county.
        choice = await self._p.locator.locate(address)
        if (stored.get("location") or {}).get("county_fips") != choice.county_fips:
            return None
        county = await self._p.perils.for_county(choice.county_fips) if choice.county_fips else None
        answer = reuse_provider_data(stored, address, query, now.isoformat())
        answer["location"] = await self._location_json(choice, county)
        return answer

    async def answer(self, address: ParsedAddress, query: str) -> dict[str, Any]:
        """The full answer for one parsed address (shared by single lookups and batches)."""
        # Sequential on purpose: each is one indexed query, and the embedded adapters share a database.
        building = await self._p.buildings.building_at(address.key)
        point = await self._p.geocoder.geocode(address)
        choice, county = await self._county_of(address, point)
        tract_geoid = point.tract_geoid if point else None
        if building is not None and building.lat is not None and building.lng is not None:
            point = GeoPoint(building.lat, building.lng, "building")
        occupants = await self._classified(await self._p.places.occupants_at(address, point))
        if not address.street_read:
            choice = with_note(choice, STREET_NOT_READ)
        result = self._result(address, query, point, building, county, occupants)
        result["location"] = await self._location_json(choice, county)
        result["location"]["tract_geoid"] = tract_geoid
        result["receipt"]["datasets"] = [asdict(version) for version in await self._p.catalogue.versions()]
        return result

    async def _county_of(self, address: ParsedAddress, point: GeoPoint | None) -> tuple[CountyChoice, CountyPerils | None]:
        choice = await self._p.locator.locate(address)
        if point is not None and point.county_fips:
            choice = decided_by_geocoder(choice, point.county_fips)
        county = await self._p.perils.for_county(choice.county_fips) if choice.county_fips else None
        return choice, county

    async def locate(self, address: ParsedAddress) -> dict[str, Any]:
        """Where an address lies (county, confidence, point) without its occupants or scores, so
        finding it calls no places provider (the public API's address search)."""
        point = await self._p.geocoder.geocode(address)
        choice, county = await self._county_of(address, point)
        location = await self._location_json(choice, county)
        location["lat"] = point.lat if point else None
        location["lng"] = point.lng if point else None
        location["geocode_match"] = point.match_level if point else "none"
        return location

    async def _location_json(self, choice: CountyChoice, county: CountyPerils | None) -> dict[str, Any]:
        """How the county was chosen and how sure it is, with the other candidates and their
        composite score, so a doubtful answer can be checked against its alternatives."""
        alternatives = []
        for candidate in choice.alternatives:
            other = await self._p.perils.for_county(candidate.county_fips)
            alternatives.append({
                "county_fips": candidate.county_fips,
                "county_name": other.county_name if other else None,
                "state": other.state if other else None,
                "share": round(candidate.share, 4),
                "Total_Score": other.scores.total if other else None,
                "risk_rating": other.scores.total_rating if other else None,
            })
        return {
            "method": choice.method,
            "county_fips": choice.county_fips,
            "county_name": county.county_name if county else None,
            "state": county.state if county else None,
            "confidence": round(choice.confidence, 4) if choice.confidence is not None else None,
            "low_confidence": choice.low_confidence,
            "alternatives": alternatives,
            "notes": list(choice.notes),
            "source": self._p.locator.name,
        }

    async def _classified(self, occupants: list[Occupant]) -> list[Occupant]:
        filled = [
            o if o.naics_code else replace(o, naics_code=self._p.naics.code_for_types(o.types)) for o in occupants
        ]
        titles = await self._p.naics.titles({o.naics_code for o in filled if o.naics_code})
        return [replace(o, naics_title=titles.get(o.naics_code or "")) for o in filled]

    def _result(
        self,
        address: ParsedAddress,
        query: str,
        point: GeoPoint | None,
        building: Building | None,
        county: CountyPerils | None,
        occupants: list[Occupant],
    ) -> dict[str, Any]:
        now = self._clock.now().isoformat()
        scores = county.scores if county else PerilScores(scores={})
        details = building.details() if building else []
        details += [("Total Space Available", "Unknown"), ("Rental Rate", "Unknown")]
        occupant_rows = [occupant_json(o) for o in occupants]
        first = occupant_rows[0] if occupant_rows else None
        return {
            "search_id": str(uuid.uuid4()),
            "query": query,
            "address": format_address_text(address.one_line, building.year_built if building else None, details),
            "timestamp": now,
            "building": asdict(building) if building else None,
            "occupants": occupant_rows,
            "total_results": len(occupant_rows),
            "perils": scores.fields(),
            "ratings": {**{h.code: scores.ratings.get(h.code) for h in HAZARDS}, "Total": scores.total_rating},
            "Total_Score": scores.total,
            "Top3_Scores_Combined": scores.top3_combined(),
            "naics_code": (first or {}).get("naics_code", "N/A"),
            "types": (first or {}).get("types", []),
            "business_status": (first or {}).get("business_status", UNKNOWN),
            "extra_info": {
                "photos": [{"photo_reference": o.photo_reference} for o in occupants if o.photo_reference],
                "rating": None,
            },
            "vacancies": None,
            "rental_rate": None,
            "receipt": {
                "nri_version": county.nri_version if county else None,
                "county_fips": county.county_fips if county else None,
                "county_name": county.county_name if county else None,
                "state": county.state if county else None,
                "geography_level": "county" if county else None,
                "geocode_match": point.match_level if point else "none",
                "lat": point.lat if point else None,
                "lng": point.lng if point else None,
                "providers": {
                    "geocoder": self._p.geocoder.name,
                    "places": self._p.places.name,
                    "perils": self._p.perils.name if county else None,
                    "property_records": self._p.buildings.name if building else None,
                },
                "scored_at": now,
            },
        }

    # --- stored searches -------------------------------------------------------------

    async def recent(self, caller: AccessClaims) -> list[StoredSearch]:
        return await self._searches.recent(caller.user_id, RECENT_LIMIT)

    async def stored(self, caller: AccessClaims, search_id: str) -> tuple[StoredSearch, str | None, str | None]:
        search = await self._searches.get(caller.user_id, search_id)
        if search is None:
            raise NotFound("Could not load result data.")
        previous_id, next_id = await self._searches.neighbours(caller.user_id, search)
        return search, previous_id, next_id


# What an answer holds that came from the providers, and may serve another user's lookup of the
# same building. Everything else (the query, the address line typed, times, ids) is the asker's own.
PROVIDER_FIELDS = (
    "building", "occupants", "total_results", "perils", "ratings", "Total_Score", "Top3_Scores_Combined",
    "naics_code", "types", "business_status", "extra_info", "vacancies", "rental_rate",
)
PROVIDER_RECEIPT_FIELDS = (
    "nri_version", "county_fips", "county_name", "state", "geography_level", "geocode_match", "lat", "lng", "providers",
    "datasets",
)


def reuse_provider_data(stored: dict[str, Any], address: ParsedAddress, query: str, now: str) -> dict[str, Any]:
    """A cached answer rebuilt for a new asker: the provider data of the stored answer, and the
    asker's own query, address line and time, so nothing another user typed or when they
    searched can reach them."""
    building_details = dict(parse_address_text(stored.get("address")).details)
    year_built = building_details.pop(YEAR_BUILT, None)
    receipt = stored.get("receipt") or {}
    return {
        "search_id": str(uuid.uuid4()),
        "query": query,
        "address": format_address_text(address.one_line, year_built, list(building_details.items())),
        "timestamp": now,
        **{name: stored.get(name) for name in PROVIDER_FIELDS},
        "receipt": {
            **{name: receipt.get(name) for name in PROVIDER_RECEIPT_FIELDS},
            "scored_at": now,
            # Occupants and building come from a lookup of the last CACHE_HOURS hours.
            "from_cache": True,
            "cache_max_age_hours": CACHE_HOURS,
        },
    }


def occupant_json(occupant: Occupant) -> dict[str, Any]:
    return {
        "name": occupant.name or UNKNOWN,
        "vicinity": occupant.vicinity or UNKNOWN,
        "types": occupant.types,
        "business_status": occupant.business_status or UNKNOWN,
        "lat": occupant.lat,
        "lng": occupant.lng,
        "naics_code": occupant.naics_code or "N/A",
        "naics_title": occupant.naics_title,
        "photo_reference": occupant.photo_reference,
    }

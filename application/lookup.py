"""The single property lookup: reserve quota, parse, geocode, find occupants, classify,
score perils, find the building, store the search (DESIGN.md, "The two main flows").

The answer is a `LookupResult` (domain/lookup_result.py); JSON is made at the edges."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, replace
from datetime import timedelta

from application.errors import InvalidInput, NotFound
from application.ports.accounts import AccessClaims
from application.ports.clock import Clock
from application.ports.lookup import AddressParser, CountyLocator, CountyPerils, DataCatalogue, Geocoder, NaicsClassifier, PerilScoresSource, PlaceReading, PlaceResolver, PlacesProvider, PropertyRecords, ReferencePoints, SearchStore, StoredSearch, TractPerilsSource
from application.ports.metrics import Metrics, NoMetrics
from application.ports.settings import SystemSettingsStore
from application.search_quota import SearchQuota
from domain.address import AddressError, BuildingKey
from domain.county_choice import GEOCODER, CountyChoice, decided_by_geocoder, with_note
from domain.lookup_result import CountyAlternative, Location, LookupResult, Provenance, TractPerils, not_located
from domain.nri_release import versions_differ_note
from domain.occupancy import Building, GeoPoint, Occupant, ParsedAddress


def _read_as(address: ParsedAddress, reading: PlaceReading) -> ParsedAddress:
    """The address as the place (and building record) it was read as."""
    zip5 = reading.zip5 or ""
    return replace(address, street=reading.street or address.street, city=reading.city, state=reading.state, zip5=zip5,
                   key=BuildingKey(reading.street or address.key.street, zip5), notes=(*address.notes, *reading.notes))
from domain.system_settings import CACHE_HOURS

SINGLE, BATCH = "single", "batch"
STREET_NOT_READ = (
    "The street could not be read as a number and name, so this answer is for the ZIP code and city, "
    "not for a building: check the street."
)
STREET_NOT_READ_NO_ZIP = (
    "The street could not be read as a number and name, and no ZIP code was given, so this answer is for "
    "the city, not for a building: check the street and add the ZIP code."
)
RECENT_LIMIT = 50
UNSURE_COUNTY = (
    "The county is not certain ({confidence:.0%}): the ZIP code or the city lies in several counties; "
    "the others are listed as alternatives."
)


def no_point_note(county_fips: str, county_name: str | None) -> str:
    named = f"{county_name} ({county_fips})" if county_name else county_fips
    return (
        f"No map point is given: none of the points we have for this address (the city's, the ZIP code's "
        f"centre) is known to lie in {named}, the county of this answer."
    )


def unknown_place_message(address: ParsedAddress) -> str:
    place = ", ".join(p for p in (address.city, address.state) if p)
    return (
        f'Could not find a ZIP code, and no place we know is named "{place}". '
        "Enter the full address: street, city, state, ZIP."
    )


def several_places_message(address: ParsedAddress, readings: list[ParsedAddress]) -> str:
    places = "; ".join(f"{r.city}, {r.state}" for r in readings)
    return (
        f'Several places are named "{address.city}": {places}. Add the state or the ZIP code, '
        "for example \"{street}, {city}, {state}\".".format(street=address.street or "street", city=readings[0].city,
                                                           state=readings[0].state)
    )


def not_located_message(address: ParsedAddress, notes: tuple[str, ...]) -> str:
    why = " ".join(notes) or f"ZIP code {address.zip5} and the city named do not match any place we know."
    return f"Could not locate this address, so nothing was charged. {why} Check the ZIP code and city, then try again."


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
    tracts: TractPerilsSource | None = None  # None: no census-tract scores at all
    # The points that say which county they lie in (None: the geocoder's point as it comes), and
    # the reading of an address typed without a ZIP code (None: such an address is not located).
    points: ReferencePoints | None = None
    places_named: PlaceResolver | None = None


class LookupService:
    def __init__(
        self,
        providers: LookupProviders,
        searches: SearchStore,
        quota: SearchQuota,
        clock: Clock,
        settings: SystemSettingsStore,
        metrics: Metrics | None = None,
    ) -> None:
        self._p = providers
        self._searches = searches
        self.quota = quota
        self._clock = clock
        self._settings = settings
        self._metrics = metrics or NoMetrics()

    def parse(self, text: str) -> ParsedAddress:
        try:
            return self._p.parser.parse(text)
        except AddressError as error:
            raise InvalidInput(error.message) from error

    async def look_up(self, caller: AccessClaims, text: str) -> LookupResult:
        address = await self.read_one(self.parse(text))  # rejected input is never charged
        charge = await self.quota.room_for_one(caller)  # refused before any provider is called
        query = text.strip()
        cached = await self._cached_answer(address, query)
        result = cached or await self.answer(address, query=query, source=SINGLE, read=True)
        if not result.location.located:
            raise NotFound(not_located_message(address, result.location.notes))  # and not charged
        search = StoredSearch(
            id=result.search_id,
            user_id=caller.user_id,
            kind=SINGLE,
            address=query,
            occupant_count=result.occupant_count,
            result=result,
            created_at=self._clock.now(),
            # Only answers fresh from the providers serve as cache entries, so a cached copy never
            # extends the 24 hours; a ZIP-level answer is not a building's.
            building_key=None if cached or not address.street_read or not address.zip5 else str(address.key),
        )
        await self.quota.store_charged(search, charge)  # the charge and the stored search commit together
        return result

    async def _cached_answer(self, address: ParsedAddress, query: str) -> LookupResult | None:
        """With 'Enable Search Caching' on, a building looked up in the last 24 hours is answered
        from the stored result, without calling any provider; it still counts as a search. Only
        the providers' data is reused, never another asker's query, address line or times."""
        if not address.street_read or not address.zip5 or not (await self._settings.current()).search_caching:
            return None
        now = self._clock.now()
        stored = await self._searches.latest_answer(str(address.key), since=now - timedelta(hours=CACHE_HOURS))
        if stored is None:
            return None
        # The county depends on the city typed, not only on the building: a cached answer serves
        # only an asker whose address leads to the same county.
        choice = await self._p.locator.locate(address)
        point = stored.location.point
        if stored.location.method == GEOCODER and stored.location.county_fips:
            choice = decided_by_geocoder(choice, stored.location.county_fips)
        if choice.county_fips != stored.location.county_fips:
            return None
        county = await self._p.perils.for_county(choice.county_fips) if choice.county_fips else None
        return replace(
            stored,
            search_id=str(uuid.uuid4()),
            query=query,
            address=address,
            location=await self._location(choice, county, point, stored.location.tract_geoid, address.notes),
            provenance=replace(stored.provenance, scored_at=now.isoformat(), from_cache=True,
                               cache_max_age_hours=CACHE_HOURS),
        )

    async def readings(self, address: ParsedAddress) -> list[ParsedAddress]:
        """An address typed without a ZIP code (#26, item 7), read as each place its city and state
        name (none: no such place; several: a city without a state that several states have), with
        the ZIP code of the building record its street matched, if any. An address with a ZIP code
        is its own one reading."""
        if address.zip5 or self._p.places_named is None or not address.city:
            return [address] if address.zip5 else []
        found = await self._p.places_named.readings(address.street, address.city, address.state)
        return [_read_as(address, reading) for reading in found]

    async def read_one(self, address: ParsedAddress) -> ParsedAddress:
        """The one reading of a single lookup's address; no place or several is a 400 that says which."""
        readings = await self.readings(address)
        if not readings:
            raise InvalidInput(unknown_place_message(address), code="place_not_found")
        if len(readings) > 1:
            raise InvalidInput(several_places_message(address, readings), code="ambiguous_place",
                               details={"candidates": [r.one_line for r in readings]})
        return readings[0]

    async def answer(self, address: ParsedAddress, query: str, source: str = BATCH, read: bool = False) -> LookupResult:
        """The full answer for one parsed address (shared by single lookups and batches); `read`:
        the address is already the one reading of what was typed (read_one)."""
        started = time.perf_counter()
        readings = [address] if read else await self.readings(address)
        if len(readings) == 1:
            result = await self._answer(readings[0], query)
        else:
            note = several_places_message(address, readings) if readings else unknown_place_message(address)
            result = not_located(query, note, self._clock.now().isoformat(), str(uuid.uuid4()))
        self._metrics.lookup_answered(time.perf_counter() - started, source, result.location.located)
        return result

    async def _answer(self, address: ParsedAddress, query: str) -> LookupResult:
        # Sequential on purpose: each is one indexed query, and the embedded adapters share a database.
        building = await self._p.buildings.building_at(address.key) if address.zip5 else None
        point = await self._p.geocoder.geocode(address) if address.zip5 else None
        choice, county = await self._county_of(address, point)
        if not address.street_read:
            choice = with_note(choice, STREET_NOT_READ if address.zip5 else STREET_NOT_READ_NO_ZIP)
        # The building record's own tract, like its own coordinates, is preferred to the geocoder's.
        tract_geoid, tract_from = (building.tract_geoid, "building record") if building and building.tract_geoid else (
            (point.tract_geoid, "geocoder") if point and point.tract_geoid else (None, None)
        )
        tract = await self._tract_perils(tract_geoid, tract_from, county) if tract_geoid and tract_from else None
        if tract and choice.county_fips != tract.county_fips:
            choice = with_note(
                choice,
                f"The census tract {tract.tract_geoid} (from the {tract_from}) is in county {tract.county_fips}, "
                f"not in {choice.county_fips}, the county of this answer: its tract scores are left out; check the address.",
            )
            tract = None
        point = await self._point_in(choice.county_fips, address, building, point)
        occupants = await self._classified(await self._p.places.occupants_at(address, point))
        coverage = await self._p.places.coverage(address, point)
        return LookupResult(
            search_id=str(uuid.uuid4()),
            query=query,
            address=address,
            location=await self._location(choice, county, point, tract_geoid, address.notes),
            perils=county.scores if county else None,
            building=building,
            occupants=tuple(occupants),
            provenance=self._provenance(county, building, await self._p.catalogue.versions(), tract),
            tract_perils=tract,
            occupant_coverage=coverage,
        )

    async def _tract_perils(self, tract_geoid: str, tract_from: str, county: CountyPerils | None) -> TractPerils | None:
        """The tract's scores beside the county's, from the county's NRI release when that one is
        loaded; from another release only with a note saying so."""
        if self._p.tracts is None:
            return None
        county_version = county.nri_version if county else None
        found = await self._p.tracts.for_tract(tract_geoid, county_version)
        if found is None:
            return None
        differ = versions_differ_note(county_version, found.nri_version)
        return TractPerils(
            tract_geoid=found.tract_geoid,
            county_fips=found.county_fips,
            scores=found.scores,
            nri_version=found.nri_version,
            tract_from=tract_from,
            notes=(differ,) if differ else (),
        )

    async def _county_of(self, address: ParsedAddress, point: GeoPoint | None) -> tuple[CountyChoice, CountyPerils | None]:
        choice = await self._p.locator.locate(address)
        if point is not None and point.county_fips:
            choice = decided_by_geocoder(choice, point.county_fips)
        county = await self._p.perils.for_county(choice.county_fips) if choice.county_fips else None
        return choice, county

    async def locate(self, address: ParsedAddress) -> Location:
        """Where an address lies (county, confidence, point) without its occupants or scores, so
        finding it calls no places provider (the public API's address search)."""
        point = await self._p.geocoder.geocode(address) if address.zip5 else None
        choice, county = await self._county_of(address, point)
        tract_geoid = point.tract_geoid if point else None
        point = await self._point_in(choice.county_fips, address, None, point)
        return await self._location(choice, county, point, tract_geoid, address.notes)

    async def _point_in(
        self, county_fips: str | None, address: ParsedAddress, building: Building | None, point: GeoPoint | None
    ) -> GeoPoint | None:
        """The point we give lies in the county we chose, or there is none (#26, item 5). Without
        county polygons a point is trusted to lie in a county only when its own source says so:
        the building record's own coordinates (its census tract, when it gives one), the
        geocoder's match with its county, the named city's point with its county, the ZIP code's
        centroids with their source's county; the first in the chosen county wins."""
        if building is not None and building.lat is not None and building.lng is not None and (
            not building.tract_geoid or building.tract_geoid[:5] == county_fips
        ):
            return GeoPoint(building.lat, building.lng, "building")
        if self._p.points is None:
            return point  # no source of counties for points: the geocoder's point as it comes
        if county_fips is None:
            return None
        if point is not None and point.county_fips == county_fips:
            return point
        found = next((c.point for c in await self._p.points.points(address) if c.county_fips == county_fips), None)
        return found

    async def _location(
        self, choice: CountyChoice, county: CountyPerils | None, point: GeoPoint | None, tract_geoid: str | None,
        address_notes: tuple[str, ...] = (),
    ) -> Location:
        """How the county was chosen and how sure it is, with the other candidates and their
        composite score, so a doubtful answer can be checked against its alternatives."""
        alternatives = []
        for candidate in choice.alternatives:
            other = await self._p.perils.for_county(candidate.county_fips)
            alternatives.append(
                CountyAlternative(
                    county_fips=candidate.county_fips,
                    county_name=other.county_name if other else None,
                    state=other.state if other else None,
                    share=round(candidate.share, 4),
                    total_score=other.scores.total if other else None,
                    risk_rating=other.scores.total_rating if other else None,
                )
            )
        notes = (*choice.notes, *address_notes)
        if choice.low_confidence and not choice.notes:
            notes = (*notes, UNSURE_COUNTY.format(confidence=choice.confidence or 0.0))
        if point is None and choice.county_fips and self._p.points is not None:
            notes = (*notes, no_point_note(choice.county_fips, county.county_name if county else None))
        return Location(
            method=choice.method,
            county_fips=choice.county_fips,
            county_name=county.county_name if county else None,
            state=county.state if county else None,
            confidence=round(choice.confidence, 4) if choice.confidence is not None else None,
            low_confidence=choice.low_confidence,
            alternatives=tuple(alternatives),
            notes=notes,
            point=point,
            tract_geoid=tract_geoid,
            locator=self._p.locator.name,
        )

    def _provenance(
        self, county: CountyPerils | None, building: Building | None, datasets, tract: TractPerils | None = None  # noqa: ANN001
    ) -> Provenance:
        return Provenance(
            nri_version=county.nri_version if county else None,
            geocoder=self._p.geocoder.name,
            places=self._p.places.name,
            perils=self._p.perils.name if county else None,
            property_records=self._p.buildings.name if building else None,
            scored_at=self._clock.now().isoformat(),
            datasets=tuple(datasets),
            tract_perils=self._p.tracts.name if tract and self._p.tracts else None,
        )

    async def _classified(self, occupants: list[Occupant]) -> list[Occupant]:
        filled = [
            o if o.naics_code else replace(o, naics_code=self._p.naics.code_for_types(o.types)) for o in occupants
        ]
        titles = await self._p.naics.titles({o.naics_code for o in filled if o.naics_code})
        return [replace(o, naics_title=titles.get(o.naics_code or "")) for o in filled]

    # --- stored searches -------------------------------------------------------------

    async def recent(self, caller: AccessClaims) -> list[StoredSearch]:
        return await self._searches.recent(caller.user_id, RECENT_LIMIT)

    async def stored(self, caller: AccessClaims, search_id: str) -> tuple[StoredSearch, str | None, str | None]:
        search = await self._searches.get(caller.user_id, search_id)
        if search is None:
            raise NotFound("Could not load result data.")
        previous_id, next_id = await self._searches.neighbours(caller.user_id, search)
        return search, previous_id, next_id

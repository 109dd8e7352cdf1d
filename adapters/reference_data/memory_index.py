"""The reference tables held in memory. They are small (tens of thousands of rows, a few MB)
and change only when `perilscope data load` runs, so a lookup reads dictionaries instead of
making five database round trips. Reloaded when the dataset_load table says the data changed."""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from sqlalchemy import Row, Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.reference_tables import (
    BuildingRow,
    BusinessRow,
    DatasetLoadRow,
    NaicsCodeRow,
    NriCountyRow,
    NriTractRow,
    PlaceCountyRow,
    ZipCountyRow,
    ZipCountyShareRow,
    ZipPointRow,
)
from adapters.naics_mapping import naics_for_types
from adapters.reference_data.catalogue import EMBEDDED_CATALOGUE
from application.ports.lookup import CountyPerils, TractScores
from domain.lookup_result import DatasetVersion
from domain.address import BuildingKey
from domain.county_choice import CountyChoice, CountyShare, choose_county, disputed_by_place, place_key, with_note
from domain.occupancy import Building, GeoPoint, Occupant, OccupantCoverage, ParsedAddress
from domain.nri_release import parse_release
from domain.perils import HAZARDS, PerilScores

# How often (seconds) the index asks whether `data load` changed the data; Settings'
# reference_recheck_seconds (PERILSCOPE_REFERENCE_RECHECK_SECONDS) sets it for a server.
RECHECK_SECONDS = 30.0
STREAM_BATCH_ROWS = 2000


def _shared(value: str | None) -> str | None:
    """One string object for each repeated value (ZIPs, FIPS codes, states, ratings, releases):
    the database hands a new copy per row, and the index holds hundreds of thousands of them."""
    return sys.intern(value) if value is not None else None


@dataclass(frozen=True, slots=True)
class Business:
    """What an occupant answer needs of a registered business (not the ORM row: its instance
    state would stay in memory with it)."""

    name: str
    street_address: str | None
    city: str | None
    operating_status: str | None
    lat: float | None
    lng: float | None
    naics_code: str | None


@dataclass(frozen=True, slots=True)
class RegistryCity:
    city: str
    state: str
    businesses: int


@dataclass(slots=True)
class ReferenceData:
    county_by_zip: dict[str, CountyPerils | None] = field(default_factory=dict)
    counties: dict[str, CountyPerils] = field(default_factory=dict)
    # tract GEOID → its scores in each loaded NRI release, newest release first
    tracts: dict[str, tuple[TractScores, ...]] = field(default_factory=dict)
    zip_shares: dict[str, tuple[CountyShare, ...]] = field(default_factory=dict)
    zip_state: dict[str, str] = field(default_factory=dict)
    # (state, place key) → (county, share of the place's population) pairs, from the best source
    # that knows the place (Geocorr, then Census towns and townships, then SimpleMaps cities).
    # Pairs, not a dict per place: tens of thousands of them (place_counties() gives the dict).
    place_shares: dict[tuple[str, str], tuple[tuple[str, float], ...]] = field(default_factory=dict)

    def place_counties(self, state: str, place: str) -> dict[str, float] | None:
        pairs = self.place_shares.get((state, place))
        return dict(pairs) if pairs else None
    centroid_by_zip: dict[str, tuple[float, float]] = field(default_factory=dict)
    # Points that say which county they lie in, by their own source (#26, item 5): each ZIP's
    # SimpleMaps centroid then its GeoNames point, (lat, lng, county); each SimpleMaps city's point.
    zip_points: dict[str, tuple[tuple[float, float, str], ...]] = field(default_factory=dict)
    place_points: dict[tuple[str, str], tuple[float, float, str]] = field(default_factory=dict)
    # (state, place key) → the city's ZIP codes and its name as written (SimpleMaps cities)
    place_zips: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    place_names: dict[tuple[str, str], str] = field(default_factory=dict)
    businesses_by_key: dict[BuildingKey, list[Business]] = field(default_factory=dict)
    building_by_key: dict[BuildingKey, Building] = field(default_factory=dict)
    naics_titles: dict[str, str] = field(default_factory=dict)
    datasets: list[DatasetVersion] = field(default_factory=list)
    # The registries' own cities: each registry's most common (city, state) is the city it
    # registers; its businesses elsewhere are mailing or out-of-area licensees, no coverage.
    registry_cities: tuple[RegistryCity, ...] = ()
    registry_zips: frozenset[str] = frozenset()


class ReferenceIndex:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        recheck_seconds: float = RECHECK_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._sessions = sessions
        self._recheck_seconds = recheck_seconds
        self._clock = clock
        self._data: ReferenceData | None = None
        self._version: object = None
        self._checked_at = 0.0
        self._lock = asyncio.Lock()

    def _fresh(self) -> bool:
        return self._data is not None and self._clock() - self._checked_at < self._recheck_seconds

    async def data(self) -> ReferenceData:
        if self._fresh():
            return self._data  # type: ignore[return-value]  # _fresh() says it is set
        async with self._lock:
            # Every request that found the check due waited here: the first one checked for all
            # of them, so the rest answer at once instead of each asking the database again.
            if self._fresh():
                return self._data  # type: ignore[return-value]
            async with self._sessions() as session:
                version = (
                    await session.execute(select(func.count(), func.max(DatasetLoadRow.loaded_at)))
                ).one()
                self._checked_at = self._clock()
                if self._data is None or tuple(version) != self._version:
                    self._data = await _load(session)
                    self._version = tuple(version)
                    # Hundreds of thousands of long-lived objects: frozen, the collector's full
                    # passes no longer walk them (they showed as 100 ms+ pauses at p99).
                    gc.freeze()
        return self._data


async def _load(session: AsyncSession) -> ReferenceData:
    data = ReferenceData()
    counties = {row.county_fips: _county(row) for row in await session.scalars(select(NriCountyRow))}
    data.counties = counties
    data.tracts = await _load_tracts(session)
    zip_rows = select(ZipCountyRow.zip, ZipCountyRow.county_fips, ZipCountyRow.state, ZipCountyRow.lat, ZipCountyRow.lng,
                      ZipCountyRow.source)
    zip_points: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    async for zip_row in _streamed(session, zip_rows):
        zip5 = _shared(zip_row.zip)
        data.county_by_zip[zip5] = counties.get(zip_row.county_fips or "")
        if zip_row.state:
            data.zip_state[zip5] = _shared(zip_row.state)
        if zip_row.lat is not None and zip_row.lng is not None:
            data.centroid_by_zip[zip5] = (zip_row.lat, zip_row.lng)
            if zip_row.source == "simplemaps" and zip_row.county_fips:  # the centroid and county of one source
                zip_points[zip5].append((zip_row.lat, zip_row.lng, _shared(zip_row.county_fips)))
    async for point in _streamed(session, select(ZipPointRow.zip, ZipPointRow.county_fips, ZipPointRow.lat, ZipPointRow.lng)):
        if point.county_fips:
            zip_points[_shared(point.zip)].append((point.lat, point.lng, _shared(point.county_fips)))
    data.zip_points = {zip5: tuple(points) for zip5, points in zip_points.items()}
    await _load_county_shares(session, data)
    businesses: dict[BuildingKey, list[Business]] = defaultdict(list)
    business_rows = (
        select(BusinessRow.building_street, BusinessRow.building_zip, BusinessRow.name, BusinessRow.street_address,
               BusinessRow.city, BusinessRow.operating_status, BusinessRow.lat, BusinessRow.lng, BusinessRow.naics_code)
        .where(BusinessRow.building_street.is_not(None))
        .order_by(BusinessRow.name)
    )
    async for row in _streamed(session, business_rows):
        businesses[BuildingKey(row.building_street, row.building_zip)].append(
            Business(row.name, row.street_address, _shared(row.city), _shared(row.operating_status), row.lat, row.lng,
                     _shared(row.naics_code))
        )
    data.businesses_by_key = dict(businesses)
    await _load_registry_coverage(session, data)
    # The largest record wins where one address has several (a campus reports once per building).
    for row in await session.scalars(select(BuildingRow).where(BuildingRow.building_street.is_not(None)).order_by(BuildingRow.gfa_total)):
        data.building_by_key[BuildingKey(row.building_street, row.building_zip)] = _building(row)
    data.naics_titles = dict((await session.execute(select(NaicsCodeRow.code, NaicsCodeRow.title))).all())
    as_of = {dataset.name: dataset.as_of for dataset in EMBEDDED_CATALOGUE}
    loads = (await session.execute(select(DatasetLoadRow.dataset, DatasetLoadRow.version).order_by(DatasetLoadRow.dataset))).all()
    data.datasets = [DatasetVersion(row.dataset, row.version, as_of.get(row.dataset) or _release_month(row.version)) for row in loads]
    session.expunge_all()
    return data


async def _load_registry_coverage(session: AsyncSession, data: ReferenceData) -> None:
    """Each registry's own city, and the ZIP codes its businesses there use: the addresses
    whose occupants the registries know (the rest are unknown, not empty)."""
    city = func.upper(func.trim(BusinessRow.city))
    state = func.upper(func.trim(BusinessRow.state))
    counted = (
        await session.execute(
            select(BusinessRow.source, city, state, func.count())
            .where(BusinessRow.city.is_not(None), BusinessRow.state.is_not(None))
            .group_by(BusinessRow.source, city, state)
        )
    ).all()
    home: dict[str, tuple[str, str, int]] = {}
    for source, city_name, state_code, count in counted:
        if count > home.get(source, ("", "", 0))[2]:
            home[source] = (city_name, state_code, count)
    cities: dict[tuple[str, str], int] = defaultdict(int)
    zips: set[str] = set()
    for source, (city_name, state_code, count) in home.items():
        cities[(city_name, state_code)] += count
        rows = select(BusinessRow.building_zip).distinct().where(
            BusinessRow.source == source, city == city_name, state == state_code, BusinessRow.building_zip.is_not(None)
        )
        zips.update(_shared(zip5) for zip5 in await session.scalars(rows))
    data.registry_cities = tuple(
        RegistryCity(name.title(), code, count) for (name, code), count in sorted(cities.items(), key=lambda c: -c[1])
    )
    data.registry_zips = frozenset(zips)


async def _streamed(session: AsyncSession, statement: Select) -> AsyncIterator[Row]:
    """A table's rows a batch at a time: all of them at once would double the loading peak."""
    async for row in await session.stream(statement.execution_options(yield_per=STREAM_BATCH_ROWS)):
        yield row


def _release_month(version: str | None) -> str | None:
    """An NRI release's month ("2023-03"), as the date of a tract table's data."""
    release = parse_release(version) if version and version.startswith("NRI ") else None  # a tract table's
    return f"{release.year}-{release.month:02d}" if release and release.year and release.month else None


async def _load_tracts(session: AsyncSession) -> dict[str, tuple[TractScores, ...]]:
    by_tract: dict[str, list[TractScores]] = defaultdict(list)
    for row in await session.scalars(select(NriTractRow)):
        scores = _scores(row)
        by_tract[row.tract_geoid].append(
            TractScores(row.tract_geoid, _shared(row.county_fips), scores, _shared(row.nri_version))
        )

    def newest_first(tract: TractScores) -> tuple[int, int]:
        release = parse_release(tract.nri_version)
        return (-(release.year or 0), -(release.month or 0)) if release else (0, 0)

    return {geoid: tuple(sorted(versions, key=newest_first)) for geoid, versions in by_tract.items()}


PLACE_SOURCES_BEST_FIRST = ("geocorr2022", "census_places", "simplemaps_cities")


async def _load_county_shares(session: AsyncSession, data: ReferenceData) -> None:
    shares: dict[str, list[CountyShare]] = defaultdict(list)
    share_rows = select(ZipCountyShareRow.zip, ZipCountyShareRow.county_fips, ZipCountyShareRow.total_share,
                        ZipCountyShareRow.preferred_state)
    async for row in _streamed(session, share_rows):
        zip5 = _shared(row.zip)
        shares[zip5].append(CountyShare(_shared(row.county_fips), row.total_share))
        if row.preferred_state:
            data.zip_state[zip5] = _shared(row.preferred_state)  # USPS's own state wins
    data.zip_shares = {zip5: tuple(candidates) for zip5, candidates in shares.items()}
    # The best source first; a place it knows is skipped in the others (their rows were read and
    # dropped before: garbage scattered through the index's memory, which stayed resident).
    for source in PLACE_SOURCES_BEST_FIRST:
        of_source: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
        place_rows = (select(PlaceCountyRow.state, PlaceCountyRow.place_key, PlaceCountyRow.county_fips,
                             PlaceCountyRow.share, PlaceCountyRow.place_name, PlaceCountyRow.lat, PlaceCountyRow.lng,
                             PlaceCountyRow.zips).where(PlaceCountyRow.source == source))
        async for row in _streamed(session, place_rows):
            if row.lat is not None and row.lng is not None:  # a SimpleMaps city: its point, ZIPs and name
                city = (_shared(row.state), row.place_key)
                data.place_points.setdefault(city, (row.lat, row.lng, _shared(row.county_fips)))
                data.place_names.setdefault(city, row.place_name)
                if row.zips:
                    data.place_zips[city] = tuple(dict.fromkeys((*data.place_zips.get(city, ()), *map(_shared, row.zips.split("|")))))
            if (row.state, row.place_key) in data.place_shares:
                continue
            counties = of_source[(_shared(row.state), row.place_key)]
            county_fips = _shared(row.county_fips)
            counties[county_fips] = max(counties.get(county_fips, 0.0), row.share or 0.0)
        data.place_shares.update((place, tuple(counties.items())) for place, counties in of_source.items())


def _scores(row: NriCountyRow | NriTractRow) -> PerilScores:
    return PerilScores(
        scores={h.code: getattr(row, f"{h.code.lower()}_score") for h in HAZARDS},
        ratings={h.code: _shared(getattr(row, f"{h.code.lower()}_rating")) for h in HAZARDS},
        total=row.risk_score,
        total_rating=_shared(row.risk_rating),
    )


def _county(row: NriCountyRow) -> CountyPerils:
    return CountyPerils(row.county_fips, row.county_name, _shared(row.state), _scores(row), _shared(row.nri_version))


def _building(row: BuildingRow) -> Building:
    return Building(
        address=row.address or "",
        property_name=row.property_name,
        year_built=row.year_built,
        property_type=row.property_type,
        floors=row.floors,
        buildings=row.buildings,
        gfa_total=row.gfa_total,
        gfa_parking=row.gfa_parking,
        largest_use=row.largest_use,
        neighborhood=row.neighborhood,
        parcel=row.parcel,
        lat=row.lat,
        lng=row.lng,
        source=row.source,
        tract_geoid=row.tract_geoid,
    )


# --- the embedded adapters of the lookup ports ----------------------------------------------


class NriCountyScores:
    """A county's NRI scores (county scores, not risk computed for the address)."""

    name = "FEMA National Risk Index (county)"

    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def for_county(self, county_fips: str) -> CountyPerils | None:
        return (await self._index.data()).counties.get(county_fips)


class NriTractScores:
    """A census tract's NRI scores, where FEMA's tract table for its area is loaded."""

    name = "FEMA National Risk Index (census tract)"

    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def for_tract(self, tract_geoid: str, prefer_version: str | None) -> TractScores | None:
        versions = (await self._index.data()).tracts.get(tract_geoid, ())
        preferred = parse_release(prefer_version)
        same = next((t for t in versions if preferred and (r := parse_release(t.nri_version)) and r.same_as(preferred)), None)
        return same or (versions[0] if versions else None)


class ZipAndPlaceCountyLocator:
    """The county from the ZIP's address shares and the city named (domain/county_choice.py)."""

    name = "HUD-USPS ZIP–county shares with Census place–county shares"

    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def locate(self, address: ParsedAddress) -> CountyChoice:
        data = await self._index.data()
        state = (address.state or "").upper()
        zip_shares = data.zip_shares.get(address.zip5) if address.zip5 else None
        retired = False
        if zip_shares is None and (primary := data.county_by_zip.get(address.zip5)) is not None:
            # Known to the older ZIP tables but not to USPS's current crosswalk: retired, or a
            # PO-box or unique ZIP with no delivery addresses. Its one recorded county, said so.
            zip_shares, retired = (CountyShare(primary.county_fips, 1.0),), True
        zip_state = data.zip_state.get(address.zip5)
        # A place is looked up in the state the address names; a ZIP of another state says nothing about it.
        place = data.place_counties(state or zip_state or "", place_key(address.city or "")) if address.city else None
        choice = choose_county(zip_shares or (), place or {})
        if zip_shares is None and address.zip5:  # (none given: the city decided, and the lookup says so)
            choice = with_note(choice, f"ZIP code {address.zip5} is not a ZIP code we know (it may be new, retired or mistyped).")
        elif retired:
            choice = with_note(
                choice,
                f"ZIP code {address.zip5} is not in USPS's current ZIP-county crosswalk (it may be retired, or a "
                "PO-box ZIP): the county comes from older ZIP tables.",
            )
        elif state and zip_state and state != zip_state:
            note = (
                f"ZIP code {address.zip5} is in {zip_state}, but the address says {state}: "
                "the county comes from the ZIP code; check the address."
            )
            choice = disputed_by_place(choice, place or {}, note) if choice.county_fips else with_note(choice, note)
        return choice


class ZipCentroidGeocoder:
    """The ZIP's centre point; the lookup prefers a known building's own coordinates."""

    name = "embedded ZIP centroids (SimpleMaps, GeoNames)"

    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def geocode(self, address: ParsedAddress) -> GeoPoint | None:
        point = (await self._index.data()).centroid_by_zip.get(address.zip5)
        return GeoPoint(point[0], point[1], "zip_centroid") if point else None


class BusinessRegistryPlaces:
    """Businesses registered at the same building (normalised street and ZIP), for the ZIP codes
    of the registries' own cities."""

    name = "business registry (City of Seattle, DataSF)"

    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def coverage(self, address: ParsedAddress, point: GeoPoint | None) -> OccupantCoverage:
        data = await self._index.data()
        return OccupantCoverage(
            covered=address.street_read and address.zip5 in data.registry_zips,
            source=self.name,
            covers=registry_coverage_sentence(data.registry_cities),
            photos=False,
        )

    async def occupants_at(self, address: ParsedAddress, point: GeoPoint | None) -> list[Occupant]:
        rows = (await self._index.data()).businesses_by_key.get(address.key, [])
        return [_occupant(row, point) for row in rows]


def registry_coverage_sentence(cities: tuple[RegistryCity, ...]) -> str:
    if not cities:
        return "Occupant data: no business registry is loaded."
    listed = "; ".join(f"{c.city}, {c.state} ({c.businesses:,} businesses)" for c in cities)
    return f"Occupant data: city business registries of {listed}, at their ZIP codes."


def _occupant(row: Business, point: GeoPoint | None) -> Occupant:
    vicinity = ", ".join(p for p in (row.street_address, (row.city or "").title()) if p)
    return Occupant(
        name=row.name,
        vicinity=vicinity,
        types=["establishment"],
        business_status=row.operating_status,
        lat=row.lat if row.lat is not None else (point.lat if point else None),
        lng=row.lng if row.lng is not None else (point.lng if point else None),
        naics_code=row.naics_code,
    )


class BuildingRecords:
    name = "building records (City of Seattle 2016 benchmarking)"

    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def building_at(self, key: BuildingKey) -> Building | None:
        return (await self._index.data()).building_by_key.get(key)


class LoadedDatasets:
    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def versions(self) -> list[DatasetVersion]:
        return list((await self._index.data()).datasets)


class NaicsTable:
    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def titles(self, codes: set[str]) -> dict[str, str]:
        titles = (await self._index.data()).naics_titles
        return {code: titles[code] for code in codes if code in titles}

    def code_for_types(self, types: list[str]) -> str | None:
        return naics_for_types(types)

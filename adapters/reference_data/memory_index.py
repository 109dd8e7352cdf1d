"""The reference tables held in memory. They are small (tens of thousands of rows, a few MB)
and change only when `perilscope data load` runs, so a lookup reads dictionaries instead of
making five database round trips. Reloaded when the dataset_load table says the data changed."""

from __future__ import annotations

import asyncio
import gc
import time
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.reference_tables import (
    BuildingRow,
    BusinessRow,
    DatasetLoadRow,
    NaicsCodeRow,
    NriCountyRow,
    ZipCountyRow,
)
from adapters.naics_mapping import naics_for_types
from application.lookup_ports import CountyPerils
from domain.address import BuildingKey
from domain.occupancy import Building, GeoPoint, Occupant, ParsedAddress
from domain.perils import HAZARDS, PerilScores

RECHECK_SECONDS = 30.0


@dataclass(slots=True)
class ReferenceData:
    county_by_zip: dict[str, CountyPerils | None] = field(default_factory=dict)
    centroid_by_zip: dict[str, tuple[float, float]] = field(default_factory=dict)
    businesses_by_key: dict[BuildingKey, list[BusinessRow]] = field(default_factory=dict)
    building_by_key: dict[BuildingKey, Building] = field(default_factory=dict)
    naics_titles: dict[str, str] = field(default_factory=dict)


class ReferenceIndex:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._data: ReferenceData | None = None
        self._version: object = None
        self._checked_at = 0.0
        self._lock = asyncio.Lock()

    async def data(self) -> ReferenceData:
        if self._data is not None and time.monotonic() - self._checked_at < RECHECK_SECONDS:
            return self._data
        async with self._lock:
            async with self._sessions() as session:
                version = (
                    await session.execute(select(func.count(), func.max(DatasetLoadRow.loaded_at)))
                ).one()
                self._checked_at = time.monotonic()
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
    for zip_row in (await session.execute(select(ZipCountyRow.zip, ZipCountyRow.county_fips, ZipCountyRow.lat, ZipCountyRow.lng))).all():
        data.county_by_zip[zip_row.zip] = counties.get(zip_row.county_fips or "")
        if zip_row.lat is not None and zip_row.lng is not None:
            data.centroid_by_zip[zip_row.zip] = (zip_row.lat, zip_row.lng)
    businesses: dict[BuildingKey, list[BusinessRow]] = defaultdict(list)
    for row in await session.scalars(select(BusinessRow).where(BusinessRow.building_street.is_not(None)).order_by(BusinessRow.name)):
        businesses[BuildingKey(row.building_street, row.building_zip)].append(row)
    data.businesses_by_key = dict(businesses)
    # The largest record wins where one address has several (a campus reports once per building).
    for row in await session.scalars(select(BuildingRow).where(BuildingRow.building_street.is_not(None)).order_by(BuildingRow.gfa_total)):
        data.building_by_key[BuildingKey(row.building_street, row.building_zip)] = _building(row)
    data.naics_titles = dict((await session.execute(select(NaicsCodeRow.code, NaicsCodeRow.title))).all())
    session.expunge_all()
    return data


def _county(row: NriCountyRow) -> CountyPerils:
    scores = PerilScores(
        scores={h.code: getattr(row, f"{h.code.lower()}_score") for h in HAZARDS},
        ratings={h.code: getattr(row, f"{h.code.lower()}_rating") for h in HAZARDS},
        total=row.risk_score,
        total_rating=row.risk_rating,
    )
    return CountyPerils(row.county_fips, row.county_name, row.state, scores, row.nri_version)


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
    )


# --- the embedded adapters of the lookup ports ----------------------------------------------


class NriCountyScores:
    """ZIP → primary county → that county's NRI scores (county scores, not ZIP-level risk)."""

    name = "FEMA National Risk Index (county)"

    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def for_zip(self, zip5: str) -> CountyPerils | None:
        return (await self._index.data()).county_by_zip.get(zip5)


class ZipCentroidGeocoder:
    """The ZIP's centre point; the lookup prefers a known building's own coordinates."""

    name = "embedded ZIP centroids (SimpleMaps, GeoNames)"

    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def geocode(self, address: ParsedAddress) -> GeoPoint | None:
        point = (await self._index.data()).centroid_by_zip.get(address.zip5)
        return GeoPoint(point[0], point[1], "zip_centroid") if point else None


class BusinessRegistryPlaces:
    """Businesses registered at the same building (normalised street and ZIP)."""

    name = "business registry (City of Seattle, DataSF)"

    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def occupants_at(self, address: ParsedAddress, point: GeoPoint | None) -> list[Occupant]:
        rows = (await self._index.data()).businesses_by_key.get(address.key, [])
        return [_occupant(row, point) for row in rows]


def _occupant(row: BusinessRow, point: GeoPoint | None) -> Occupant:
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


class NaicsTable:
    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def titles(self, codes: set[str]) -> dict[str, str]:
        titles = (await self._index.data()).naics_titles
        return {code: titles[code] for code in codes if code in titles}

    def code_for_types(self, types: list[str]) -> str | None:
        return naics_for_types(types)

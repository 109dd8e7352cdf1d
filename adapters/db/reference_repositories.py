"""Embedded adapters of the lookup ports, over the reference tables loaded from shared/data."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.reference_tables import BuildingRow, BusinessRow, NaicsCodeRow, NriCountyRow, ZipCountyRow
from adapters.naics_mapping import naics_for_types
from application.lookup_ports import CountyPerils
from domain.address import BuildingKey
from domain.occupancy import Building, GeoPoint, Occupant, ParsedAddress
from domain.perils import HAZARDS, PerilScores

Sessions = async_sessionmaker[AsyncSession]


class NriCountyScores:
    """ZIP → primary county → that county's NRI scores (county scores, not ZIP-level risk)."""

    name = "FEMA National Risk Index (county)"

    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    async def for_zip(self, zip5: str) -> CountyPerils | None:
        async with self._sessions() as session:
            row = (
                await session.execute(
                    select(NriCountyRow).join(ZipCountyRow, ZipCountyRow.county_fips == NriCountyRow.county_fips)
                    .where(ZipCountyRow.zip == zip5)
                )
            ).scalar_one_or_none()
        if row is None:
            return None
        scores = PerilScores(
            scores={h.code: getattr(row, f"{h.code.lower()}_score") for h in HAZARDS},
            ratings={h.code: getattr(row, f"{h.code.lower()}_rating") for h in HAZARDS},
            total=row.risk_score,
            total_rating=row.risk_rating,
        )
        return CountyPerils(row.county_fips, row.county_name, row.state, scores, row.nri_version)


class ZipCentroidGeocoder:
    """The ZIP's centre point; the lookup prefers a known building's own coordinates."""

    name = "embedded ZIP centroids (SimpleMaps, GeoNames)"

    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    async def geocode(self, address: ParsedAddress) -> GeoPoint | None:
        async with self._sessions() as session:
            row = (
                await session.execute(select(ZipCountyRow.lat, ZipCountyRow.lng).where(ZipCountyRow.zip == address.zip5))
            ).first()
        if row is None or row.lat is None or row.lng is None:
            return None
        return GeoPoint(row.lat, row.lng, "zip_centroid")


class BusinessRegistryPlaces:
    """Businesses registered at the same building (normalised street and ZIP)."""

    name = "business registry (City of Seattle, DataSF)"

    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    async def occupants_at(self, address: ParsedAddress, point: GeoPoint | None) -> list[Occupant]:
        async with self._sessions() as session:
            rows = (
                await session.scalars(
                    select(BusinessRow)
                    .where(BusinessRow.building_zip == address.key.zip5, BusinessRow.building_street == address.key.street)
                    .order_by(BusinessRow.name)
                )
            ).all()
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

    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    async def building_at(self, key: BuildingKey) -> Building | None:
        async with self._sessions() as session:
            row = (
                await session.scalars(
                    select(BuildingRow)
                    .where(BuildingRow.building_zip == key.zip5, BuildingRow.building_street == key.street)
                    .order_by(BuildingRow.gfa_total.desc())
                    .limit(1)
                )
            ).first()
        if row is None:
            return None
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


class NaicsTable:
    def __init__(self, sessions: Sessions) -> None:
        self._sessions = sessions

    async def titles(self, codes: set[str]) -> dict[str, str]:
        if not codes:
            return {}
        async with self._sessions() as session:
            rows = (await session.execute(select(NaicsCodeRow.code, NaicsCodeRow.title).where(NaicsCodeRow.code.in_(codes)))).all()
        return {code: title for code, title in rows}

    def code_for_types(self, types: list[str]) -> str | None:
        return naics_for_types(types)

"""Reference data loaded from public sources: NRI county scores, ZIP→county, NAICS,
the business registry and building records."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from adapters.db.base import Base
from domain.perils import HAZARDS


class NriCountyRow(Base):
    __tablename__ = "nri_county"

    county_fips: Mapped[str] = mapped_column(String(5), primary_key=True)
    state: Mapped[str | None] = mapped_column(String(2))
    county_name: Mapped[str | None] = mapped_column(String(100))
    risk_score: Mapped[float | None] = mapped_column(Float)
    risk_rating: Mapped[str | None] = mapped_column(String(40))
    nri_version: Mapped[str | None] = mapped_column(String(60))


# One score and one rating column per hazard, under the product's code (RFLD, not IFLD).
for _hazard in HAZARDS:
    setattr(NriCountyRow, f"{_hazard.code.lower()}_score", mapped_column(Float, nullable=True))
    setattr(NriCountyRow, f"{_hazard.code.lower()}_rating", mapped_column(String(40), nullable=True))


class NriTractRow(Base):
    """FEMA's NRI scores of one census tract in one release: a tract may be loaded from several
    releases (v1.19 and v1.20), each imported and replaced on its own."""

    __tablename__ = "nri_tract"

    tract_geoid: Mapped[str] = mapped_column(String(11), primary_key=True)
    nri_version: Mapped[str] = mapped_column(String(60), primary_key=True)
    county_fips: Mapped[str] = mapped_column(String(5))
    state: Mapped[str | None] = mapped_column(String(2))
    county_name: Mapped[str | None] = mapped_column(String(100))
    risk_score: Mapped[float | None] = mapped_column(Float)
    risk_rating: Mapped[str | None] = mapped_column(String(40))
    source: Mapped[str] = mapped_column(String(200))  # the file it was imported from


for _hazard in HAZARDS:
    setattr(NriTractRow, f"{_hazard.code.lower()}_score", mapped_column(Float, nullable=True))
    setattr(NriTractRow, f"{_hazard.code.lower()}_rating", mapped_column(String(40), nullable=True))


class ZipCountyRow(Base):
    __tablename__ = "zip_county"

    zip: Mapped[str] = mapped_column(String(5), primary_key=True)
    city: Mapped[str | None] = mapped_column(String(100))
    state: Mapped[str | None] = mapped_column(String(2))
    county_fips: Mapped[str | None] = mapped_column(String(5))
    county_name: Mapped[str | None] = mapped_column(String(100))
    lat: Mapped[float | None] = mapped_column(Float)
    lng: Mapped[float | None] = mapped_column(Float)
    county_weights: Mapped[str | None] = mapped_column(Text)
    source: Mapped[str | None] = mapped_column(String(20))


class ZipCountyShareRow(Base):
    """HUD-USPS ZIP → county crosswalk: the share of the ZIP's addresses in each county."""

    __tablename__ = "zip_county_share"

    zip: Mapped[str] = mapped_column(String(5), primary_key=True)
    county_fips: Mapped[str] = mapped_column(String(5), primary_key=True)
    total_share: Mapped[float] = mapped_column(Float)
    residential_share: Mapped[float | None] = mapped_column(Float)
    business_share: Mapped[float | None] = mapped_column(Float)
    preferred_city: Mapped[str | None] = mapped_column(String(100))
    preferred_state: Mapped[str | None] = mapped_column(String(2))


class PlaceCountyRow(Base):
    """A place (city, CDP, town or township) in a county, with the share of its population there."""

    __tablename__ = "place_county"
    __table_args__ = (Index(None, "state", "place_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    state: Mapped[str] = mapped_column(String(2))
    place_key: Mapped[str] = mapped_column(String(120))  # domain/county_choice.py place_key()
    place_name: Mapped[str] = mapped_column(String(120))
    county_fips: Mapped[str] = mapped_column(String(5))
    share: Mapped[float | None] = mapped_column(Float)
    source: Mapped[str] = mapped_column(String(40))
    # SimpleMaps cities only: the city's point (in this county, as SimpleMaps says) and its ZIPs,
    # separated by "|" (an address typed without a ZIP is resolved through them).
    lat: Mapped[float | None] = mapped_column(Float)
    lng: Mapped[float | None] = mapped_column(Float)
    zips: Mapped[str | None] = mapped_column(Text)


class ZipPointRow(Base):
    """A ZIP's point from one source with the county that same source puts it in (GeoNames):
    without county polygons, a point is trusted to lie in a county only when its source says so."""

    __tablename__ = "zip_point"

    zip: Mapped[str] = mapped_column(String(5), primary_key=True)
    source: Mapped[str] = mapped_column(String(20), primary_key=True)
    county_fips: Mapped[str | None] = mapped_column(String(5))
    lat: Mapped[float] = mapped_column(Float)
    lng: Mapped[float] = mapped_column(Float)


class NaicsCodeRow(Base):
    __tablename__ = "naics_code"

    code: Mapped[str] = mapped_column(String(6), primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    level: Mapped[int] = mapped_column(Integer)


class BusinessRow(Base):
    __tablename__ = "business"
    __table_args__ = (Index(None, "building_zip", "building_street"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    source: Mapped[str] = mapped_column(String(80))
    source_record_id: Mapped[str | None] = mapped_column(String(80))
    name: Mapped[str] = mapped_column(String(300))
    legal_name: Mapped[str | None] = mapped_column(String(300))
    naics_code: Mapped[str | None] = mapped_column(String(6))
    street_address: Mapped[str | None] = mapped_column(String(300))
    city: Mapped[str | None] = mapped_column(String(100))
    state: Mapped[str | None] = mapped_column(String(2))
    zip: Mapped[str | None] = mapped_column(String(5))
    building_street: Mapped[str | None] = mapped_column(String(200))
    building_zip: Mapped[str | None] = mapped_column(String(5))
    operating_status: Mapped[str] = mapped_column(String(30))
    lat: Mapped[float | None] = mapped_column(Float)
    lng: Mapped[float | None] = mapped_column(Float)


class BuildingRow(Base):
    __tablename__ = "building"
    __table_args__ = (Index(None, "building_zip", "building_street"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    source: Mapped[str] = mapped_column(String(80))
    source_record_id: Mapped[str | None] = mapped_column(String(80))
    property_name: Mapped[str | None] = mapped_column(String(300))
    address: Mapped[str | None] = mapped_column(String(300))
    city: Mapped[str | None] = mapped_column(String(100))
    state: Mapped[str | None] = mapped_column(String(2))
    zip: Mapped[str | None] = mapped_column(String(5))
    building_street: Mapped[str | None] = mapped_column(String(200))
    building_zip: Mapped[str | None] = mapped_column(String(5))
    parcel: Mapped[str | None] = mapped_column(String(40))
    neighborhood: Mapped[str | None] = mapped_column(String(100))
    lat: Mapped[float | None] = mapped_column(Float)
    lng: Mapped[float | None] = mapped_column(Float)
    year_built: Mapped[int | None] = mapped_column(Integer)
    property_type: Mapped[str | None] = mapped_column(String(100))
    floors: Mapped[int | None] = mapped_column(Integer)
    buildings: Mapped[int | None] = mapped_column(Integer)
    gfa_total: Mapped[int | None] = mapped_column(Integer)
    gfa_parking: Mapped[int | None] = mapped_column(Integer)
    largest_use: Mapped[str | None] = mapped_column(String(200))
    all_uses: Mapped[str | None] = mapped_column(Text)
    tract_geoid: Mapped[str | None] = mapped_column(String(11))  # when the source gives the census tract


class DatasetLoadRow(Base):
    __tablename__ = "dataset_load"

    dataset: Mapped[str] = mapped_column(String(60), primary_key=True)
    version: Mapped[str | None] = mapped_column(String(100))
    row_count: Mapped[int] = mapped_column(Integer)
    source_file: Mapped[str] = mapped_column(String(2000))
    source_fingerprint: Mapped[str] = mapped_column(String(1000))  # name:size:mtime of each file
    loaded_at: Mapped[datetime]
    seconds: Mapped[float] = mapped_column(Float)

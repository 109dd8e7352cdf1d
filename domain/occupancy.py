"""What stands at an address: the building and the businesses in it."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.address import BuildingKey

UNKNOWN = "NA"  # SPEC §3: the value NA means unknown


@dataclass(frozen=True, slots=True)
class ParsedAddress:
    street: str  # as typed, unit cut off
    city: str | None
    state: str | None
    zip5: str
    unit: str | None
    key: BuildingKey
    # False when no street number and name could be read ("PO BOX 12", "7TH AND TAYLOR"): the
    # answer is for the ZIP code and city, not for a building.
    street_read: bool = True

    @property
    def one_line(self) -> str:
        place = ", ".join(p for p in (self.city, f"{self.state or ''} {self.zip5}".strip()) if p)
        return f"{self.street}, {place}"


@dataclass(frozen=True, slots=True)
class GeoPoint:
    lat: float
    lng: float
    match_level: str  # 'building', 'zip_centroid', 'census_exact', ...
    # Where the geocoder itself says the point is (Census geographies): decides the county.
    county_fips: str | None = None
    tract_geoid: str | None = None


@dataclass(frozen=True, slots=True)
class Occupant:
    name: str
    vicinity: str
    types: list[str] = field(default_factory=list)
    business_status: str = UNKNOWN
    lat: float | None = None
    lng: float | None = None
    naics_code: str | None = None
    naics_title: str | None = None
    photo_reference: str | None = None


@dataclass(frozen=True, slots=True)
class Building:
    address: str
    property_name: str | None = None
    year_built: int | None = None
    property_type: str | None = None
    floors: int | None = None
    buildings: int | None = None
    gfa_total: int | None = None
    gfa_parking: int | None = None
    largest_use: str | None = None
    neighborhood: str | None = None
    parcel: str | None = None
    lat: float | None = None
    lng: float | None = None
    source: str | None = None
    tract_geoid: str | None = None  # the census tract, when the record carries one

    def details(self) -> list[tuple[str, str]]:
        """Building facts as 'Key: value' pairs; vacancies and rent are unknown in every open source."""
        facts = [
            ("Property Name", self.property_name),
            ("Property Type", self.property_type),
            ("Floors", self.floors),
            ("Buildings", self.buildings),
            ("Gross Floor Area", _square_feet(self.gfa_total)),
            ("Parking", _square_feet(self.gfa_parking)),
            ("Largest Use", self.largest_use),
            ("Neighborhood", self.neighborhood),
            ("Parcel", self.parcel),
        ]
        return [(key, str(value)) for key, value in facts if value not in (None, "")]


def _square_feet(value: int | None) -> str | None:
    return None if value is None else f"{value:,} sq ft"

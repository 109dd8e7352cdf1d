"""What stands at an address: the building and the businesses in it."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.address import BuildingKey, normalize_street, normalize_zip, street_is_read
from domain.us_states import state_code

UNKNOWN = "NA"  # SPEC §3: the value NA means unknown
ADDRESS_MATCH_LEVELS = frozenset({"building", "census_exact"})


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
    # How the address was read where the user should know it: a ZIP code that could not be read,
    # a misspelt city read as a known one, a ZIP code found from the street and city.
    notes: tuple[str, ...] = ()

    @property
    def one_line(self) -> str:
        place = ", ".join(p for p in (self.city, f"{self.state or ''} {self.zip5}".strip()) if p)
        return f"{self.street}, {place}"


def address_from_parts(
    street: str, city: str | None, state: str | None, zip_code: str | None, unit: str | None = None
) -> ParsedAddress | None:
    """An address from its parts, by one rule for a single lookup's parsed line and a batch row's
    columns (#26, item 6; README "Addresses"): a street that starts with a house number and a name
    is answered for its building; any other street (a PO box, a corner, a rural route, nothing)
    for its ZIP code and city, with a note. Without a readable 5-digit ZIP code, the city (and
    state) locates it. None when neither a ZIP code nor a city is given: nothing locates it."""
    street, city, state = (street or "").strip(" ,"), (city or "").strip(" ,") or None, (state or "").strip(" ,.") or None
    zip5 = normalize_zip(zip_code or "") or ""
    if not zip5 and not city:
        return None
    notes = (f'ZIP code "{zip_code.strip()}" could not be read as a 5-digit ZIP code: the city locates this address.',) if (
        not zip5 and (zip_code or "").strip()) else ()
    street_key = normalize_street(street)
    # A state named in full reads as its code; one not known stays as typed (the resolver may read it).
    state = state_code(state) or (state.upper() if state else None)
    return ParsedAddress(street=street, city=city, state=state, zip5=zip5, unit=unit,
                         key=BuildingKey(street_key, zip5), street_read=street_is_read(street_key), notes=notes)


@dataclass(frozen=True, slots=True)
class GeoPoint:
    lat: float
    lng: float
    match_level: str  # 'building', 'census_exact', 'place', 'zip_centroid'
    # Where the geocoder itself says the point is (Census geographies): decides the county.
    county_fips: str | None = None
    tract_geoid: str | None = None

    @property
    def at_address(self) -> bool:
        """A point at the building itself (its record, or the geocoder's match of the street),
        not the centre of a ZIP code or a place: only there do nearby businesses occupy it."""
        return self.match_level in ADDRESS_MATCH_LEVELS


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
class OccupantCoverage:
    """Whether an occupant source covers an address: outside its coverage the occupants are
    unknown (no count at all), inside it an empty list means none was found."""

    covered: bool
    source: str  # the places provider's name
    covers: str  # what it covers, in a sentence the user reads once
    photos: bool = False  # whether the source gives photos (else their count is unknown too)


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

"""The answer for one address, as a value: what every edge (the single lookup's JSON, the stored
search, batch rows, exports, the public API) is made from. Unknown is None, never 0."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.occupancy import Building, GeoPoint, Occupant, ParsedAddress
from domain.perils import PerilScores


@dataclass(frozen=True, slots=True)
class CountyAlternative:
    """Another county the address may be in, with the share of the evidence and its score."""

    county_fips: str
    county_name: str | None
    state: str | None
    share: float
    total_score: float | None
    risk_rating: str | None


@dataclass(frozen=True, slots=True)
class Location:
    method: str  # domain/county_choice.py: zip, zip_and_place, zip_share, place, geocoder, none
    county_fips: str | None
    county_name: str | None
    state: str | None
    confidence: float | None
    low_confidence: bool
    alternatives: tuple[CountyAlternative, ...] = ()
    notes: tuple[str, ...] = ()
    point: GeoPoint | None = None  # building record, geocoder match or ZIP centroid (match_level says)
    tract_geoid: str | None = None
    locator: str | None = None  # the source that chose the county

    @property
    def located(self) -> bool:
        return self.county_fips is not None or self.point is not None


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where each part of the answer came from."""

    nri_version: str | None
    geocoder: str
    places: str
    perils: str | None
    property_records: str | None
    scored_at: str  # ISO 8601
    from_cache: bool = False
    cache_max_age_hours: int | None = None


@dataclass(frozen=True, slots=True)
class LookupResult:
    search_id: str
    query: str
    address: ParsedAddress
    location: Location
    perils: PerilScores | None  # None: the county is unknown or not scored
    building: Building | None
    occupants: tuple[Occupant, ...] = field(default_factory=tuple)
    provenance: Provenance | None = None

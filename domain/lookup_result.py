"""The answer for one address, as a value: what every edge (the single lookup's JSON, the stored
search, batch rows, exports, the public API) is made from. Unknown is None, never 0."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from domain.address import format_address_text
from domain.occupancy import Building, GeoPoint, Occupant, OccupantCoverage, ParsedAddress
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
class TractPerils:
    """FEMA's scores for the census tract the address lies in, beside the county's (which stay
    the primary scores): tract scores rank tracts nationally, so they are not comparable with
    county scores, and may come from another NRI release (`notes` says so)."""

    tract_geoid: str  # 11 digits: state, county, tract
    county_fips: str
    scores: PerilScores
    nri_version: str | None
    tract_from: str  # where the tract GEOID came from: "geocoder" or "building record"
    notes: tuple[str, ...] = ()  # what the user must know of these scores: a release other than the county's


@dataclass(frozen=True, slots=True)
class DatasetVersion:
    dataset: str
    version: str | None
    as_of: str | None  # the date of the data itself (release or snapshot)


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where each part of the answer came from."""

    nri_version: str | None
    geocoder: str
    places: str
    perils: str | None
    property_records: str | None
    scored_at: str  # ISO 8601
    datasets: tuple[DatasetVersion, ...] = ()
    from_cache: bool = False
    cache_max_age_hours: int | None = None
    tract_perils: str | None = None  # the source of the census-tract scores, when the answer has them


NOT_PROCESSED = "failed"  # a batch row given up after its chunk failed every attempt


@dataclass(frozen=True, slots=True)
class LookupResult:
    search_id: str
    query: str
    address: ParsedAddress | None  # None: the input could not be read as an address (a batch row)
    location: Location
    perils: PerilScores | None  # None: the county is unknown or not scored
    building: Building | None
    provenance: Provenance
    occupants: tuple[Occupant, ...] = field(default_factory=tuple)
    # None: no tract GEOID for the address, or its tract's scores are not loaded.
    tract_perils: TractPerils | None = None
    # None: not recorded (an answer stored before coverage was), or the row was never looked up.
    occupant_coverage: OccupantCoverage | None = None

    @property
    def occupants_known(self) -> bool:
        """Whether the occupant list is the whole answer: a covering source looked, or an
        answer of old found some (an empty old answer may never have been covered)."""
        coverage = self.occupant_coverage
        return bool(self.occupants) or (coverage is not None and coverage.covered)

    @property
    def occupant_count(self) -> int | None:
        """How many businesses are at the address; None when no occupant source covers it."""
        return len(self.occupants) if self.occupants_known else None

    @property
    def photo_count(self) -> int | None:
        """The occupants' photos; None when the occupants are unknown or their source gives none."""
        photos = sum(1 for occupant in self.occupants if occupant.photo_reference)
        coverage = self.occupant_coverage
        return photos if photos or (coverage is not None and coverage.covered and coverage.photos) else None


def address_text(result: LookupResult) -> str:
    """SPEC §3's address text: the address line, 'Year Built', then the building's facts as
    'Key: value' lines. Vacancies and rent are unknown in every open source we have."""
    building = result.building
    details = building.details() if building else []
    details += [("Total Space Available", "Unknown"), ("Rental Rate", "Unknown")]
    if result.location.method == NOT_PROCESSED:
        details.append(("Note", result.location.notes[0]))
    elif result.address is None:
        details.append(("Note", "could not read a street and 5-digit ZIP"))
    line = result.address.one_line if result.address else result.query
    return format_address_text(line, building.year_built if building else None, details)


def not_located(query: str, note: str, scored_at: str, search_id: str, method: str = "none") -> LookupResult:
    """An input row that could not be read as an address: kept in the batch, answered as unknown.
    With method NOT_PROCESSED, a row whose lookup failed every attempt; the note says why."""
    return LookupResult(
        search_id=search_id,
        query=query,
        address=None,
        location=Location(method=method, county_fips=None, county_name=None, state=None, confidence=None,
                          low_confidence=False, notes=(note,)),
        perils=None,
        building=None,
        provenance=Provenance(nri_version=None, geocoder="", places="", perils=None, property_records=None,
                              scored_at=scored_at),
    )


def with_location_note(result: LookupResult, note: str) -> LookupResult:
    """The answer with one more thing the user should check; it marks the location uncertain."""
    location = replace(result.location, notes=(*result.location.notes, note), low_confidence=True)
    return replace(result, location=location)

"""JSON of the lookup answer (SPEC §3 and §7 field names, kept for the web app and older
clients, with the location and receipt beside them), made from the typed `LookupResult`.
msgspec Structs, so /schema documents every field."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import msgspec

from domain.lookup_result import LookupResult, address_text
from domain.occupancy import UNKNOWN, Occupant, OccupantCoverage
from domain.answer_record import location_record, perils_record, ratings_record, receipt_record, tract_record
from domain.perils import PerilScores


class OccupantBody(msgspec.Struct):
    name: str
    vicinity: str
    types: list[str]
    business_status: str  # OPERATIONAL, CLOSED_PERMANENTLY, CLOSED_TEMPORARILY or NA (unknown)
    lat: float | None
    lng: float | None
    naics_code: str  # 6-digit NAICS 2022, or N/A
    naics_title: str | None
    photo_reference: str | None


class AlternativeBody(msgspec.Struct):
    county_fips: str
    county_name: str | None
    state: str | None
    share: float  # of the evidence (ZIP addresses, place population), 0..1
    Total_Score: float | None  # noqa: N815 - SPEC's field name
    risk_rating: str | None


class LocationBody(msgspec.Struct):
    method: str  # zip, zip_and_place, zip_share, place, geocoder, none
    county_fips: str | None
    county_name: str | None
    state: str | None
    confidence: float | None  # 0..1; null when nothing was located
    low_confidence: bool
    alternatives: list[AlternativeBody]
    notes: list[str]
    source: str | None
    tract_geoid: str | None
    match_level: str  # building, census_exact, place, zip_centroid or none: what lat/lng are (always in the county)
    lat: float | None
    lng: float | None


class DatasetBody(msgspec.Struct):
    dataset: str
    version: str | None
    as_of: str | None


class ScoreGeographyBody(msgspec.Struct):
    geography_level: str  # county (the primary scores) or tract
    geoid: str | None  # 5-digit county or 11-digit tract
    nri_version: str | None


class TractBody(msgspec.Struct):
    """FEMA's scores for the address's census tract, beside the county's (the primary ones).
    Tract scores rank tracts nationally: not comparable with county scores (see notes)."""

    geography_level: str  # always "tract"
    tract_geoid: str
    county_fips: str
    nri_version: str | None
    tract_from: str  # where the tract came from: geocoder or building record
    perils: dict[str, float | None]  # XXXX_Score per hazard and Total_Score; null: no score (ratings says why: Not Applicable or Insufficient Data)
    ratings: dict[str, str | None]
    Total_Score: float | None  # noqa: N815
    Top3_Scores_Combined: str  # noqa: N815
    notes: list[str]  # this answer's: when the tract's NRI release is not the county's, that
    about: str  # what tract scores are, next to county scores


class ReceiptBody(msgspec.Struct):
    nri_version: str | None
    county_fips: str | None
    county_name: str | None
    state: str | None
    geography_level: str | None
    geocode_match: str
    lat: float | None
    lng: float | None
    providers: dict[str, str | None]
    scored_at: str
    datasets: list[DatasetBody] = []
    from_cache: bool = False
    cache_max_age_hours: int | None = None
    # Each set of scores in the answer with its geography and NRI release (absent on old answers).
    score_geographies: list[ScoreGeographyBody] = []


class PhotoBody(msgspec.Struct):
    photo_reference: str


class ExtraInfoBody(msgspec.Struct):
    photos: list[PhotoBody]
    rating: float | None


class OccupantCoverageBody(msgspec.Struct):
    """Whether an occupant source covers the address: if not, occupants are unknown (total_results null)."""

    covered: bool
    source: str | None  # the occupant source's name
    covers: str  # what the source covers, to be said once on the page
    photos: bool  # whether the source gives photos (else their count is unknown)


class SearchResultBody(msgspec.Struct):
    search_id: str
    query: str
    address: str  # SPEC §3 address text: street line, 'Year Built', then 'Key: value' lines
    timestamp: str
    building: dict[str, Any] | None
    occupants: list[OccupantBody]
    total_results: int | None  # null: no occupant source covers the address (unknown, not none)
    perils: dict[str, float | None]  # XXXX_Score per hazard and Total_Score; null: no score (ratings says why: Not Applicable or Insufficient Data)
    ratings: dict[str, str | None]  # FEMA's words: Very Low..Very High, Not Applicable, Insufficient Data, No Rating
    Total_Score: float | None  # noqa: N815
    Top3_Scores_Combined: str  # noqa: N815
    naics_code: str
    types: list[str]
    business_status: str
    extra_info: ExtraInfoBody
    vacancies: int | None
    rental_rate: str | None
    receipt: ReceiptBody
    # Answers stored before the county choice was recorded have none.
    location: LocationBody | None = None
    # The census tract's scores, when the tract is known and its NRI table loaded.
    tract: TractBody | None = None
    # Absent on answers stored before coverage was recorded.
    occupant_coverage: OccupantCoverageBody | None = None


def occupant_body(occupant: Occupant) -> OccupantBody:
    return OccupantBody(
        name=occupant.name or UNKNOWN,
        vicinity=occupant.vicinity or UNKNOWN,
        types=list(occupant.types),
        business_status=occupant.business_status or UNKNOWN,
        lat=occupant.lat,
        lng=occupant.lng,
        naics_code=occupant.naics_code or "N/A",
        naics_title=occupant.naics_title,
        photo_reference=occupant.photo_reference,
    )


def result_body(result: LookupResult | dict) -> SearchResultBody | None:
    """The answer as JSON: a typed answer, or one stored before answers were typed, as stored
    (None if such an old answer no longer reads as one: the web shows it as a failed search)."""
    if isinstance(result, dict):
        try:
            return msgspec.convert(result, SearchResultBody)
        except msgspec.ValidationError:
            return None
    scores = result.perils or PerilScores(scores={})
    occupants = [occupant_body(o) for o in result.occupants]
    first = occupants[0] if occupants else None
    return SearchResultBody(
        search_id=result.search_id,
        query=result.query,
        address=address_text(result),
        timestamp=result.provenance.scored_at,
        building=asdict(result.building) if result.building else None,
        occupants=occupants,
        total_results=result.occupant_count,
        perils=perils_record(result),
        ratings=ratings_record(result),
        Total_Score=scores.total,
        Top3_Scores_Combined=scores.top3_combined(),
        naics_code=first.naics_code if first else "N/A",
        types=first.types if first else [],
        business_status=first.business_status if first else UNKNOWN,
        extra_info=ExtraInfoBody(
            photos=[PhotoBody(o.photo_reference) for o in result.occupants if o.photo_reference], rating=None
        ),
        vacancies=None,
        rental_rate=None,
        receipt=msgspec.convert(receipt_record(result), ReceiptBody),
        location=msgspec.convert(location_record(result.location), LocationBody),
        tract=msgspec.convert(tract, TractBody) if (tract := tract_record(result)) else None,
        occupant_coverage=coverage_body(result.occupant_coverage),
    )


def coverage_body(coverage: OccupantCoverage | None) -> OccupantCoverageBody | None:
    if coverage is None:
        return None
    return OccupantCoverageBody(covered=coverage.covered, source=coverage.source, covers=coverage.covers,
                                photos=coverage.photos)


class BatchRowBody(msgspec.Struct):
    """One answered row of SPEC §7's POST /api/search: what its match and export steps carry on."""

    address: str
    occupants: list[OccupantBody]
    Total_Score: float | None  # noqa: N815
    Top3_Scores_Combined: str  # noqa: N815


def batch_row_body(result: LookupResult) -> BatchRowBody:
    scores = result.perils
    return BatchRowBody(
        address=address_text(result),
        occupants=[occupant_body(o) for o in result.occupants],
        Total_Score=scores.total if scores else None,
        Top3_Scores_Combined=scores.top3_combined() if scores else "",
    )


def spec_json(result: LookupResult | dict) -> dict[str, Any]:
    """The answer as the plain JSON the web reads (a stored old answer is that already)."""
    if isinstance(result, dict):
        return result
    return msgspec.to_builtins(result_body(result))

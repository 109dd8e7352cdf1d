"""A batch's portfolio at a glance: where the locations are, how exposed the book is to each
peril, which locations are the worst, and how well the addresses were located.

The figures are summed by group-bys over the export's columnar dataset when they are asked for
(adapters/results/portfolio.py), for any peril and any of the user's columns as the value: this
module holds the summary's types and the pure rules the query follows (what a user's number is,
a NAICS code's sector, a score's bin, the order of counts, a county's three top hazards, the NRI
releases of the tract scores). Unknown scores are left out of the histograms and counted as
unknown, never as 0. Census-tract scores are summed apart (by NRI release, beside the county
figures of the same locations), never merged into the county figures: tract scores rank tracts,
county scores rank counties."""

from __future__ import annotations

import math
import re

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from domain.batch_input import OPTIONAL_COLUMNS, REQUIRED_COLUMNS
from domain.nri_release import parse_release
from domain.perils import HAZARDS

COMPOSITE = "composite"
PERIL_IDS: tuple[str, ...] = (COMPOSITE, *(hazard.code for hazard in HAZARDS))
PERIL_NAMES: dict[str, str] = {COMPOSITE: "Composite (all 18 perils)", **{h.code: h.name for h in HAZARDS}}
HIGH_RATINGS = frozenset({"Relatively High", "Very High"})
BIN_COUNT = 10  # 0-10, 10-20, ... 90-100 (the last bin holds 100)
BIN_WIDTH = 100 / BIN_COUNT
TOP_COUNT = 50
TOP_HAZARDS = 3
NOT_LOCATED = "not located"
NO_OCCUPANTS = "none"
NOT_COVERED = "not covered"  # no occupant source covers the location: its occupants are unknown
NO_RATING = "no rating"
# NAICS 2022 sectors spanning several 2-digit codes (the others are their own 2 digits).
SECTOR_OF_PREFIX = {"31": "31-33", "32": "31-33", "33": "31-33", "44": "44-45", "45": "44-45",
                    "48": "48-49", "49": "48-49"}
BUILDING_FIELDS = ("property_name", "year_built", "property_type", "floors", "gross_floor_area_sqft", "largest_use")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def score_field(peril: str) -> str:
    return "Total_Score" if peril == COMPOSITE else f"{peril}_Score"


def rating_field(peril: str) -> str:
    return "risk_rating" if peril == COMPOSITE else f"{peril}_Rating"


# The census tract's own scores sit beside the county's in the same record, prefixed (domain/detailed_export.py).
TRACT_PREFIX = "tract_"
NRI_VERSION, TRACT_NRI_VERSION = "nri_version", "tract_nri_version"
UNKNOWN_VERSION = "unknown"


def naics_sector(code: str) -> str | None:
    """The 2022 sector of a NAICS code ('722511' -> '72', '445110' -> '44-45'); None if not a code."""
    prefix = code.strip()[:2]
    if len(prefix) < 2 or not prefix.isdigit():
        return None
    return SECTOR_OF_PREFIX.get(prefix, prefix)


def parse_value(cell: Any) -> float | None:
    """A user's number as typed in a spreadsheet: '2,500,000', '$1.2e6', ' 300 ', '(50)' stays
    unreadable. The export guards '-5' against formulas as "'-5": read back as -5."""
    if isinstance(cell, bool):
        return None
    if isinstance(cell, int | float):
        return float(cell) if math.isfinite(cell) else None
    if not isinstance(cell, str):
        return None
    if cell.isascii() and cell.isdigit():  # the common case, without the pattern
        number = float(cell)
        return number if math.isfinite(number) else None
    text = cell.strip()
    if text.startswith("'"):
        text = text[1:]
    text = text.replace(",", "").replace("$", "").replace(" ", "")
    if not _NUMBER.match(text):
        return None
    number = float(text)
    return number if math.isfinite(number) else None


# --- the summary ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Headline:
    rows: int
    located: int
    located_by_match_level: dict[str, int]  # building, census_exact, place, zip_centroid, ...
    low_confidence: int
    not_located: int
    with_occupants: int
    with_building_record: int
    # Located, but no occupant source covers them: neither with nor without occupants.
    occupants_not_covered: int = 0
    # Rows by the status column the exports and the viewer count by: answered, answered at ZIP
    # level, not located (one count everywhere; located = every status but not located).
    by_status: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PerilDistribution:
    peril: str  # "composite" or a hazard code
    name: str
    bins: list[int]  # BIN_COUNT counts of known scores, 0-10 ... 90-100
    scored: int
    unknown: int  # locations without a score for this peril (not located, or not applicable there)
    high: int  # rated Relatively High or Very High
    ratings: dict[str, int]  # every rating seen, "no rating" for none


@dataclass(frozen=True, slots=True)
class HazardScore:
    peril: str
    name: str
    score: float


@dataclass(frozen=True, slots=True)
class CountyExposure:
    county_fips: str
    county_name: str | None
    state: str | None
    locations: int
    composite_score: float | None
    composite_rating: str | None
    top_hazards: list[HazardScore]
    value: float | None  # sum of the value column; None without one


@dataclass(frozen=True, slots=True)
class ValueByRating:
    peril: str
    ratings: dict[str, float]  # rating -> summed value ("no rating" for none)


@dataclass(frozen=True, slots=True)
class ValueSummary:
    column: str
    total: float
    parsed: int
    unparsed: int  # cells that are not numbers
    blank: int
    by_rating: list[ValueByRating]


@dataclass(frozen=True, slots=True)
class RiskyLocation:
    index: int  # position of the record in the export (0-based): the export viewer's group
    row: int  # line of the uploaded file
    address: str
    county_fips: str | None
    county_name: str | None
    state: str | None
    score: float
    rating: str | None
    nri_version: str | None  # of the county's scores
    # The census tract's score and rating for the same peril; None where the tract's scores are unknown.
    tract_score: float | None
    tract_rating: str | None
    tract_nri_version: str | None  # may differ from the county's


@dataclass(frozen=True, slots=True)
class TractDistribution:
    """One peril at tract level, over the locations with tract scores only, with the county-level
    count of the same locations beside it (tract scores rank tracts, county scores counties)."""

    peril: str
    name: str
    bins: list[int]  # BIN_COUNT counts of known tract scores
    scored: int
    unknown: int  # locations with tract scores but none for this peril
    high: int  # tract rated Relatively High or Very High
    county_high: int  # the same locations, county rated Relatively High or Very High


@dataclass(frozen=True, slots=True)
class TractSummary:
    locations: int  # locations with census-tract scores
    by_version: dict[str, int]  # tract NRI release -> locations ("unknown" when not said)
    county_versions: dict[str, int]  # the county NRI release of those same locations
    other_release: int  # locations whose tract scores come from another release than their county's
    distributions: list[TractDistribution]


@dataclass(frozen=True, slots=True)
class SectorMix:
    sector: str  # "72", "44-45", or "none" for locations without a known occupant
    name: str | None
    locations: int
    ratings: dict[str, int]  # rating of the chosen peril -> locations


@dataclass(frozen=True, slots=True)
class PortfolioSummary:
    headline: Headline
    distributions: list[PerilDistribution]
    counties: list[CountyExposure]  # most locations first
    value: ValueSummary | None
    ranked_by: str  # the peril of the top list and of sector x rating
    riskiest: list[RiskyLocation]  # highest score first; ties in file order
    sectors: list[SectorMix]  # most locations first
    tracts: TractSummary | None = None  # None: no location has census-tract scores


# --- the rules the query follows ----------------------------------------------------------


def score_bin(score: float) -> int:
    """The histogram bin of a known score: 0-10 ... 90-100, 100 in the last, below 0 in the first."""
    if score >= 100:
        return BIN_COUNT - 1
    return int(score // BIN_WIDTH) if score > 0 else 0


def sector_of(naics_codes: str | None, located: bool, occupant_count: int | None) -> str:
    """The sector of a location's most common occupant code (listed first), else "not covered"
    for a location no occupant source covers (its occupants unknown), else "none"."""
    for code in (naics_codes or "").split():
        sector = naics_sector(code)
        if sector:
            return sector
    return NOT_COVERED if located and occupant_count is None else NO_OCCUPANTS


def most_common(counts: Mapping[str, int | float], first_seen: Mapping[str, int] | None = None) -> dict[str, Any]:
    """Most first; ties in the order first seen (`first_seen`: the key's first row), as
    Counter.most_common on the rows in file order."""
    seen = first_seen or {}
    return dict(sorted(counts.items(), key=lambda item: (-item[1], seen.get(item[0], 0))))


def top_hazards(scores: Mapping[str, float | None]) -> list[HazardScore]:
    """A county's highest hazard scores, ties in hazard order; unknown scores left out."""
    known = [(hazard, scores.get(hazard.code)) for hazard in HAZARDS]
    ranked = sorted(((h, s) for h, s in known if s is not None), key=lambda pair: -pair[1])
    return [HazardScore(h.code, h.name, s) for h, s in ranked[:TOP_HAZARDS]]


@dataclass(frozen=True, slots=True)
class ReleaseCounts:
    by_version: dict[str, int]
    county_versions: dict[str, int]
    other_release: int


def tract_releases(groups: Iterable[tuple[str | None, str | None, int, int]]) -> ReleaseCounts:
    """The NRI releases of locations with tract scores, from (tract release text, county release
    text, locations, first row) groups: "1.20.0" and "1.20.0 (December 2025)" are one release;
    an unknown release is said as unknown, never guessed, and never counted as another."""
    versions: dict[str, int] = {}
    county_versions: dict[str, int] = {}
    first: dict[str, int] = {}
    county_first: dict[str, int] = {}
    other = 0
    for tract_text, county_text, locations, first_row in groups:
        release, county_release = parse_release(tract_text), parse_release(county_text)
        label = release.label if release else UNKNOWN_VERSION
        county_label = county_release.label if county_release else UNKNOWN_VERSION
        versions[label] = versions.get(label, 0) + locations
        county_versions[county_label] = county_versions.get(county_label, 0) + locations
        first[label] = min(first.get(label, first_row), first_row)
        county_first[county_label] = min(county_first.get(county_label, first_row), first_row)
        if release and county_release and not release.same_as(county_release):
            other += locations
    return ReleaseCounts(most_common(versions, first), most_common(county_versions, county_first), other)


_ADDRESS_COLUMNS = frozenset(name.lower() for name in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS))


def value_columns(user_columns: Iterable[str]) -> tuple[str, ...]:
    """The upload's columns a value may be read from: its own, not the address's (a ZIP code is
    no sum), in file order."""
    return tuple(name for name in user_columns if name.strip().lower() not in _ADDRESS_COLUMNS)


def sectors_seen(summary: PortfolioSummary) -> set[str]:
    return {mix.sector for mix in summary.sectors if mix.sector not in (NO_OCCUPANTS, NOT_COVERED)}


def with_sector_names(summary: PortfolioSummary, sector_names: Mapping[str, str]) -> PortfolioSummary:
    """The summary with its sectors named (from the NAICS table, when it is asked for)."""
    sectors = [replace(mix, name=sector_names.get(mix.sector)) for mix in summary.sectors]
    return replace(summary, sectors=sectors)


def first_line(text: Any) -> str:
    return str(text or "").split("\n", 1)[0]

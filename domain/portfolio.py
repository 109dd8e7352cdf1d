"""A batch's portfolio at a glance, summed in one pass over its detailed records
(domain/detailed_export.py): where the locations are, how exposed the book is to each peril,
which locations are the worst, and how well the addresses were located.

Memory grows with counties x perils (and the 50 kept for the top list), never with rows, so a
million-row batch is summed in the same space as a thousand-row one. Unknown scores are left
out of the histograms and counted as unknown, never as 0. Census-tract scores, where a record has
them, are summed apart (by NRI release, beside the county figures of the same locations), never
merged into the county figures: tract scores rank tracts, county scores rank counties."""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from domain.nri_release import NriRelease, parse_release
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


# Every field of a detailed record the summary reads (the rest: receipt, perils, location... is skipped).
RECORD_FIELDS: tuple[str, ...] = (
    "row", "input", "status", "match_level", "low_confidence", "occupant_count", "naics_codes",
    "county_fips", "county_name", "county_state", "normalized_address", "address",
    *BUILDING_FIELDS, *(name for peril in PERIL_IDS for name in (score_field(peril), rating_field(peril))),
    NRI_VERSION, TRACT_NRI_VERSION,
    *(TRACT_PREFIX + name for peril in PERIL_IDS for name in (score_field(peril), rating_field(peril))),
)


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
    located_by_match_level: dict[str, int]  # building, census_exact, zip_centroid, ...
    low_confidence: int
    not_located: int
    with_occupants: int
    with_building_record: int


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


# --- one pass ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Distribution:
    bins: list[int] = field(default_factory=lambda: [0] * BIN_COUNT)
    unknown: int = 0
    high: int = 0
    ratings: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class _TractDistribution:
    bins: list[int] = field(default_factory=lambda: [0] * BIN_COUNT)
    unknown: int = 0
    high: int = 0
    county_high: int = 0


class _TractTally:
    """The locations with census-tract scores: read only when a record has some."""

    def __init__(self) -> None:
        self.locations = self.other_release = 0
        self.versions: Counter[str] = Counter()
        self.county_versions: Counter[str] = Counter()
        self.distributions = {peril_id: _TractDistribution() for peril_id in PERIL_IDS}
        self._releases: dict[str | None, NriRelease | None] = {}  # a book has a handful of version texts
        self._fields = [
            (self.distributions[p], TRACT_PREFIX + score_field(p), TRACT_PREFIX + rating_field(p), rating_field(p))
            for p in PERIL_IDS
        ]

    def add(self, record: Mapping[str, Any]) -> None:
        self.locations += 1
        # "1.20.0" and "1.20.0 (December 2025)" are the same release: grouped and compared as releases.
        release, county_release = self._release(record.get(TRACT_NRI_VERSION)), self._release(record.get(NRI_VERSION))
        self.versions[release.label if release else UNKNOWN_VERSION] += 1
        self.county_versions[county_release.label if county_release else UNKNOWN_VERSION] += 1
        if release and county_release and not release.same_as(county_release):
            self.other_release += 1
        for tally, score_name, rating_name, county_rating_name in self._fields:
            score = _score(record.get(score_name))
            if score is None:
                tally.unknown += 1
            else:
                tally.bins[_bin(score)] += 1
            if record.get(rating_name) in HIGH_RATINGS:
                tally.high += 1
            if record.get(county_rating_name) in HIGH_RATINGS:
                tally.county_high += 1

    def _release(self, version: Any) -> NriRelease | None:
        key = version if isinstance(version, str) else None
        if key not in self._releases:
            self._releases[key] = parse_release(key)
        return self._releases[key]

    def summary(self) -> TractSummary | None:
        if not self.locations:
            return None
        return TractSummary(
            locations=self.locations, by_version=dict(self.versions.most_common()),
            county_versions=dict(self.county_versions.most_common()), other_release=self.other_release,
            distributions=[
                TractDistribution(peril=p, name=PERIL_NAMES[p], bins=list(t.bins), scored=sum(t.bins),
                                  unknown=t.unknown, high=t.high, county_high=t.county_high)
                for p, t in self.distributions.items()
            ],
        )


def has_tract_scores(record: Mapping[str, Any]) -> bool:
    # Called for every record: plain lookups, no generator.
    get = record.get
    return (
        get(TRACT_NRI_VERSION) is not None or get("tract_Total_Score") is not None
        or get("tract_risk_rating") is not None
    )


@dataclass(slots=True)
class _County:
    name: str | None
    state: str | None
    locations: int = 0
    value: float = 0.0
    composite: float | None = None
    composite_rating: str | None = None
    top: list[HazardScore] = field(default_factory=list)


def _score(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _rating(value: Any) -> str:
    return value if isinstance(value, str) and value else NO_RATING


def _bin(score: float) -> int:
    if score >= 100:
        return BIN_COUNT - 1
    return int(score // BIN_WIDTH) if score > 0 else 0


class PortfolioTally:
    """Add the records in file order, then read `summary()`. `value_column` is one of the
    user's columns; `peril` ranks the top list and splits the sectors by rating."""

    def __init__(self, value_column: str | None = None, peril: str = COMPOSITE, top: int = TOP_COUNT) -> None:
        if peril not in PERIL_IDS:
            raise ValueError(f"unknown peril {peril!r}")
        self._value_column = value_column
        self._peril = peril
        self._top_size = top
        self._rows = 0
        self._match_levels: Counter[str] = Counter()
        self._low_confidence = self._not_located = self._with_occupants = self._with_building = 0
        self._distributions = {peril_id: _Distribution() for peril_id in PERIL_IDS}
        self._counties: dict[str, _County] = {}
        self._value_total = 0.0
        self._value_parsed = self._value_unparsed = self._value_blank = 0
        self._value_by_rating: dict[str, dict[str, float]] = {p: {} for p in PERIL_IDS}
        self._top: list[tuple[float, int, RiskyLocation]] = []  # min-heap on (score, -index)
        self._fields = [
            (self._distributions[p], score_field(p), rating_field(p), self._value_by_rating[p]) for p in PERIL_IDS
        ]
        self._sectors: Counter[str] = Counter()
        self._sector_ratings: dict[str, Counter[str]] = defaultdict(Counter)
        self._tracts = _TractTally()

    def add(self, index: int, record: Mapping[str, Any]) -> None:
        self._rows += 1
        located = record.get("status") != NOT_LOCATED and record.get("match_level") not in (None, "none")
        if located:
            self._match_levels[str(record.get("match_level"))] += 1
        else:
            self._not_located += 1
        if record.get("low_confidence") in ("yes", True):
            self._low_confidence += 1
        if isinstance(record.get("occupant_count"), int) and record["occupant_count"] > 0:
            self._with_occupants += 1
        if any(record.get(name) not in (None, "") for name in BUILDING_FIELDS):
            self._with_building += 1
        value = self._value(record)
        self._add_county(record, value)
        # The hot loop of a million-row summary: field names are looked up once, in __init__.
        for tally, score_name, rating_name, value_sums in self._fields:
            score = record.get(score_name)
            if score is None or score.__class__ is bool or not isinstance(score, int | float) or score != score:
                tally.unknown += 1
            else:
                tally.bins[_bin(score)] += 1
            rating = record.get(rating_name)
            if rating.__class__ is not str or not rating:
                rating = NO_RATING
            ratings = tally.ratings
            ratings[rating] = ratings.get(rating, 0) + 1
            if rating in HIGH_RATINGS:
                tally.high += 1
            if value is not None:
                value_sums[rating] = value_sums.get(rating, 0.0) + value
        if has_tract_scores(record):
            self._tracts.add(record)
        self._add_top(index, record)
        sector = self._sector(record)
        self._sectors[sector] += 1
        self._sector_ratings[sector][_rating(record.get(rating_field(self._peril)))] += 1

    def _value(self, record: Mapping[str, Any]) -> float | None:
        if self._value_column is None:
            return None
        cell = (record.get("input") or {}).get(self._value_column)
        if cell is None or (isinstance(cell, str) and not cell.strip()):
            self._value_blank += 1
            return None
        value = parse_value(cell)
        if value is None:
            self._value_unparsed += 1
        else:
            self._value_parsed += 1
            self._value_total += value
        return value

    def _add_county(self, record: Mapping[str, Any], value: float | None) -> None:
        fips = record.get("county_fips")
        if not isinstance(fips, str) or not fips:
            return
        county = self._counties.get(fips)
        if county is None:
            county = self._counties[fips] = _County(record.get("county_name"), record.get("county_state"))
        county.locations += 1
        if value is not None:
            county.value += value
        if county.composite is None and not county.top:
            # The county's own scores: every located record of it carries the same ones.
            county.composite = _score(record.get("Total_Score"))
            county.composite_rating = record.get("risk_rating") or None
            known = [(h, _score(record.get(score_field(h.code)))) for h in HAZARDS]
            ranked = sorted(((h, s) for h, s in known if s is not None), key=lambda pair: -pair[1])
            county.top = [HazardScore(h.code, h.name, s) for h, s in ranked[:TOP_HAZARDS]]

    def _add_top(self, index: int, record: Mapping[str, Any]) -> None:
        score = _score(record.get(score_field(self._peril)))
        if score is None:
            return
        key = (score, -index)
        if len(self._top) >= self._top_size and key <= self._top[0][:2]:
            return
        location = RiskyLocation(
            index=index,
            row=record.get("row") if isinstance(record.get("row"), int) else index + 1,
            address=str(record.get("normalized_address") or _first_line(record.get("address"))),
            county_fips=record.get("county_fips"),
            county_name=record.get("county_name"),
            state=record.get("county_state"),
            score=score,
            rating=record.get(rating_field(self._peril)) or None,
            nri_version=record.get(NRI_VERSION) or None,
            tract_score=_score(record.get(TRACT_PREFIX + score_field(self._peril))),
            tract_rating=record.get(TRACT_PREFIX + rating_field(self._peril)) or None,
            tract_nri_version=record.get(TRACT_NRI_VERSION) or None,
        )
        entry = (score, -index, location)
        if len(self._top) < self._top_size:
            heapq.heappush(self._top, entry)
        else:
            heapq.heapreplace(self._top, entry)

    @staticmethod
    def _sector(record: Mapping[str, Any]) -> str:
        """The sector of the location's most common occupant code (the export lists it first)."""
        codes = str(record.get("naics_codes") or "").split()
        for code in codes:
            sector = naics_sector(code)
            if sector:
                return sector
        return NO_OCCUPANTS

    def summary(self, sector_names: Mapping[str, str] | None = None) -> PortfolioSummary:
        located = sum(self._match_levels.values())
        headline = Headline(
            rows=self._rows,
            located=located,
            located_by_match_level=dict(self._match_levels.most_common()),
            low_confidence=self._low_confidence,
            not_located=self._not_located,
            with_occupants=self._with_occupants,
            with_building_record=self._with_building,
        )
        distributions = [
            PerilDistribution(
                peril=peril_id, name=PERIL_NAMES[peril_id], bins=list(tally.bins), scored=sum(tally.bins),
                unknown=tally.unknown, high=tally.high,
                ratings=dict(sorted(tally.ratings.items(), key=lambda item: -item[1])),
            )
            for peril_id, tally in self._distributions.items()
        ]
        with_value = self._value_column is not None
        counties = [
            CountyExposure(
                county_fips=fips, county_name=county.name, state=county.state, locations=county.locations,
                composite_score=county.composite, composite_rating=county.composite_rating,
                top_hazards=list(county.top), value=county.value if with_value else None,
            )
            for fips, county in sorted(self._counties.items(), key=lambda item: (-item[1].locations, item[0]))
        ]
        value = None
        if self._value_column is not None:
            value = ValueSummary(
                column=self._value_column, total=self._value_total, parsed=self._value_parsed,
                unparsed=self._value_unparsed, blank=self._value_blank,
                by_rating=[ValueByRating(p, dict(sums)) for p, sums in self._value_by_rating.items()],
            )
        riskiest = [location for _, _, location in sorted(self._top, key=lambda e: (-e[0], -e[1]))]
        sectors = [
            SectorMix(sector=sector, name=None, locations=count,
                      ratings=dict(self._sector_ratings[sector].most_common()))
            for sector, count in sorted(self._sectors.items(), key=lambda item: (-item[1], item[0]))
        ]
        summary = PortfolioSummary(
            headline, distributions, counties, value, self._peril, riskiest, sectors, self._tracts.summary()
        )
        return with_sector_names(summary, sector_names or {})

    @property
    def sectors_seen(self) -> set[str]:
        return {sector for sector in self._sectors if sector != NO_OCCUPANTS}


def sectors_seen(summary: PortfolioSummary) -> set[str]:
    return {mix.sector for mix in summary.sectors if mix.sector != NO_OCCUPANTS}


def with_sector_names(summary: PortfolioSummary, sector_names: Mapping[str, str]) -> PortfolioSummary:
    """The summary with its sectors named (a stored summary is kept without names: they come from
    the NAICS table when it is read)."""
    sectors = [replace(mix, name=sector_names.get(mix.sector)) for mix in summary.sectors]
    return replace(summary, sectors=sectors)


def _first_line(text: Any) -> str:
    return str(text or "").split("\n", 1)[0]


def summarise(
    records: Iterable[Mapping[str, Any]], value_column: str | None = None, peril: str = COMPOSITE,
    sector_names: Mapping[str, str] | None = None,
) -> PortfolioSummary:
    tally = PortfolioTally(value_column, peril)
    for index, record in enumerate(records):
        tally.add(index, record)
    return tally.summary(sector_names)

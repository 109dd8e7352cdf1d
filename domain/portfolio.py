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
# The tally's state is plain data (dataclasses of numbers, strings, lists and dicts), so it can be
# stored with the export and read back (application/portfolio_tally.py), and the tallies of two
# consecutive parts of a batch merge into the tally of the whole (PortfolioTally.merge).
#
# Ratings are kept per "profile": the ratings of all 19 perils of a location, which the locations
# of a county share. Counts by rating, sector x rating and the value summed by rating are read from
# the rows (or value) per profile, for any peril, without a per-peril sum on every row.

VALUE_COLUMN_LIMIT = 30  # a tally of every variant follows the value of the upload's first 30 columns


def _zeros() -> list[int]:
    return [0] * len(PERIL_IDS)


def _bins() -> list[list[int]]:
    return [[0] * BIN_COUNT for _ in PERIL_IDS]


@dataclass(slots=True)
class TractState:
    """The locations with census-tract scores (PERIL_IDS order in the per-peril lists)."""

    locations: int = 0
    other_release: int = 0
    versions: dict[str, int] = field(default_factory=dict)
    county_versions: dict[str, int] = field(default_factory=dict)
    bins: list[list[int]] = field(default_factory=_bins)
    unknown: list[int] = field(default_factory=_zeros)
    high: list[int] = field(default_factory=_zeros)
    county_high: list[int] = field(default_factory=_zeros)


@dataclass(slots=True)
class CountyState:
    name: str | None
    state: str | None
    locations: int = 0
    composite: float | None = None
    composite_rating: str | None = None
    top: list[HazardScore] = field(default_factory=list)


@dataclass(slots=True)
class ColumnState:
    """One user column as a value: its cells counted, its numbers summed per cell of the tally."""

    name: str
    blank: int = 0
    unparsed: int = 0
    parsed: int = 0
    total: float = 0.0
    sums: dict[int, float] = field(default_factory=dict)  # cell -> value, cells in order of their first value
    followed: bool = True  # False: merged from a part that could not follow it (summed afresh when asked)


@dataclass(slots=True)
class TallyState:
    top_size: int = TOP_COUNT
    ranked: list[str] = field(default_factory=lambda: [COMPOSITE])  # perils with a top list
    column_limit: int | None = None  # None: the value columns were named; else found in the rows, up to this many
    columns_closed: bool = False  # found: a column past the limit was seen
    rows: int = 0
    match_levels: dict[str, int] = field(default_factory=dict)
    low_confidence: int = 0
    not_located: int = 0
    with_occupants: int = 0
    with_building: int = 0
    occupants_not_covered: int = 0
    bins: list[list[int]] = field(default_factory=_bins)  # per peril (PERIL_IDS order)
    unknown: list[int] = field(default_factory=_zeros)
    # The distinct ratings, in order first seen, and each distinct profile as one code per peril (a
    # rating's place in `ratings`, rating_code): a part of a million-row tally decodes and merges
    # hundreds of short strings, not thousands of rating lists (application/portfolio_tally.py).
    ratings: list[str] = field(default_factory=list)
    profiles: list[str] = field(default_factory=list)
    profile_rows: list[int] = field(default_factory=list)
    sectors: dict[str, dict[int, int]] = field(default_factory=dict)  # sector -> profile -> locations
    cells: list[tuple[str | None, int]] = field(default_factory=list)  # (county or None, profile) with a value
    counties: dict[str, CountyState] = field(default_factory=dict)
    tops: dict[str, list[RiskyLocation]] = field(default_factory=dict)  # riskiest first (filled by state())
    columns: list[ColumnState] = field(default_factory=list)
    tracts: TractState = field(default_factory=TractState)


def rating_code(place: int) -> str:
    """The one character standing for the rating at `place` in a tally's ratings (past the
    surrogates, which no text encoding holds)."""
    return chr(place + 0x41 if place + 0x41 < 0xD800 else place + 0x41 + 0x800)


def rating_place(code: str) -> int:
    point = ord(code)
    return point - 0x41 if point < 0xD800 else point - 0x41 - 0x800


def coded_profiles(profiles: Iterable[Iterable[str]]) -> tuple[list[str], list[str]]:
    """Profiles as lists of ratings (the state stored before rating codes) as (ratings, profiles)."""
    codes: dict[str, str] = {}
    coded = ["".join(codes.get(rating) or codes.setdefault(rating, rating_code(len(codes))) for rating in profile)
             for profile in profiles]
    return list(codes), coded


def _add_counts(mine: dict[str, int], theirs: Mapping[str, int]) -> None:
    for key, count in theirs.items():
        mine[key] = mine.get(key, 0) + count


def _add_lists(mine: list[int], theirs: list[int]) -> None:
    for position, count in enumerate(theirs):
        mine[position] += count


def _most_common(counts: Mapping[str, int]) -> dict[str, int]:
    """Most first; ties in the order first seen (as Counter.most_common)."""
    return dict(sorted(counts.items(), key=lambda item: item[1], reverse=True))


class _TractTally:
    """The locations with census-tract scores: read only when a record has some."""

    def __init__(self, state: TractState) -> None:
        self.state = state
        self._releases: dict[str | None, NriRelease | None] = {}  # a book has a handful of version texts
        self._fields = [
            (position, TRACT_PREFIX + score_field(p), TRACT_PREFIX + rating_field(p), rating_field(p))
            for position, p in enumerate(PERIL_IDS)
        ]

    def add(self, record: Mapping[str, Any]) -> None:
        state = self.state
        state.locations += 1
        # "1.20.0" and "1.20.0 (December 2025)" are the same release: grouped and compared as releases.
        release, county_release = self._release(record.get(TRACT_NRI_VERSION)), self._release(record.get(NRI_VERSION))
        _add_counts(state.versions, {release.label if release else UNKNOWN_VERSION: 1})
        _add_counts(state.county_versions, {county_release.label if county_release else UNKNOWN_VERSION: 1})
        if release and county_release and not release.same_as(county_release):
            state.other_release += 1
        for position, score_name, rating_name, county_rating_name in self._fields:
            score = _score(record.get(score_name))
            if score is None:
                state.unknown[position] += 1
            else:
                state.bins[position][_bin(score)] += 1
            if record.get(rating_name) in HIGH_RATINGS:
                state.high[position] += 1
            if record.get(county_rating_name) in HIGH_RATINGS:
                state.county_high[position] += 1

    def merge(self, other: TractState) -> None:
        state = self.state
        state.locations += other.locations
        state.other_release += other.other_release
        _add_counts(state.versions, other.versions)
        _add_counts(state.county_versions, other.county_versions)
        for position in range(len(PERIL_IDS)):
            _add_lists(state.bins[position], other.bins[position])
        for mine, theirs in ((state.unknown, other.unknown), (state.high, other.high),
                             (state.county_high, other.county_high)):
            _add_lists(mine, theirs)

    def _release(self, version: Any) -> NriRelease | None:
        key = version if isinstance(version, str) else None
        if key not in self._releases:
            self._releases[key] = parse_release(key)
        return self._releases[key]

    def summary(self) -> TractSummary | None:
        state = self.state
        if not state.locations:
            return None
        return TractSummary(
            locations=state.locations, by_version=_most_common(state.versions),
            county_versions=_most_common(state.county_versions), other_release=state.other_release,
            distributions=[
                TractDistribution(peril=p, name=PERIL_NAMES[p], bins=list(state.bins[i]), scored=sum(state.bins[i]),
                                  unknown=state.unknown[i], high=state.high[i], county_high=state.county_high[i])
                for i, p in enumerate(PERIL_IDS)
            ],
        )


def has_tract_scores(record: Mapping[str, Any]) -> bool:
    # Called for every record: plain lookups, no generator.
    get = record.get
    return (
        get(TRACT_NRI_VERSION) is not None or get("tract_Total_Score") is not None
        or get("tract_risk_rating") is not None
    )


def _score(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _bin(score: float) -> int:
    if score >= 100:
        return BIN_COUNT - 1
    return int(score // BIN_WIDTH) if score > 0 else 0


_Entry = tuple[float, int, RiskyLocation]  # min-heap on (score, -index)


class PortfolioTally:
    """Add the records in file order, then read `summary()`. `value_column` is one of the
    user's columns; `peril` ranks the top list and splits the sectors by rating.

    `PortfolioTally.every_variant()` follows every peril's top list and the value of the first
    VALUE_COLUMN_LIMIT user columns, so that `answer(value_column, peril)` gives any summary
    (`answers` says which). `state()` is the tally as plain data; `from_state` reads it back;
    `merge` adds the tally of the records that follow (numbered after these) to this one: the
    summary is the one tallied in one pass (value sums up to float rounding: they add in
    another order)."""

    def __init__(self, value_column: str | None = None, peril: str = COMPOSITE, top: int = TOP_COUNT) -> None:
        if peril not in PERIL_IDS:
            raise ValueError(f"unknown peril {peril!r}")
        columns = [] if value_column is None else [ColumnState(value_column)]
        self._setup(TallyState(top_size=top, ranked=[peril], columns=columns))

    @classmethod
    def every_variant(cls, top: int = TOP_COUNT, column_limit: int = VALUE_COLUMN_LIMIT) -> PortfolioTally:
        return cls.from_state(TallyState(top_size=top, ranked=list(PERIL_IDS), column_limit=column_limit))

    @classmethod
    def from_state(cls, state: TallyState) -> PortfolioTally:
        tally = cls.__new__(cls)
        tally._setup(state)
        return tally

    def _setup(self, state: TallyState) -> None:
        self._s = state
        self._top_size = state.top_size
        self._profile_ids = {profile: i for i, profile in enumerate(state.profiles)}
        self._rating_codes = {rating: rating_code(place) for place, rating in enumerate(state.ratings)}
        self._cell_ids = {(fips, profile): i for i, (fips, profile) in enumerate(state.cells)}
        self._tops: dict[str, list[_Entry]] = {}
        for peril in state.ranked:
            heap = [(location.score, -location.index, location) for location in state.tops.get(peril, [])]
            heapq.heapify(heap)
            self._tops[peril] = heap
        state.tops = {}
        # The score a location must reach to be offered to a peril's top list (inf: no list).
        self._floors = [math.inf] * len(PERIL_IDS)
        for peril in self._tops:
            self._set_floor(peril)
        # The hot loop of a million-row summary: field names are looked up once, here.
        self._fields = [(position, peril, score_field(peril), rating_field(peril))
                        for position, peril in enumerate(PERIL_IDS)]
        self._known = {column.name for column in state.columns}
        self._tracts = _TractTally(state.tracts)
        self.value_column = state.columns[0].name if state.column_limit is None and state.columns else None
        self.peril = state.ranked[0] if len(state.ranked) == 1 else COMPOSITE

    # --- adding records

    def add(self, index: int, record: Mapping[str, Any]) -> None:
        state = self._s
        get = record.get
        state.rows += 1
        # Located: a point, or a county without one (no point we have lies in it: #26, item 5).
        located = get("status") != NOT_LOCATED and (get("match_level") not in (None, "none") or bool(get("county_fips")))
        if located:
            level = str(get("match_level"))
            state.match_levels[level] = state.match_levels.get(level, 0) + 1
        else:
            state.not_located += 1
        if get("low_confidence") in ("yes", True):
            state.low_confidence += 1
        if isinstance(get("occupant_count"), int) and record["occupant_count"] > 0:
            state.with_occupants += 1
        elif located and get("occupant_count") is None:
            state.occupants_not_covered += 1
        if any(get(name) not in (None, "") for name in BUILDING_FIELDS):
            state.with_building += 1
        self._add_county(record)
        bins, unknown, floors = state.bins, state.unknown, self._floors
        codes, rating_codes = [], self._rating_codes
        for position, peril, score_name, rating_name in self._fields:
            score = get(score_name)
            if score is None or score.__class__ is bool or not isinstance(score, int | float) or score != score:
                unknown[position] += 1
            else:
                bins[position][_bin(score)] += 1
                if score >= floors[position]:
                    self._offer(peril, index, record)
            rating = get(rating_name)
            if rating.__class__ is not str or not rating:
                rating = NO_RATING
            codes.append(rating_codes.get(rating) or self._new_rating(rating))
        profile = self._profile("".join(codes))
        state.profile_rows[profile] += 1
        if has_tract_scores(record):
            self._tracts.add(record)
        sector = self._sector(record)
        by_profile = state.sectors.get(sector)
        if by_profile is None:
            by_profile = state.sectors[sector] = {}
        by_profile[profile] = by_profile.get(profile, 0) + 1
        if state.columns or (state.column_limit is not None and not state.columns_closed):
            self._add_values(get("input"), get("county_fips"), profile)

    def _new_rating(self, rating: str) -> str:
        code = self._rating_codes[rating] = rating_code(len(self._s.ratings))
        self._s.ratings.append(rating)
        return code

    def _profile(self, codes: str) -> int:
        profile = self._profile_ids.get(codes)
        if profile is None:
            profile = self._profile_ids[codes] = len(self._s.profiles)
            self._s.profiles.append(codes)
            self._s.profile_rows.append(0)
        return profile

    def _ratings_of(self, profile: int) -> list[str]:
        ratings = self._s.ratings
        return [ratings[rating_place(code)] for code in self._s.profiles[profile]]

    def _cell(self, fips: Any, profile: int) -> int:
        key = (fips if isinstance(fips, str) and fips else None, profile)
        cell = self._cell_ids.get(key)
        if cell is None:
            cell = self._cell_ids[key] = len(self._s.cells)
            self._s.cells.append(key)
        return cell

    def _add_values(self, cells: Any, fips: Any, profile: int) -> None:
        state = self._s
        if not isinstance(cells, dict):
            cells = {}
        if state.column_limit is not None and not state.columns_closed and not cells.keys() <= self._known:
            self._discover(cells)
        cell = -1
        for column in state.columns:
            value = cells.get(column.name)
            if value is None or (value.__class__ is str and not value.strip()):
                column.blank += 1
                continue
            number = parse_value(value)
            if number is None:
                column.unparsed += 1
                continue
            column.parsed += 1
            column.total += number
            if column.followed:
                if cell < 0:
                    cell = self._cell(fips, profile)
                sums = column.sums
                sums[cell] = sums.get(cell, 0.0) + number

    def _discover(self, cells: Mapping[str, Any]) -> None:
        state = self._s
        for name in cells:
            if name in self._known:
                continue
            if len(state.columns) >= (state.column_limit or 0):
                state.columns_closed = True
                return
            self._known.add(name)
            state.columns.append(ColumnState(name, blank=state.rows - 1))  # the rows before had none

    def _add_county(self, record: Mapping[str, Any]) -> None:
        fips = record.get("county_fips")
        if not isinstance(fips, str) or not fips:
            return
        county = self._s.counties.get(fips)
        if county is None:
            county = self._s.counties[fips] = CountyState(record.get("county_name"), record.get("county_state"))
        county.locations += 1
        if county.composite is None and not county.top:
            # The county's own scores: every located record of it carries the same ones.
            county.composite = _score(record.get("Total_Score"))
            county.composite_rating = record.get("risk_rating") or None
            known = [(h, _score(record.get(score_field(h.code)))) for h in HAZARDS]
            ranked = sorted(((h, s) for h, s in known if s is not None), key=lambda pair: -pair[1])
            county.top = [HazardScore(h.code, h.name, s) for h, s in ranked[:TOP_HAZARDS]]

    def _offer(self, peril: str, index: int, record: Mapping[str, Any]) -> None:
        score, heap = _score(record.get(score_field(peril))), self._tops.get(peril)
        if score is None or heap is None or (len(heap) >= self._top_size and (score, -index) <= heap[0][:2]):
            return
        self._push(peril, RiskyLocation(
            index=index,
            row=record.get("row") if isinstance(record.get("row"), int) else index + 1,
            address=str(record.get("normalized_address") or _first_line(record.get("address"))),
            county_fips=record.get("county_fips"),
            county_name=record.get("county_name"),
            state=record.get("county_state"),
            score=score,
            rating=record.get(rating_field(peril)) or None,
            nri_version=record.get(NRI_VERSION) or None,
            tract_score=_score(record.get(TRACT_PREFIX + score_field(peril))),
            tract_rating=record.get(TRACT_PREFIX + rating_field(peril)) or None,
            tract_nri_version=record.get(TRACT_NRI_VERSION) or None,
        ))

    def _push(self, peril: str, location: RiskyLocation) -> None:
        heap = self._tops[peril]
        entry = (location.score, -location.index, location)
        if len(heap) < self._top_size:
            heapq.heappush(heap, entry)
        elif self._top_size and entry[:2] > heap[0][:2]:
            heapq.heapreplace(heap, entry)
        self._set_floor(peril)

    def _set_floor(self, peril: str) -> None:
        heap = self._tops[peril]
        full = len(heap) >= self._top_size
        self._floors[PERIL_IDS.index(peril)] = (heap[0][0] if heap else math.inf) if full else -math.inf

    @staticmethod
    def _sector(record: Mapping[str, Any]) -> str:
        """The sector of the location's most common occupant code (the export lists it first)."""
        codes = str(record.get("naics_codes") or "").split()
        for code in codes:
            sector = naics_sector(code)
            if sector:
                return sector
        located = record.get("match_level") not in (None, "none")
        return NOT_COVERED if located and record.get("occupant_count") is None else NO_OCCUPANTS

    # --- state and merging

    def state(self) -> TallyState:
        """The tally as plain data (shares this tally's lists: read it, do not change it)."""
        tops = {peril: [entry[2] for entry in sorted(heap, key=lambda e: (-e[0], -e[1]))]
                for peril, heap in self._tops.items()}
        return replace(self._s, tops=tops)

    def merge(self, other: PortfolioTally | TallyState) -> None:
        """Adds the tally of the records after this one's (their indexes numbered after these)."""
        theirs = other.state() if isinstance(other, PortfolioTally) else other
        state = self._s
        if (theirs.top_size, theirs.ranked, theirs.column_limit) != (state.top_size, state.ranked, state.column_limit):
            raise ValueError("only tallies of the same kind merge")
        rows_before = state.rows
        state.rows += theirs.rows
        _add_counts(state.match_levels, theirs.match_levels)
        state.low_confidence += theirs.low_confidence
        state.not_located += theirs.not_located
        state.with_occupants += theirs.with_occupants
        state.with_building += theirs.with_building
        state.occupants_not_covered += theirs.occupants_not_covered
        for position in range(len(PERIL_IDS)):
            _add_lists(state.bins[position], theirs.bins[position])
        _add_lists(state.unknown, theirs.unknown)
        profiles = [self._profile(codes) for codes in self._recoded(theirs)]
        for profile, rows in zip(profiles, theirs.profile_rows, strict=True):
            state.profile_rows[profile] += rows
        for sector, by_profile in theirs.sectors.items():
            mine = state.sectors.setdefault(sector, {})
            for profile, rows in by_profile.items():
                mine[profiles[profile]] = mine.get(profiles[profile], 0) + rows
        cells = self._merged_cells(theirs, profiles)
        for fips, county in theirs.counties.items():
            known = state.counties.get(fips)
            if known is None:
                state.counties[fips] = replace(county, top=list(county.top))
                continue
            known.locations += county.locations
            if known.composite is None and not known.top:
                known.composite, known.composite_rating = county.composite, county.composite_rating
                known.top = list(county.top)
        for peril, locations in theirs.tops.items():
            heap = self._tops[peril]
            for location in locations:  # riskiest first: once one cannot enter, none after it can
                if len(heap) >= self._top_size and (not heap or (location.score, -location.index) <= heap[0][:2]):
                    break
                self._push(peril, location)
        self._merge_columns(theirs, rows_before, cells)
        self._tracts.merge(theirs.tracts)

    def _recoded(self, theirs: TallyState) -> list[str]:
        """Their profiles in this tally's rating codes: their own codes where one list of ratings
        begins the other, else each translated."""
        mine, shared = self._s.ratings, min(len(theirs.ratings), len(self._s.ratings))
        if theirs.ratings[:shared] == mine[:shared]:
            for rating in theirs.ratings[shared:]:
                self._new_rating(rating)
            return theirs.profiles
        table = {ord(rating_code(place)): self._rating_codes.get(rating) or self._new_rating(rating)
                 for place, rating in enumerate(theirs.ratings)}
        return [codes.translate(table) for codes in theirs.profiles]

    def _merged_cells(self, theirs: TallyState, profiles: list[int]) -> dict[int, int]:
        """Their cells as this tally's, those that a column followed here sums (in their order)."""
        state = self._s
        followed = {column.name for column in state.columns if column.followed}
        room = not state.columns_closed and len(state.columns) < (state.column_limit or 0)
        used = {cell for column in theirs.columns if column.name in followed or (room and column.name not in self._known)
                for cell in column.sums}
        return {cell: self._cell(fips, profiles[profile])
                for cell, (fips, profile) in enumerate(theirs.cells) if cell in used}

    def _merge_columns(self, theirs: TallyState, rows_before: int, cells: dict[int, int]) -> None:
        state = self._s
        their_columns = {column.name: column for column in theirs.columns}
        if state.column_limit is None and set(their_columns) != self._known:
            raise ValueError("only tallies of the same value column merge")
        for column in state.columns:
            their_column = their_columns.get(column.name)
            if their_column is not None:
                _add_column(column, their_column, cells)
            elif theirs.columns_closed:  # their rows may hold it past their limit
                column.followed, column.sums = False, {}
            else:  # none of their rows has it
                column.blank += theirs.rows
        for their_column in theirs.columns:
            if their_column.name in self._known:
                continue
            if state.columns_closed or len(state.columns) >= (state.column_limit or 0):
                state.columns_closed = True
                break
            self._known.add(their_column.name)
            column = ColumnState(their_column.name, blank=rows_before)  # none of these rows has it
            _add_column(column, their_column, cells)
            state.columns.append(column)
        state.columns_closed = state.columns_closed or theirs.columns_closed

    # --- the summary

    def answers(self, value_column: str | None, peril: str) -> bool:
        """Whether `answer` can give this summary."""
        return peril in self._tops and (value_column is None or self._column(value_column) is not None)

    def _column(self, name: str | None) -> ColumnState | None:
        state = self._s
        column = next((column for column in state.columns if column.name == name), None)
        if column is None and name is not None and state.column_limit is not None and not state.columns_closed:
            return ColumnState(name, blank=state.rows)  # every column seen is followed: no row has this one
        return column if column is not None and column.followed else None

    def summary(self, sector_names: Mapping[str, str] | None = None) -> PortfolioSummary:
        return self.answer(self.value_column, self.peril, sector_names)

    def answer(
        self, value_column: str | None, peril: str, sector_names: Mapping[str, str] | None = None
    ) -> PortfolioSummary:
        if not self.answers(value_column, peril):
            raise ValueError(f"this tally does not follow value column {value_column!r} with peril {peril!r}")
        state = self._s
        headline = Headline(
            rows=state.rows,
            located=sum(state.match_levels.values()),
            located_by_match_level=_most_common(state.match_levels),
            low_confidence=state.low_confidence,
            not_located=state.not_located,
            with_occupants=state.with_occupants,
            with_building_record=state.with_building,
            occupants_not_covered=state.occupants_not_covered,
        )
        ratings: list[dict[str, int]] = [{} for _ in PERIL_IDS]
        for profile, rows in enumerate(state.profile_rows):
            _add_by_rating(ratings, self._ratings_of(profile), rows)
        distributions = [
            PerilDistribution(
                peril=p, name=PERIL_NAMES[p], bins=list(state.bins[i]), scored=sum(state.bins[i]),
                unknown=state.unknown[i], high=sum(n for rating, n in ratings[i].items() if rating in HIGH_RATINGS),
                ratings=_most_common(ratings[i]),
            )
            for i, p in enumerate(PERIL_IDS)
        ]
        column = self._column(value_column)
        county_values: dict[str, float] = {}
        by_rating: list[dict[str, float]] = [{} for _ in PERIL_IDS]
        for cell, total in (column.sums if column else {}).items():
            fips, profile = state.cells[cell]
            if fips is not None:
                county_values[fips] = county_values.get(fips, 0.0) + total
            _add_by_rating(by_rating, self._ratings_of(profile), total)
        counties = [
            CountyExposure(
                county_fips=fips, county_name=county.name, state=county.state, locations=county.locations,
                composite_score=county.composite, composite_rating=county.composite_rating,
                top_hazards=list(county.top), value=county_values.get(fips, 0.0) if column else None,
            )
            for fips, county in sorted(state.counties.items(), key=lambda item: (-item[1].locations, item[0]))
        ]
        value = None
        if column is not None:
            value = ValueSummary(
                column=column.name, total=column.total, parsed=column.parsed, unparsed=column.unparsed,
                blank=column.blank, by_rating=[ValueByRating(p, by_rating[i]) for i, p in enumerate(PERIL_IDS)],
            )
        riskiest = [entry[2] for entry in sorted(self._tops[peril], key=lambda e: (-e[0], -e[1]))]
        position = PERIL_IDS.index(peril)
        sectors = []
        for sector, by_profile in state.sectors.items():
            sector_ratings: dict[str, int] = {}
            for profile, rows in by_profile.items():
                rating = state.ratings[rating_place(state.profiles[profile][position])]
                sector_ratings[rating] = sector_ratings.get(rating, 0) + rows
            sectors.append(SectorMix(sector=sector, name=None, locations=sum(by_profile.values()),
                                     ratings=_most_common(sector_ratings)))
        sectors.sort(key=lambda mix: (-mix.locations, mix.sector))
        summary = PortfolioSummary(
            headline, distributions, counties, value, peril, riskiest, sectors, self._tracts.summary()
        )
        return with_sector_names(summary, sector_names or {})

    @property
    def sectors_seen(self) -> set[str]:
        return {sector for sector in self._s.sectors if sector not in (NO_OCCUPANTS, NOT_COVERED)}


def _add_by_rating(sums: list[dict[str, Any]], profile: list[str], amount: Any) -> None:
    for position, rating in enumerate(profile):
        into = sums[position]
        into[rating] = into.get(rating, 0) + amount


def _add_column(column: ColumnState, theirs: ColumnState, cells: dict[int, int]) -> None:
    column.blank += theirs.blank
    column.unparsed += theirs.unparsed
    column.parsed += theirs.parsed
    column.total += theirs.total
    if not theirs.followed:
        column.followed, column.sums = False, {}
    elif column.followed:
        for cell, total in theirs.sums.items():
            column.sums[cells[cell]] = column.sums.get(cells[cell], 0.0) + total


def sectors_seen(summary: PortfolioSummary) -> set[str]:
    return {mix.sector for mix in summary.sectors if mix.sector not in (NO_OCCUPANTS, NOT_COVERED)}


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

"""The export viewer's rows: what a row is filtered by (match level, county, state, composite rating,
low confidence, status, a text in its address), what it can be sorted by (the composite score or
any hazard's score, nulls last), what each filter can be set to, and the checks of a request
against those. Pure: the queries that answer them live in adapters/results/viewer.py."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from domain.detailed_export import ANSWERED, NOT_LOCATED, ZIP_LEVEL
from domain.perils import HAZARDS, TOTAL_FIELD
from domain.portfolio import NO_RATING

# A row without a county (not located) has neither a county nor a state: its own choice, never dropped.
NO_COUNTY = NOT_LOCATED
# NRI's ratings, worst first; other texts (e.g. "Insufficient Data") follow, then no rating.
RATING_ORDER = ("Very High", "Relatively High", "Relatively Moderate", "Relatively Low", "Very Low")
MATCH_LEVEL_ORDER = ("building", "census_exact", "place", "zip_centroid", "none")
STATUS_ORDER = (ANSWERED, ZIP_LEVEL, NOT_LOCATED)
# The low-confidence filter's values: the county is uncertain (check the alternatives), or not.
YES, NO = "yes", "no"
LOW_CONFIDENCE_ORDER = (YES, NO)
# What the rows can be sorted by: the county's composite score, or one hazard's score.
SORT_COLUMNS: tuple[str, ...] = (TOTAL_FIELD, *(f"{hazard.code}_Score" for hazard in HAZARDS))
MAX_SEARCH = 200  # characters of the address search


@dataclass(frozen=True, slots=True)
class ViewerRow:
    """One row of the export as the viewer shows it; None is unknown."""

    index: int  # position in the export (0-based): the group page is /search-result/export:{name}:{index}
    row: int | None  # line of the row in the uploaded file
    address: str  # the address text with its building facts as 'Key: value' lines (SPEC §3)
    status: str | None  # answered, answered at ZIP level, not located
    message: str | None
    match_level: str | None
    low_confidence: bool | None
    county_fips: str | None
    county_name: str | None
    county_state: str | None
    total_score: float | None  # NRI composite score of the county
    rating: str | None  # its composite rating
    top_3: str | None
    occupant_count: int | None
    naics_codes: str | None
    values: tuple[str | None, ...]  # the user's own columns, as uploaded (names once per page)
    sort_score: float | None  # the value of the sort column (None unsorted, or unknown)


def county_label(fips: str | None, name: str | None, state: str | None) -> str:
    if not fips:
        return "Not located"
    return f"{name or fips}{f', {state}' if state else ''}"


@dataclass(frozen=True, slots=True)
class FilterChoice:
    value: str  # what the filter parameter takes
    label: str  # what a person reads
    rows: int  # rows of the export with it


@dataclass(frozen=True, slots=True)
class FilterChoices:
    match_levels: tuple[FilterChoice, ...]
    counties: tuple[FilterChoice, ...]
    ratings: tuple[FilterChoice, ...]
    states: tuple[FilterChoice, ...] = ()
    statuses: tuple[FilterChoice, ...] = ()
    low_confidence: tuple[FilterChoice, ...] = ()


def _ranked(order: tuple[str, ...], last: str | None) -> Callable[[str], tuple[bool, int, str]]:
    """Sort key: the values of `order` in its order, then others by name, then `last`."""
    return lambda value: (value == last, order.index(value) if value in order else len(order), value)


def ranked(counts: Iterable[tuple[str, int]], order: tuple[str, ...] = (), last: str | None = None) -> tuple[FilterChoice, ...]:
    """Counted values as choices labelled by themselves: `order`'s first, others by name, `last` last."""
    return tuple(FilterChoice(value, value, rows) for value, rows in sorted(counts, key=lambda c: _ranked(order, last)(c[0])))


def county_choices(counts: Iterable[tuple[str, str, int]]) -> tuple[FilterChoice, ...]:
    """(value, label, rows) of each county, by label ("King, WA"); "Not located" last."""
    return tuple(FilterChoice(value, label, rows) for value, label, rows in
                 sorted(counts, key=lambda c: (c[0] == NO_COUNTY, c[1].casefold(), c[0])))


@dataclass(frozen=True, slots=True)
class RowFilter:
    """Each filter set, or None for any value. `search` is a text the address holds, in any case."""

    match_level: str | None = None
    county: str | None = None
    rating: str | None = None
    state: str | None = None
    low_confidence: str | None = None  # YES or NO
    status: str | None = None
    search: str | None = None

    @property
    def is_empty(self) -> bool:
        return all(value is None for value in self.chosen().values()) and not self.search

    def chosen(self) -> dict[str, str | None]:
        """The filters that take one of the export's values, by parameter name."""
        return {"match_level": self.match_level, "county": self.county, "rating": self.rating, "state": self.state,
                "low_confidence": self.low_confidence, "status": self.status}


@dataclass(frozen=True, slots=True)
class RowOrder:
    """Input order (column None), or by a score column, ascending or descending; unknown scores last."""

    column: str | None = None
    descending: bool = False


def filter_problems(wanted: RowFilter, choices: FilterChoices) -> list[str]:
    """What is wrong with each filter set to a value this export does not have, naming the values it has."""
    offered = {"match_level": choices.match_levels, "county": choices.counties, "rating": choices.ratings,
               "state": choices.states, "low_confidence": choices.low_confidence, "status": choices.statuses}
    problems = []
    for name, value in wanted.chosen().items():
        allowed = [choice.value for choice in offered[name]]
        if value is not None and value not in allowed:
            problems.append(f"{name} must be one of the values in this export: {', '.join(allowed) or 'none'}.")
    if wanted.search is not None and len(wanted.search) > MAX_SEARCH:
        problems.append(f"search must be at most {MAX_SEARCH} characters.")
    return problems


def order_problems(order: RowOrder) -> list[str]:
    if order.column is not None and order.column not in SORT_COLUMNS:
        return [f"sort must be one of: {', '.join(SORT_COLUMNS)} (or empty for the input order)."]
    return []

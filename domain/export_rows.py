"""The export viewer's rows: what each detailed record (domain/detailed_export.py) is filtered by
(match level, county, composite rating), what each filter can be set to, and the checks of a
filter against those choices. Pure: the records come in as dicts, one at a time."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.portfolio import NO_RATING, NOT_LOCATED

# A record from before match levels were written has none: unknown, never "none" (not located).
UNKNOWN_MATCH_LEVEL = "unknown"
# NRI's ratings, worst first; other texts (e.g. "Insufficient Data") follow, then no rating.
RATING_ORDER = ("Very High", "Relatively High", "Relatively Moderate", "Relatively Low", "Very Low")
MATCH_LEVEL_ORDER = ("building", "census_exact", "place", "zip_centroid", "none")
# What the viewer shows of a record (the rest, perils, receipt, tract..., stays on the group page).
VIEWER_FIELDS: tuple[str, ...] = (
    "row", "address", "status", "message", "match_level", "low_confidence", "county_fips", "county_name",
    "county_state", "Total_Score", "risk_rating", "top_3", "occupant_count", "naics_codes",
)


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


@dataclass(frozen=True, slots=True)
class RowKeys:
    """The values a record is filtered by; a missing one is its own choice, never dropped."""

    match_level: str
    county: str
    rating: str


def row_keys(record: Mapping[str, Any]) -> RowKeys:
    return RowKeys(
        match_level=_text(record.get("match_level")) or UNKNOWN_MATCH_LEVEL,
        county=_text(record.get("county_fips")) or NOT_LOCATED,
        rating=_text(record.get("risk_rating")) or NO_RATING,
    )


def county_label(record: Mapping[str, Any]) -> str:
    fips = _text(record.get("county_fips"))
    if fips is None:
        return "Not located"
    name, state = _text(record.get("county_name")), _text(record.get("county_state"))
    return f"{name or fips}{f', {state}' if state else ''}"


@dataclass(frozen=True, slots=True)
class FilterChoice:
    value: str  # what the filter parameter takes
    label: str  # what a person reads
    rows: int  # records with it


@dataclass(frozen=True, slots=True)
class FilterChoices:
    match_levels: tuple[FilterChoice, ...]
    counties: tuple[FilterChoice, ...]
    ratings: tuple[FilterChoice, ...]


def _ranked(order: tuple[str, ...], last: str):  # noqa: ANN202
    """Sort key: the values of `order` in its order, then others by name, then `last`."""
    return lambda value: (value == last, order.index(value) if value in order else len(order), value)


class ChoicesTally:
    """Counts each filter value as records go by (memory grows with counties, never with rows)."""

    def __init__(self) -> None:
        self._levels: Counter[str] = Counter()
        self._ratings: Counter[str] = Counter()
        self._counties: Counter[str] = Counter()
        self._county_labels: dict[str, str] = {}

    def add(self, keys: RowKeys, record: Mapping[str, Any]) -> None:
        self._levels[keys.match_level] += 1
        self._ratings[keys.rating] += 1
        self._counties[keys.county] += 1
        if keys.county not in self._county_labels:
            self._county_labels[keys.county] = county_label(record)

    def add_choices(self, choices: FilterChoices) -> None:
        """Another tally's choices (a chunk's, merged in input order): counts add up, and each
        county keeps the label it was first seen with, as if its records had come by here."""
        self._levels.update({choice.value: choice.rows for choice in choices.match_levels})
        self._ratings.update({choice.value: choice.rows for choice in choices.ratings})
        self._counties.update({choice.value: choice.rows for choice in choices.counties})
        for choice in choices.counties:
            self._county_labels.setdefault(choice.value, choice.label)

    def choices(self) -> FilterChoices:
        levels = sorted(self._levels, key=_ranked(MATCH_LEVEL_ORDER, UNKNOWN_MATCH_LEVEL))
        ratings = sorted(self._ratings, key=_ranked(RATING_ORDER, NO_RATING))
        # Counties by name; "Not located" last.
        counties = sorted(self._counties, key=lambda c: (c == NOT_LOCATED, self._county_labels[c].casefold(), c))
        return FilterChoices(
            match_levels=tuple(FilterChoice(v, v, self._levels[v]) for v in levels),
            counties=tuple(FilterChoice(c, self._county_labels[c], self._counties[c]) for c in counties),
            ratings=tuple(FilterChoice(v, v, self._ratings[v]) for v in ratings),
        )


@dataclass(frozen=True, slots=True)
class RowFilter:
    """Each filter set, or None for any value."""

    match_level: str | None = None
    county: str | None = None
    rating: str | None = None

    @property
    def is_empty(self) -> bool:
        return self.match_level is None and self.county is None and self.rating is None

    def passes(self, keys: RowKeys) -> bool:
        return (
            (self.match_level is None or keys.match_level == self.match_level)
            and (self.county is None or keys.county == self.county)
            and (self.rating is None or keys.rating == self.rating)
        )


def filter_problems(wanted: RowFilter, choices: FilterChoices) -> list[str]:
    """What is wrong with each filter set to a value this export does not have, naming the values it has."""
    problems = []
    for name, value, offered in (
        ("match_level", wanted.match_level, choices.match_levels),
        ("county", wanted.county, choices.counties),
        ("rating", wanted.rating, choices.ratings),
    ):
        allowed = [choice.value for choice in offered]
        if value is not None and value not in allowed:
            problems.append(f"{name} must be one of the values in this export: {', '.join(allowed) or 'none'}.")
    return problems

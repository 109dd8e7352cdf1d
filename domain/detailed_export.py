"""The detailed export of a batch: one row per input row, in input order, the user's own columns
first and unchanged, then everything PerilScope knows of the address (DESIGN.md: "Exports keep
the user's own columns and carry every score, rating, the county, the match level and the
dataset versions"). Unknown is empty, never 0. The same rows feed CSV, XLSX and JSON Lines."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from domain.answer_record import location_record, ratings_of, receipt_record, tract_record
from domain.export import FORMULA_TRIGGERS, safe_cell
from domain.lookup_result import LookupResult, address_text
from domain.perils import HAZARDS, PerilScores

ANSWERED, ZIP_LEVEL, NOT_LOCATED = "answered", "answered at ZIP level", "not located"


def _hazard_columns(prefix: str, of_what: str) -> tuple[tuple[str, str], ...]:
    """A score and a rating column per hazard: `{prefix}AVLN_Score`, `{prefix}AVLN_Rating`, ..."""
    return tuple(
        column
        for hazard in HAZARDS
        for column in (
            (f"{prefix}{hazard.code}_Score", f"{of_what}{hazard.name} score (NRI {hazard.nri_code}), 0 to 100; empty: no score (the rating says why)"),
            (f"{prefix}{hazard.code}_Rating", f"{of_what}{hazard.name} rating, in FEMA's words: Very Low to Very High; "
             "Not Applicable (the hazard does not occur there), Insufficient Data (no estimate), No Rating (score 0)"),
        )
    )


def _hazard_keys(prefix: str) -> tuple[tuple[str, str, str], ...]:
    return tuple((hazard.code, f"{prefix}{hazard.code}_Score", f"{prefix}{hazard.code}_Rating") for hazard in HAZARDS)


# Made once: a batch fills these columns on every row.
_HAZARD_KEYS = {prefix: _hazard_keys(prefix) for prefix in ("", "tract_")}
_NO_HAZARD_FIELDS = {prefix: dict.fromkeys(key for _, *pair in keys for key in pair) for prefix, keys in _HAZARD_KEYS.items()}


def _hazard_fields(prefix: str, scores: PerilScores | None) -> dict[str, Any]:
    if scores is None:
        return dict(_NO_HAZARD_FIELDS[prefix])
    values, ratings = scores.scores, scores.ratings
    fields: dict[str, Any] = {}
    for code, score_key, rating_key in _HAZARD_KEYS[prefix]:
        fields[score_key] = values.get(code)
        fields[rating_key] = ratings.get(code)
    return fields


# (column, what it holds): the XLSX's "Columns" sheet says the same.
ANSWER_COLUMNS: tuple[tuple[str, str], ...] = (
    ("row", "Line of the row in the uploaded file"),
    ("status", f"{ANSWERED}, {ZIP_LEVEL} (the street could not be read) or {NOT_LOCATED}"),
    ("message", "What to check: state and ZIP disagreeing, an unknown ZIP, a repaired ZIP, an unreadable street"),
    ("normalized_address", "The address as PerilScope read it"),
    ("match_level", "Where lat/lng come from: building (a building record), census_exact (Census geocoder), place (the city's point), zip_centroid, none (no point known to lie in the county)"),
    ("lat", "Latitude (WGS 84); empty when unknown"),
    ("lng", "Longitude (WGS 84); empty when unknown"),
    ("county_fips", "The county the scores are for (NRI v1.20 codes; Connecticut planning regions)"),
    ("county_name", "Its name"),
    ("county_state", "Its state"),
    ("county_method", "How the county was chosen: zip, zip_and_place, zip_share, place, geocoder"),
    ("county_confidence", "Share of the evidence for that county, 0 to 1"),
    ("low_confidence", "yes when the county is uncertain or something disagreed: check the alternatives"),
    ("alternative_counties", "Other possible counties: FIPS name (share, composite score)"),
    ("tract_geoid", "Census tract, when the geocoder gave one"),
    ("Total_Score", "NRI composite risk score of the county, 0 to 100; empty where NRI has none"),
    ("risk_rating", "NRI composite rating"),
    *_hazard_columns("", ""),
    ("top_3", "The three highest hazard scores"),
    ("nri_version", "FEMA National Risk Index release of the scores"),
    # The census tract's own scores, beside the county's; empty where the tract or its table is unknown.
    ("tract_Total_Score", "NRI composite risk score of the census tract (ranks tracts nationally; not comparable with the county score)"),
    ("tract_risk_rating", "NRI composite rating of the census tract"),
    *_hazard_columns("tract_", "Census tract: "),
    ("tract_nri_version", "FEMA National Risk Index release of the tract scores"),
    ("tract_note", "Said when the tract scores are from another NRI release than the county scores"),
    ("property_name", "Building record: name"),
    ("year_built", "Building record: year built"),
    ("property_type", "Building record: type"),
    ("floors", "Building record: floors"),
    ("gross_floor_area_sqft", "Building record: gross floor area"),
    ("parking_area_sqft", "Building record: parking floor area"),
    ("largest_use", "Building record: largest use"),
    ("occupant_count", "Businesses registered at the address; empty where no occupant source covers it (unknown, not none)"),
    ("naics_codes", "Their NAICS 2022 codes, most common first"),
    ("data_as_of", "Dates of the data used: dataset as of date"),
)
ANSWER_COLUMN_NAMES = tuple(name for name, _ in ANSWER_COLUMNS)


def answer_fields(result: LookupResult) -> dict[str, Any]:
    """Everything of one answer, by column (shared by every row with the same address)."""
    return _own_fields(result) | _score_fields(result.perils) | _tract_fields(result)


def _own_fields(result: LookupResult) -> dict[str, Any]:
    """The columns that are the address's own: not the county's scores."""
    location, building = result.location, result.building
    point = location.point
    if result.address is None or not location.located:
        status = NOT_LOCATED
    elif not result.address.street_read:
        status = ZIP_LEVEL
    else:
        status = ANSWERED
    naics = Counter(o.naics_code for o in result.occupants if o.naics_code)
    return {
        "status": status,
        "message": " ".join(location.notes),
        "normalized_address": result.address.one_line if result.address else "",
        "match_level": point.match_level if point else "none",
        "lat": point.lat if point else None,
        "lng": point.lng if point else None,
        "county_fips": location.county_fips,
        "county_name": location.county_name,
        "county_state": location.state,
        "county_method": location.method,
        "county_confidence": location.confidence,
        "low_confidence": "yes" if location.low_confidence else "no",
        "alternative_counties": "; ".join(
            f"{a.county_fips} {a.county_name or ''} ({a.share:.0%}, {_number(a.total_score)})"
            for a in location.alternatives
        ),
        "tract_geoid": location.tract_geoid,
        "nri_version": result.provenance.nri_version,
        "property_name": building.property_name if building else None,
        "year_built": building.year_built if building else None,
        "property_type": building.property_type if building else None,
        "floors": building.floors if building else None,
        "gross_floor_area_sqft": building.gfa_total if building else None,
        "parking_area_sqft": building.gfa_parking if building else None,
        "largest_use": building.largest_use if building else None,
        "occupant_count": result.occupant_count,
        "naics_codes": " ".join(code for code, _ in naics.most_common()),
        "data_as_of": "; ".join(f"{d.dataset} {d.as_of}" for d in result.provenance.datasets if d.as_of),
    }


def _score_fields(scores: PerilScores | None) -> dict[str, Any]:
    """The county's scores as columns: the same for every address with the same scores."""
    return {
        "Total_Score": scores.total if scores else None,
        "risk_rating": scores.total_rating if scores else None,
        "top_3": "; ".join(f"{h.name} {s}" for h, s in scores.top3()) if scores else "",
    } | _hazard_fields("", scores)


def _tract_fields(result: LookupResult) -> dict[str, Any]:
    tract = result.tract_perils
    scores = tract.scores if tract else None
    return {
        "tract_Total_Score": scores.total if scores else None,
        "tract_risk_rating": scores.total_rating if scores else None,
        "tract_nri_version": tract.nri_version if tract else None,
        "tract_note": " ".join(tract.notes) if tract else None,
    } | _hazard_fields("tract_", scores)


def _number(value: float | None) -> str:
    return "score unknown" if value is None else f"score {value:g}"


def user_column_names(user_columns: Iterable[str]) -> list[str]:
    """The upload's own column names as every format heads them (CSV and XLSX header cells,
    JSON Lines `input` keys): neutralised as values are, since a header `=HYPERLINK(...)` is a
    formula too. Neutralising twice changes nothing, so a list stored neutralised may pass again."""
    return [safe_cell(name) for name in user_columns]


def detail_columns(user_columns: Iterable[str]) -> list[str]:
    """The user's columns first, as `user_column_names` heads them; ours after them, renamed
    only if a user's column already has the name."""
    user = user_column_names(user_columns)
    taken = set(user)
    return user + [name if name not in taken else f"{name} (PerilScope)" for name in ANSWER_COLUMN_NAMES]


def answer_record(result: LookupResult) -> dict[str, Any]:
    """What one answer adds to each JSON Lines record of its rows: every column of the CSV/XLSX,
    and the answer's parts as the single lookup shows them (perils, ratings, location, receipt),
    so the web's group page draws the same chart and receipt. Text is neutralised against
    spreadsheet formulas here, once, for every format."""
    return neutralised(_answer_record(result))


def _answer_record(result: LookupResult) -> dict[str, Any]:
    return _own_record(result) | _scores_record(result.perils)


def _own_record(result: LookupResult) -> dict[str, Any]:
    record = _own_fields(result) | _tract_fields(result)
    record.update(
        address=address_text(result),
        location=location_record(result.location),
        receipt=receipt_record(result),
        tract=tract_record(result),
    )
    return record


def _scores_record(scores: PerilScores | None) -> dict[str, Any]:
    unscored = PerilScores(scores={})
    return _score_fields(scores) | {
        "perils": (scores or unscored).fields(),
        "ratings": ratings_of(scores or unscored),
    }


class ScoreTexts:
    """A batch's answers by county: every address with the same scores shares their part of
    the record (54 columns, the perils and ratings again) and the top three. Encoded once per
    set of scores, not once per row; held for at most `capacity` sets (a county each)."""

    def __init__(self, encode: Callable[[Any], bytes], capacity: int = 4096) -> None:
        self._encode = encode
        self._capacity = capacity
        self._parts: dict[tuple[Any, ...] | None, tuple[bytes, str]] = {}

    def record_json(self, result: LookupResult) -> bytes:
        """`encode(answer_record(result))`, its keys in another order, made faster (a batch
        makes one per row)."""
        own = neutralised_json(_own_record(result), self._encode)
        return own[:-1] + b"," + self.parts(result.perils)[0][1:]

    def top3_combined(self, scores: PerilScores | None) -> str:
        return self.parts(scores)[1]

    def parts(self, scores: PerilScores | None) -> tuple[bytes, str]:
        key = None if scores is None else (
            scores.total, scores.total_rating, tuple(scores.scores.items()), tuple(scores.ratings.items()))
        parts = self._parts.get(key)
        if parts is None:
            if len(self._parts) >= self._capacity:
                self._parts.clear()
            parts = self._parts[key] = (neutralised_json(_scores_record(scores), self._encode),
                                        scores.top3_combined() if scores else "")
        return parts


def input_record(line: int, user_values: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """The row's own part of its record: its line and its columns as given (neutralised)."""
    return neutralised(_input_record(line, user_values))


def input_record_json(line: int, user_values: Iterable[tuple[str, str]], encode: Callable[[Any], bytes]) -> bytes:
    """`encode(input_record(line, user_values))`, made faster (a batch makes one per row)."""
    return neutralised_json(_input_record(line, user_values), encode)


def _input_record(line: int, user_values: Iterable[tuple[str, str]]) -> dict[str, Any]:
    # Keys as `user_column_names` gives them, so the export finds each value under its header.
    return {"row": line, "input": {safe_cell(name): value for name, value in user_values}}


def flat_values(record: dict[str, Any], user_columns: list[str]) -> list[Any]:
    """A JSON Lines record as one CSV/XLSX row in `detail_columns(user_columns)` order."""
    inputs = record.get("input") or {}
    return [inputs.get(name) for name in user_columns] + [record.get(name) for name in ANSWER_COLUMN_NAMES]


# Where a string starting with a formula trigger may be in JSON text: a quote, then a trigger
# ("=", "+", "-", "@") or a backslash (a tab or carriage return is escaped, short or as \u00XX).
# A character class is searched three times faster than the escapes spelled out one by one; an
# escaped character that is no trigger only costs a needless copy.
_TRIGGER_AFTER_QUOTE = re.compile(b'"[' + re.escape("".join(t for t in FORMULA_TRIGGERS if t.isprintable()).encode()) + rb"\\]")


def neutralised_json(value: Any, encode: Callable[[Any], bytes]) -> bytes:
    """`encode(neutralised(value))` for a JSON encoder. Text that needs neutralising is rare, and
    copying a whole record to find none costs more than the lookup that answered it: so the
    value is encoded as it is, and copied only when its JSON has a string that may start with a
    trigger (or a key does, or an escaped quote is followed by one: copying then is merely
    unneeded)."""
    encoded = encode(value)
    return encoded if _TRIGGER_AFTER_QUOTE.search(encoded) is None else encode(neutralised(value))


def neutralised(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: neutralised(item) for key, item in value.items()}
    if isinstance(value, list):
        return [neutralised(item) for item in value]
    return safe_cell(value)

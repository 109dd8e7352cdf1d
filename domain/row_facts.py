"""A batch row's answer as facts (issue #27): one flat record per input row, typed, with nothing
repeated that a row shares with others of its county or tract. The county's and the tract's
scores are rows of their own (`score_rows`), keyed by (level, geoid, NRI release), which readers
join back; so a chunk stores each county's 36 scores and ratings once, and a later NRI release
never changes an old export (the release's scores are in it).

Every field of today's detailed record (JSON Lines) and SPEC CSV can be made again from a facts
row and its score rows: texts whose formatting is Python's (the address text, the alternatives
line, the top three) are kept as the texts. Unknown is None, never 0. The user's values are kept
as they came: neutralising formulas belongs to the spreadsheet formats."""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from typing import Any

from domain.answer_record import ratings_of
from domain.detailed_export import _hazard_fields, _own_fields, _score_fields
from domain.lookup_result import LookupResult, address_text
from domain.nri_release import TRACT_SCORES_NOTE
from domain.occupancy import UNKNOWN
from domain.perils import HAZARDS, PerilScores

COUNTY, TRACT = "county", "tract"

# The columns of a facts row after `row` and the user's `input_<i>` columns, in file order.
ANSWER_FACT_FIELDS: tuple[str, ...] = (
    "status", "message", "address", "normalized_address", "match_level", "lat", "lng",
    "county_fips", "county_name", "county_state", "county_method", "county_confidence", "low_confidence",
    "alternatives", "alternative_counties", "location_notes", "locator", "tract_geoid", "nri_version",
    "tract_county_fips", "tract_nri_version", "tract_from", "tract_notes", "tract_note",
    "property_name", "year_built", "property_type", "floors", "gross_floor_area_sqft", "parking_area_sqft",
    "largest_use", "occupant_count", "occupants", "naics_codes", "data_as_of",
    "geocoder", "places", "perils", "property_records", "tract_perils", "scored_at", "datasets",
    "from_cache", "cache_max_age_hours", "scored", "tract_scored",
)
# The columns of a score row after its key (level, geoid, nri_version).
SCORE_KEY_FIELDS = ("level", "geoid", "nri_version")
SCORE_VALUE_FIELDS: tuple[str, ...] = (
    "Total_Score", "risk_rating", "top_3", "top3_combined",
    *(name for hazard in HAZARDS for name in (f"{hazard.code}_Score", f"{hazard.code}_Rating")),
)


def input_name(index: int) -> str:
    """The facts column of the user's `index`th column (their names are in the export's manifest)."""
    return f"input_{index}"


def facts_of(line: int, user_values: Iterable[str | None | tuple[str, str | None]], result: LookupResult) -> dict[str, Any]:
    """The facts row of an input row: its line in the upload, the user's values as they came (in
    the upload's column order; (name, value) pairs are taken for their values), then its answer."""
    row: dict[str, Any] = {"row": line}
    for index, value in enumerate(user_values):
        row[input_name(index)] = value[1] if isinstance(value, tuple) else value
    row.update(answer_facts(result))
    return row


def answer_facts(result: LookupResult) -> dict[str, Any]:
    """The facts of an answer, the same for every row with the same address (a batch keeps them
    for its repeats): the detailed export's own columns (domain/detailed_export), typed, and the
    parts its record and the SPEC CSV make of the answer. Its keys are ANSWER_FACT_FIELDS (in
    another order: the files' order is the schema's)."""
    location, provenance, tract = result.location, result.provenance, result.tract_perils
    return _own_fields(result) | {
        "low_confidence": location.low_confidence,
        "address": address_text(result),
        "alternatives": [
            {"county_fips": a.county_fips, "county_name": a.county_name, "state": a.state, "share": a.share,
             "total_score": a.total_score, "risk_rating": a.risk_rating}
            for a in location.alternatives
        ],
        "location_notes": list(location.notes),
        "locator": location.locator,
        "tract_county_fips": tract.county_fips if tract else None,
        "tract_nri_version": tract.nri_version if tract else None,
        "tract_from": tract.tract_from if tract else None,
        "tract_notes": list(tract.notes) if tract else None,
        "tract_note": " ".join(tract.notes) if tract else None,
        "occupants": [
            {"name": o.name, "vicinity": o.vicinity, "types": list(o.types), "lat": o.lat, "lng": o.lng,
             "business_status": o.business_status, "naics_code": o.naics_code}
            for o in result.occupants
        ],
        "geocoder": provenance.geocoder,
        "places": provenance.places,
        "perils": provenance.perils,
        "property_records": provenance.property_records,
        "tract_perils": provenance.tract_perils,
        "scored_at": provenance.scored_at,
        "datasets": [{"dataset": d.dataset, "version": d.version, "as_of": d.as_of} for d in provenance.datasets],
        "from_cache": provenance.from_cache,
        "cache_max_age_hours": provenance.cache_max_age_hours,
        "scored": result.perils is not None,
        "tract_scored": tract is not None,
    }


def score_rows(result: LookupResult, known: Container[tuple[str, str | None, str | None]] = ()) -> list[dict[str, Any]]:
    """The answer's sets of scores as rows keyed by (level, geoid, nri_version): the county's
    when it is scored, keyed by the facts' county_fips and nri_version; the tract's when it has
    them, keyed by the facts' tract_geoid and tract_nri_version. Those whose key is `known` (a
    chunk has their row already) are left out: a row costs more than the rest of the facts."""
    rows = []
    if result.perils is not None:
        key = (COUNTY, result.location.county_fips, result.provenance.nri_version)
        if key not in known:
            rows.append(score_row(*key, result.perils))
    tract = result.tract_perils
    if tract is not None:
        geoid = result.location.tract_geoid if result.location.tract_geoid is not None else tract.tract_geoid
        key = (TRACT, geoid, tract.nri_version)
        if key not in known:
            rows.append(score_row(*key, tract.scores))
    return rows


# The score rows made last, by key, with the scores they were made of: the rows of one county
# share its scores object (the reference index's), so a batch makes each county's row once.
_MADE: dict[tuple[str, str | None, str | None], tuple[PerilScores, dict[str, Any]]] = {}
_MADE_AT_MOST = 4096  # ~2 KB a row: a few MB at most


def score_row(level: str, geoid: str | None, nri_version: str | None, scores: PerilScores) -> dict[str, Any]:
    """The scores as a row keyed by (level, geoid, nri_version). Shared: do not change it."""
    key = (level, geoid, nri_version)
    made = _MADE.get(key)
    if made is not None and made[0] is scores:
        return made[1]
    row = _score_row(level, geoid, nri_version, scores)
    if len(_MADE) >= _MADE_AT_MOST:
        _MADE.clear()
    _MADE[key] = (scores, row)
    return row


def _score_row(level: str, geoid: str | None, nri_version: str | None, scores: PerilScores) -> dict[str, Any]:
    row: dict[str, Any] = {
        "level": level,
        "geoid": geoid,
        "nri_version": nri_version,
        "Total_Score": scores.total,
        "risk_rating": scores.total_rating,
        # The detailed export's text and the SPEC CSV's, each as that format writes it.
        "top_3": "; ".join(f"{h.name} {s}" for h, s in scores.top3()),
        "top3_combined": scores.top3_combined(),
    }
    values, ratings = scores.scores, scores.ratings
    for hazard in HAZARDS:
        row[f"{hazard.code}_Score"] = values.get(hazard.code)
        row[f"{hazard.code}_Rating"] = ratings.get(hazard.code)
    return row


def score_key(row: Mapping[str, Any]) -> tuple[str, str | None, str | None]:
    return row["level"], row["geoid"], row["nri_version"]


def scores_of(row: Mapping[str, Any]) -> PerilScores:
    """A score row read back as the domain's scores (the JSON Lines' perils and ratings)."""
    scores = {h.code: row.get(f"{h.code}_Score") for h in HAZARDS if row.get(f"{h.code}_Score") is not None}
    ratings = {h.code: row.get(f"{h.code}_Rating") for h in HAZARDS if row.get(f"{h.code}_Rating") is not None}
    return PerilScores(scores=scores, ratings=ratings, total=row.get("Total_Score"), total_rating=row.get("risk_rating"))


# --- the answer's records made again from its facts (what the downloads write) -----------------

def detailed_fields_of(facts: Mapping[str, Any], county: Mapping[str, Any] | None,
                       tract: Mapping[str, Any] | None) -> dict[str, Any]:
    """domain/detailed_export.answer_fields of the answer, from its facts and its county's and
    tract's score rows (None where the facts say it has none)."""
    county_scores = scores_of(county) if county is not None and facts["scored"] else None
    tract_scores = scores_of(tract) if tract is not None and facts["tract_scored"] else None
    fields = {name: facts[name] for name in _DETAILED_OWN}
    fields["low_confidence"] = "yes" if facts["low_confidence"] else "no"
    fields |= _score_fields(county_scores)
    fields["top_3"] = county["top_3"] if county_scores is not None else ""  # type: ignore[index]
    fields |= {
        "tract_Total_Score": tract_scores.total if tract_scores else None,
        "tract_risk_rating": tract_scores.total_rating if tract_scores else None,
        "tract_nri_version": facts["tract_nri_version"],
        "tract_note": facts["tract_note"],
    } | _hazard_fields("tract_", tract_scores)
    return fields


def answer_record_of(facts: Mapping[str, Any], county: Mapping[str, Any] | None,
                     tract: Mapping[str, Any] | None) -> dict[str, Any]:
    """The JSON Lines record of the answer as domain/detailed_export.answer_record makes it,
    before neutralising (the `input` and `row` keys are the row's own): every column of the
    detailed CSV, and the answer's parts as the single lookup shows them."""
    record = detailed_fields_of(facts, county, tract)
    scored = bool(facts["scored"]) and county is not None
    county_scores = scores_of(county) if scored else PerilScores(scores={})  # type: ignore[arg-type]
    tract_scores = scores_of(tract) if tract is not None and facts["tract_scored"] else None
    levels = [{"geography_level": COUNTY, "geoid": facts["county_fips"], "nri_version": facts["nri_version"]}] if scored else []
    if tract_scores is not None:
        levels.append({"geography_level": TRACT, "geoid": facts["tract_geoid"], "nri_version": facts["tract_nri_version"]})
    record.update(
        address=facts["address"],
        location={
            "method": facts["county_method"],
            "county_fips": facts["county_fips"],
            "county_name": facts["county_name"],
            "state": facts["county_state"],
            "confidence": facts["county_confidence"],
            "low_confidence": bool(facts["low_confidence"]),
            "alternatives": [
                {"county_fips": a["county_fips"], "county_name": a["county_name"], "state": a["state"],
                 "share": a["share"], "Total_Score": a["total_score"], "risk_rating": a["risk_rating"]}
                for a in facts["alternatives"] or ()
            ],
            "notes": list(facts["location_notes"] or ()),
            "source": facts["locator"],
            "tract_geoid": facts["tract_geoid"],
            "match_level": facts["match_level"],
            "lat": facts["lat"],
            "lng": facts["lng"],
        },
        receipt={
            "nri_version": facts["nri_version"],
            "county_fips": facts["county_fips"] if scored else None,
            "county_name": facts["county_name"] if scored else None,
            "state": facts["county_state"] if scored else None,
            "geography_level": COUNTY if scored else None,
            "geocode_match": facts["match_level"],
            "lat": facts["lat"],
            "lng": facts["lng"],
            "providers": {name: facts[name] for name in ("geocoder", "places", "perils", "property_records", "tract_perils")},
            "score_geographies": levels,
            "scored_at": facts["scored_at"],
            "datasets": [{"dataset": d["dataset"], "version": d["version"], "as_of": d["as_of"]} for d in facts["datasets"] or ()],
            "from_cache": bool(facts["from_cache"]),
            "cache_max_age_hours": facts["cache_max_age_hours"],
        },
        tract=None if tract_scores is None else {
            "geography_level": TRACT,
            "tract_geoid": facts["tract_geoid"],
            "county_fips": facts["tract_county_fips"],
            "nri_version": facts["tract_nri_version"],
            "tract_from": facts["tract_from"],
            "perils": tract_scores.fields(),
            "ratings": ratings_of(tract_scores),
            "Total_Score": tract_scores.total,
            "Top3_Scores_Combined": tract["top3_combined"],  # type: ignore[index]
            "notes": list(facts["tract_notes"] or ()),
            "about": TRACT_SCORES_NOTE,
        },
        perils=county_scores.fields(),
        ratings=ratings_of(county_scores),
    )
    return record


def spec_rows_of(facts: Mapping[str, Any], county: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The answer's SPEC §3 address group, as domain/export.result_rows makes it."""
    scored = bool(facts["scored"]) and county is not None
    total = county["Total_Score"] if scored else None  # type: ignore[index]
    top3 = county["top3_combined"] if scored else ""  # type: ignore[index]
    rows = []
    for index, occupant in enumerate(facts["occupants"] or (None,)):
        lat = occupant["lat"] if occupant and occupant["lat"] is not None else facts["lat"]
        lng = occupant["lng"] if occupant and occupant["lng"] is not None else facts["lng"]
        rows.append({
            "address": facts["address"] if index == 0 else "",
            "name": (occupant["name"] if occupant else None) or UNKNOWN,
            "vicinity": (occupant["vicinity"] if occupant else None) or UNKNOWN,
            "types": ",".join(occupant["types"]) if occupant and occupant["types"] else UNKNOWN,
            "lat": lat,
            "lng": lng,
            "business_status": (occupant["business_status"] if occupant else None) or UNKNOWN,
            "Total_Score": total,
            "Top3_Scores_Combined": top3,
            "naics_code": (occupant["naics_code"] if occupant else None) or "N/A",
        })
    return rows


# The detailed columns that are the facts' own, as they are.
_DETAILED_OWN = (
    "status", "message", "normalized_address", "match_level", "lat", "lng", "county_fips", "county_name",
    "county_state", "county_method", "county_confidence", "alternative_counties", "tract_geoid", "nri_version",
    "property_name", "year_built", "property_type", "floors", "gross_floor_area_sqft", "parking_area_sqft",
    "largest_use", "occupant_count", "naics_codes", "data_as_of",
)

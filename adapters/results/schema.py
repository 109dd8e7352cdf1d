"""The Parquet schemas of a chunk's two files (issue #27): `facts` (one row per input row, in
input order) and `scores` (one row per set of scores the chunk's rows used). Names and order of
the fields are domain/row_facts.py's; the types are here. Unknown is null, never 0."""

from __future__ import annotations

from functools import lru_cache

import pyarrow as pa

from domain.perils import HAZARDS
from domain.row_facts import ANSWER_FACT_FIELDS, SCORE_KEY_FIELDS, SCORE_VALUE_FIELDS, input_name


_TEXT, _FLOAT, _INT, _BOOL = pa.string(), pa.float64(), pa.int64(), pa.bool_()
_TEXTS = pa.list_(_TEXT)

ALTERNATIVE = pa.struct([
    ("county_fips", _TEXT), ("county_name", _TEXT), ("state", _TEXT),
    ("share", _FLOAT), ("total_score", _FLOAT), ("risk_rating", _TEXT),
])
OCCUPANT = pa.struct([
    ("name", _TEXT), ("vicinity", _TEXT), ("types", _TEXTS), ("lat", _FLOAT), ("lng", _FLOAT),
    ("business_status", _TEXT), ("naics_code", _TEXT),
])
DATASET = pa.struct([("dataset", _TEXT), ("version", _TEXT), ("as_of", _TEXT)])

ANSWER_FACT_TYPES: dict[str, pa.DataType] = {
    "status": _TEXT, "message": _TEXT, "address": _TEXT, "normalized_address": _TEXT, "match_level": _TEXT,
    "lat": _FLOAT, "lng": _FLOAT,
    "county_fips": _TEXT, "county_name": _TEXT, "county_state": _TEXT, "county_method": _TEXT,
    "county_confidence": _FLOAT, "low_confidence": _BOOL,
    "alternatives": pa.list_(ALTERNATIVE), "alternative_counties": _TEXT, "location_notes": _TEXTS,
    "locator": _TEXT, "tract_geoid": _TEXT, "nri_version": _TEXT,
    "tract_county_fips": _TEXT, "tract_nri_version": _TEXT, "tract_from": _TEXT,
    "tract_notes": _TEXTS, "tract_note": _TEXT,
    "property_name": _TEXT, "year_built": _INT, "property_type": _TEXT, "floors": _INT,
    "gross_floor_area_sqft": _INT, "parking_area_sqft": _INT,  # Building's gfa_total/gfa_parking: whole square feet
    "largest_use": _TEXT, "occupant_count": _INT, "occupants": pa.list_(OCCUPANT),
    "naics_codes": _TEXT, "data_as_of": _TEXT,
    "geocoder": _TEXT, "places": _TEXT, "perils": _TEXT, "property_records": _TEXT, "tract_perils": _TEXT,
    "scored_at": _TEXT, "datasets": pa.list_(DATASET), "from_cache": _BOOL, "cache_max_age_hours": _INT,
    "scored": _BOOL, "tract_scored": _BOOL,
}
assert tuple(ANSWER_FACT_TYPES) == ANSWER_FACT_FIELDS, "schema.py and domain/row_facts.py disagree"


@lru_cache(maxsize=64)
def facts_schema(user_columns: int) -> pa.Schema:
    """The facts file's schema for an upload of `user_columns` columns of its own."""
    return pa.schema(
        [pa.field("row", _INT, nullable=False)]
        + [pa.field(input_name(i), _TEXT) for i in range(user_columns)]
        + [pa.field(name, kind) for name, kind in ANSWER_FACT_TYPES.items()]
    )


def _score_type(name: str) -> pa.DataType:
    return _FLOAT if name.endswith("_Score") else _TEXT


SCORES_SCHEMA = pa.schema(
    [pa.field(name, _TEXT) for name in SCORE_KEY_FIELDS]
    + [pa.field(name, _score_type(name)) for name in SCORE_VALUE_FIELDS]
)
HAZARD_CODES = tuple(hazard.code for hazard in HAZARDS)

"""The parts of an answer as plain records with the field names of SPEC §3 and the single
lookup's JSON: the web presenters (entrypoints/http/presenters.py) and the detailed export's
JSON Lines both use them, so an answer reads the same wherever it appears."""

from __future__ import annotations

from typing import Any

from domain.lookup_result import Location, LookupResult
from domain.perils import HAZARDS, PerilScores


def perils_record(result: LookupResult) -> dict[str, float | None]:
    return (result.perils or PerilScores(scores={})).fields()


def ratings_record(result: LookupResult) -> dict[str, str | None]:
    scores = result.perils or PerilScores(scores={})
    return {**{h.code: scores.ratings.get(h.code) for h in HAZARDS}, "Total": scores.total_rating}


def location_record(location: Location) -> dict[str, Any]:
    point = location.point
    return {
        "method": location.method,
        "county_fips": location.county_fips,
        "county_name": location.county_name,
        "state": location.state,
        "confidence": location.confidence,
        "low_confidence": location.low_confidence,
        "alternatives": [
            {
                "county_fips": a.county_fips,
                "county_name": a.county_name,
                "state": a.state,
                "share": a.share,
                "Total_Score": a.total_score,
                "risk_rating": a.risk_rating,
            }
            for a in location.alternatives
        ],
        "notes": list(location.notes),
        "source": location.locator,
        "tract_geoid": location.tract_geoid,
        "match_level": point.match_level if point else "none",
        "lat": point.lat if point else None,
        "lng": point.lng if point else None,
    }


def receipt_record(result: LookupResult) -> dict[str, Any]:
    location, provenance, point = result.location, result.provenance, result.location.point
    scored = result.perils is not None
    return {
        "nri_version": provenance.nri_version,
        "county_fips": location.county_fips if scored else None,
        "county_name": location.county_name if scored else None,
        "state": location.state if scored else None,
        "geography_level": "county" if scored else None,
        "geocode_match": point.match_level if point else "none",
        "lat": point.lat if point else None,
        "lng": point.lng if point else None,
        "providers": {
            "geocoder": provenance.geocoder,
            "places": provenance.places,
            "perils": provenance.perils,
            "property_records": provenance.property_records,
        },
        "scored_at": provenance.scored_at,
        "datasets": [{"dataset": d.dataset, "version": d.version, "as_of": d.as_of} for d in provenance.datasets],
        "from_cache": provenance.from_cache,
        "cache_max_age_hours": provenance.cache_max_age_hours,
    }

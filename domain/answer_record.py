"""The parts of an answer as plain records with the field names of SPEC §3 and the single
lookup's JSON: the web presenters (entrypoints/http/presenters.py) and the detailed export's
JSON Lines both use them, so an answer reads the same wherever it appears."""

from __future__ import annotations

from typing import Any

from domain.lookup_result import Location, LookupResult
from domain.nri_release import TRACT_SCORES_NOTE
from domain.perils import HAZARDS, PerilScores


def perils_record(result: LookupResult) -> dict[str, float | None]:
    return (result.perils or PerilScores(scores={})).fields()


def ratings_of(scores: PerilScores) -> dict[str, str | None]:
    return {**{h.code: scores.ratings.get(h.code) for h in HAZARDS}, "Total": scores.total_rating}


def ratings_record(result: LookupResult) -> dict[str, str | None]:
    return ratings_of(result.perils or PerilScores(scores={}))


def tract_record(result: LookupResult) -> dict[str, Any] | None:
    """The census tract's scores, beside (never instead of) the county's; None without them."""
    tract = result.tract_perils
    if tract is None:
        return None
    return {
        "geography_level": "tract",
        "tract_geoid": tract.tract_geoid,
        "county_fips": tract.county_fips,
        "nri_version": tract.nri_version,
        "tract_from": tract.tract_from,
        "perils": tract.scores.fields(),
        "ratings": ratings_of(tract.scores),
        "Total_Score": tract.scores.total,
        "Top3_Scores_Combined": tract.scores.top3_combined(),
        "notes": list(tract.notes),
        "about": TRACT_SCORES_NOTE,
    }


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
    scored, tract = result.perils is not None, result.tract_perils
    # Each set of scores with its geography and release: county first (the primary), then tract.
    levels = [{"geography_level": "county", "geoid": location.county_fips, "nri_version": provenance.nri_version}] if scored else []
    if tract is not None:
        levels.append({"geography_level": "tract", "geoid": tract.tract_geoid, "nri_version": tract.nri_version})
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
            "tract_perils": provenance.tract_perils,
        },
        "score_geographies": levels,
        "scored_at": provenance.scored_at,
        "datasets": [{"dataset": d.dataset, "version": d.version, "as_of": d.as_of} for d in provenance.datasets],
        "from_cache": provenance.from_cache,
        "cache_max_age_hours": provenance.cache_max_age_hours,
    }

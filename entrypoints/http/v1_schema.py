"""The public API's answers (/api/v1) as msgspec Structs, so /schema documents them, and the
presenter that makes them from the lookup's answer. Unknown is null, never 0."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec

from application.api_plans import DailyStanding
from domain.perils import HAZARDS, PerilScores


class TopRisk(msgspec.Struct):
    type: str  # the hazard's code, e.g. HRCN
    name: str  # e.g. Hurricane
    score: float  # 0 to 100


class CountyCandidate(msgspec.Struct):
    county_fips: str
    county_name: str | None
    state: str | None
    share: float
    Total_Score: float | None
    risk_rating: str | None


class Location(msgspec.Struct):
    """How the county was chosen and how sure it is, with the other candidates."""

    method: str | None
    county_fips: str | None
    county_name: str | None
    state: str | None
    confidence: float | None  # 0 to 1
    low_confidence: bool | None
    alternatives: list[CountyCandidate]
    notes: list[str]
    source: str | None
    tract_geoid: str | None
    lat: float | None
    lng: float | None
    geocode_match: str | None


class DatasetUsed(msgspec.Struct):
    dataset: str
    version: str | None
    as_of: str | None


class Provenance(msgspec.Struct):
    nri_version: str | None
    datasets: list[DatasetUsed]
    scored_at: str | None


class RiskAssessment(msgspec.Struct):
    status: Literal["success"]
    address: str
    total_score: float | None
    risk_level: str | None  # the NRI rating of the total, e.g. "Relatively Moderate"
    top_risks: list[TopRisk]
    scores: dict[str, float | None]  # by hazard code: AVLN, CFLD, ... (18)
    ratings: dict[str, str | None]  # by hazard code, and Total
    location: Location
    provenance: Provenance


class TokenRequest(msgspec.Struct):
    api_key: str
    scope: str = ""  # "read", "batch" or "read batch"; empty: all of the key's scopes


class TokenAnswer(msgspec.Struct):
    access_token: str
    token_type: Literal["bearer"]
    expires_in: int  # seconds
    scope: str


class Grant(msgspec.Struct):
    """What the credential grants, and where the caller stands today."""

    status: Literal["success"]
    valid: bool
    user_id: str
    key_id: str
    scopes: list[str]
    plan: str
    daily_limit: int
    used_today: int
    remaining_today: int
    resets_at: datetime


def rate_limit_headers(standing: DailyStanding) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(standing.limit),
        "X-RateLimit-Remaining": str(standing.remaining),
        "X-RateLimit-Reset": str(int(standing.resets_at.timestamp())),
    }


def _number(value: Any) -> float | None:  # noqa: ANN401
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def risk_assessment(answer: dict[str, Any]) -> RiskAssessment:
    perils = answer.get("perils") or {}
    scores = {hazard.code: _number(perils.get(hazard.field_name)) for hazard in HAZARDS}
    top = PerilScores(scores=scores).top3()
    location = answer.get("location") or {}
    receipt = answer.get("receipt") or {}
    ratings = answer.get("ratings") or {}
    return RiskAssessment(
        status="success",
        address=str(answer.get("query") or ""),
        total_score=_number(answer.get("Total_Score")),
        risk_level=ratings.get("Total"),
        top_risks=[TopRisk(hazard.code, hazard.name, score) for hazard, score in top],
        scores=scores,
        ratings=ratings,
        location=Location(
            method=location.get("method"),
            county_fips=location.get("county_fips"),
            county_name=location.get("county_name"),
            state=location.get("state"),
            confidence=location.get("confidence"),
            low_confidence=location.get("low_confidence"),
            alternatives=[msgspec.convert(a, CountyCandidate) for a in location.get("alternatives") or []],
            notes=list(location.get("notes") or []),
            source=location.get("source"),
            tract_geoid=location.get("tract_geoid"),
            lat=receipt.get("lat"),
            lng=receipt.get("lng"),
            geocode_match=receipt.get("geocode_match"),
        ),
        provenance=Provenance(
            nri_version=receipt.get("nri_version"),
            datasets=[msgspec.convert(d, DatasetUsed) for d in receipt.get("datasets") or []],
            scored_at=receipt.get("scored_at"),
        ),
    )

"""The public API's answers (/api/v1) as msgspec Structs, so /schema documents them, and the
presenter that makes them from the lookup's answer. Unknown is null, never 0."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from domain.answer_record import location_record
from domain.lookup_result import Location as LookupLocation
from domain.lookup_result import LookupResult
from entrypoints.http.presenters import spec_json

from application.api_batches import FORMATS, ExportId, ExportState
from application.api_plans import DailyStanding
from application.ports.batch import ExportFile
from domain.occupancy import UNKNOWN
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


class ScoreGeography(msgspec.Struct):
    geography_level: str  # county (the primary scores) or tract
    geoid: str | None
    nri_version: str | None


class Provenance(msgspec.Struct):
    nri_version: str | None  # of the county scores (the primary ones)
    datasets: list[DatasetUsed]
    scored_at: str | None
    score_geographies: list[ScoreGeography]  # each set of scores: geography level, GEOID, NRI release


class TractRisk(msgspec.Struct):
    """The census tract's scores beside the county's; tract scores rank tracts nationally and are
    not comparable with county scores (`about` says so); `notes` says when the NRI releases differ."""

    geography_level: Literal["tract"]
    tract_geoid: str
    nri_version: str | None
    total_score: float | None
    risk_level: str | None
    top_risks: list[TopRisk]
    scores: dict[str, float | None]  # by hazard code
    ratings: dict[str, str | None]  # by hazard code, and Total
    notes: list[str]
    about: str


class OccupantView(msgspec.Struct):
    name: str | None
    vicinity: str | None
    types: list[str]
    business_status: str | None
    naics_code: str | None
    naics_title: str | None
    lat: float | None
    lng: float | None


class OccupantCoverageView(msgspec.Struct):
    covered: bool  # false: no occupant source covers the address; its occupants are unknown (occupants absent)
    covers: str  # what the occupant source covers


class RiskAssessment(msgspec.Struct, omit_defaults=True):
    status: Literal["success"]
    address: str
    total_score: float | None
    risk_level: str | None  # the NRI rating of the total, e.g. "Relatively Moderate"
    top_risks: list[TopRisk]
    scores: dict[str, float | None]  # by hazard code: AVLN, CFLD, ... (18)
    ratings: dict[str, str | None]  # by hazard code, and Total
    location: Location
    provenance: Provenance
    tract: TractRisk | None  # null: no census tract for the address, or its tract table is not loaded
    # With include_occupants=true only; absent there too where no occupant source covers the
    # address (unknown, not none: occupant_coverage says so).
    occupants: list[OccupantView] | None = None
    occupant_coverage: OccupantCoverageView | None = None  # with include_occupants=true, where recorded


class Candidate(msgspec.Struct):
    address_id: str  # names this address in GET /api/v1/data/risk/{address_id}
    address: str
    location: Location


class AddressCandidates(msgspec.Struct):
    status: Literal["success"]
    candidates: list[Candidate]


class PastAnswer(msgspec.Struct):
    answered_at: datetime
    answer: RiskAssessment


class AnswerHistoryView(msgspec.Struct):
    status: Literal["success"]
    address_id: str
    address: str
    answers: list[PastAnswer]  # newest first, at most `limit` (100 by default)
    offset: int  # answers skipped before this page
    next_offset: int | None  # send it as `offset` for the next page; null: this is the last page


# Paging of the listings (history, webhook deliveries, exports): newest first, by offset.
OFFSET_DESCRIPTION = (
    "How many of the newest to skip (default 0): send the answer's next_offset to read the next page; "
    "next_offset is null on the last page. Not a whole number from 0 to 1,000,000: 400."
)


class ExportEntry(msgspec.Struct):
    """A finished batch's export, from the API or a web upload."""

    export_id: str  # the batch's job id: GET /api/v1/export/status/{export_id}, /export/download/{export_id}
    job_id: str
    name: str  # as the web app's export history shows it
    exported_at: datetime
    status_url: str
    download_urls: dict[str, str]  # csv, xlsx, jsonl and parquet


class ExportList(msgspec.Struct):
    status: Literal["success"]
    exports: list[ExportEntry]  # newest first
    offset: int
    next_offset: int | None  # null: this is the last page


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


def location_view(location: dict[str, Any] | LookupLocation) -> Location:
    if isinstance(location, LookupLocation):
        record = location_record(location)
        location = {**record, "geocode_match": record["match_level"]}
    return Location(
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
        lat=location.get("lat"),
        lng=location.get("lng"),
        geocode_match=location.get("geocode_match"),
    )


def _known(text: Any) -> str | None:  # noqa: ANN401
    """The lookup's "NA" and "N/A" placeholders are null here."""
    return text if isinstance(text, str) and text not in (UNKNOWN, "N/A", "") else None


def occupant_view(occupant: dict[str, Any]) -> OccupantView:
    return OccupantView(
        name=_known(occupant.get("name")),
        vicinity=_known(occupant.get("vicinity")),
        types=list(occupant.get("types") or []),
        business_status=_known(occupant.get("business_status")),
        naics_code=_known(occupant.get("naics_code")),
        naics_title=_known(occupant.get("naics_title")),
        lat=_number(occupant.get("lat")),
        lng=_number(occupant.get("lng")),
    )


def _scores_by_code(perils: dict[str, Any]) -> tuple[dict[str, float | None], list[TopRisk]]:
    scores = {hazard.code: _number(perils.get(hazard.field_name)) for hazard in HAZARDS}
    return scores, [TopRisk(hazard.code, hazard.name, score) for hazard, score in PerilScores(scores=scores).top3()]


def tract_risk(tract: dict[str, Any] | None) -> TractRisk | None:
    if not tract:
        return None
    scores, top = _scores_by_code(tract.get("perils") or {})
    ratings = tract.get("ratings") or {}
    return TractRisk(
        geography_level="tract",
        tract_geoid=str(tract.get("tract_geoid")),
        nri_version=tract.get("nri_version"),
        total_score=_number(tract.get("Total_Score")),
        risk_level=ratings.get("Total"),
        top_risks=top,
        scores=scores,
        ratings=ratings,
        notes=list(tract.get("notes") or []),
        about=str(tract.get("about") or ""),
    )


def _score_geographies(receipt: dict[str, Any]) -> list[ScoreGeography]:
    levels = receipt.get("score_geographies")
    if levels is None and receipt.get("geography_level") == "county":  # an answer stored before tract scores
        levels = [{"geography_level": "county", "geoid": receipt.get("county_fips"), "nri_version": receipt.get("nri_version")}]
    return [msgspec.convert(level, ScoreGeography) for level in levels or []]


def risk_assessment(answer: LookupResult | dict[str, Any], include_occupants: bool = False) -> RiskAssessment:
    """The v1 answer, from the web's JSON of the answer (SPEC field names), so both read alike."""
    answer = spec_json(answer)
    scores, top = _scores_by_code(answer.get("perils") or {})
    location = answer.get("location") or {}
    receipt = answer.get("receipt") or {}
    ratings = answer.get("ratings") or {}
    found = answer.get("occupants") or []
    recorded = answer.get("occupant_coverage")
    coverage = OccupantCoverageView(bool(recorded.get("covered")), str(recorded.get("covers") or "")) if isinstance(
        recorded, dict) else None
    return RiskAssessment(
        status="success",
        address=str(answer.get("query") or ""),
        total_score=_number(answer.get("Total_Score")),
        risk_level=ratings.get("Total"),
        top_risks=top,
        scores=scores,
        ratings=ratings,
        location=location_view({**location, **{name: receipt.get(name) for name in ("lat", "lng", "geocode_match")}}),
        provenance=Provenance(
            nri_version=receipt.get("nri_version"),
            datasets=[msgspec.convert(d, DatasetUsed) for d in receipt.get("datasets") or []],
            scored_at=receipt.get("scored_at"),
            score_geographies=_score_geographies(receipt),
        ),
        tract=tract_risk(answer.get("tract")),
        occupants=[occupant_view(o) for o in found] if include_occupants and (
            coverage is None or coverage.covered or found) else None,
        occupant_coverage=coverage if include_occupants else None,
    )


# --- batches and their exports (entrypoints/http/routes/v1_batches.py) -------------------------

OwnFieldName = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
OwnFieldValue = Annotated[str, msgspec.Meta(max_length=1000)]


# A field not named here is refused (400) rather than dropped: a program's own fields go in `fields`.
class BatchAddress(msgspec.Struct, forbid_unknown_fields=True):
    address: Annotated[str, msgspec.Meta(min_length=1, max_length=200, description="Street address, e.g. 701 5th Ave")]
    city: Annotated[str, msgspec.Meta(max_length=100)]
    state: Annotated[
        str, msgspec.Meta(max_length=50, description="The state's two-letter code (WA) or its name (Washington)")
    ]
    zip: Annotated[
        str,
        msgspec.Meta(
            max_length=20,
            description="5-digit ZIP code. As in an uploaded file, 4 digits are read with a leading 0 (a spreadsheet "
            "drops it: 2134 is 02134) where the state's ZIP codes begin with 0; elsewhere a digit is missing, and the "
            "address is refused: listed in the answer's `refused`, not charged, and not located in the export.",
        ),
    ]
    fields: Annotated[
        dict[OwnFieldName, OwnFieldValue],
        msgspec.Meta(
            max_length=20,
            description="Your own fields (e.g. {\"policy_no\": \"P-1001\"}), text, given back unchanged as columns of "
            "the export after address_index, as an uploaded file's own columns are. Names other than the address "
            "columns (Street Address, City, State, Zip, Country, address_index): 400 invalid_own_field.",
        ),
    ] = {}


# Litestar converts request bodies with msgspec's lax rules (strict=False, which query strings
# need), and those take 0, 1, "true" or "0" for a bool. A Literal is matched exactly, lax or not:
# a field of this type takes JSON true and false only, anything else is a 400.
StrictBool = Literal[True, False]


class BatchRequest(msgspec.Struct):
    addresses: Annotated[
        list[BatchAddress],
        msgspec.Meta(
            min_length=1,
            description="The addresses, one request each of your daily plan. At most the server's batch size "
            "(10,000 by default): a larger batch is refused with 413 and its limit. The export has a row for each, "
            "in this order: `address_index` is its position here (from 0) and `row` is address_index + 2, its line "
            "in the batch read as a CSV file whose line 1 is the header, as an uploaded file's rows are numbered.",
        ),
    ]
    include_details: Annotated[
        StrictBool,
        msgspec.Meta(description="Accepted and ignored, so clients of the original API keep working: true, false "
                     "or left out give the same export, which always has the full detail (scores, ratings, "
                     "location, provenance). Not true or false: 400."),
    ] = True
    callback_url: (
        Annotated[
            str, msgspec.Meta(max_length=2048, description="Called (POST, signed) when the batch ends; a public http(s) URL.")
        ]
        | None
    ) = None


class RefusedAddressView(msgspec.Struct):
    address_index: int  # its position in `addresses`, from 0
    row: int  # its `row` in the export: address_index + 2 (line 1 is the header, as in an uploaded file)
    message: str  # what is wrong and what to do; the export's `message` says the same


class BatchAccepted(msgspec.Struct):
    status: Literal["queued"]
    job_id: str
    export_id: str  # the job id: GET /api/v1/export/status/{export_id}, then /export/download/{export_id}
    addresses: int  # in the batch, as sent: the export has one row each
    requests_charged: int  # the addresses looked up: `addresses` less the refused ones
    refused: list[RefusedAddressView]  # not looked up and not charged, each with why
    eta_seconds: int  # a first estimate; the status answer refines it as the batch runs
    status_url: str


class Progress(msgspec.Struct):
    done: int
    total: int


class ExportStatus(msgspec.Struct):
    status: Literal["queued", "running", "done", "failed"]
    export_id: str
    job_id: str
    format: Literal["csv", "xlsx", "jsonl"]
    progress: Progress
    eta_seconds: int | None  # null once the batch has ended
    error: str | None  # why it failed
    download_url: str | None  # when done
    download_urls: dict[str, str] | None  # every format of this export, when done
    created_at: datetime
    finished_at: datetime | None


class ExportCreateRequest(msgspec.Struct):
    format: Annotated[str, msgspec.Meta(max_length=10, description="csv, xlsx or jsonl (json: jsonl)")]
    export_id: Annotated[str, msgspec.Meta(max_length=100)] | None = None
    job_id: Annotated[str, msgspec.Meta(max_length=100)] | None = None


BATCH_EXAMPLE = {
    "addresses": [
        {"address": "701 5th Ave", "city": "Seattle", "state": "WA", "zip": "98104", "fields": {"policy_no": "P-1001"}},
        {"address": "100 Biscayne Blvd", "city": "Miami", "state": "FL", "zip": "33130", "fields": {"policy_no": "P-1002"}},
    ],
    "include_details": True,
}
JOB_EXAMPLE_ID = "3f2b8c1e-5d4a-4e7b-9c1f-2a6d8e0b7c45"
BATCH_ACCEPTED_EXAMPLE = {
    "status": "queued", "job_id": JOB_EXAMPLE_ID, "export_id": JOB_EXAMPLE_ID, "addresses": 2, "requests_charged": 2,
    "refused": [], "eta_seconds": 2,
    "status_url": f"/api/v1/export/status/{JOB_EXAMPLE_ID}",
}
EXPORT_STATUS_EXAMPLE = {
    "status": "done", "export_id": f"{JOB_EXAMPLE_ID}.xlsx", "job_id": JOB_EXAMPLE_ID, "format": "xlsx",
    "progress": {"done": 2, "total": 2}, "eta_seconds": None, "error": None,
    "download_url": f"/api/v1/export/download/{JOB_EXAMPLE_ID}.xlsx",
    "download_urls": {
        "csv": f"/api/v1/export/download/{JOB_EXAMPLE_ID}",
        "xlsx": f"/api/v1/export/download/{JOB_EXAMPLE_ID}.xlsx",
        "jsonl": f"/api/v1/export/download/{JOB_EXAMPLE_ID}.jsonl",
        "parquet": f"/api/v1/export/download/{JOB_EXAMPLE_ID}.parquet",
    },
    "created_at": "2026-11-25T12:00:00Z", "finished_at": "2026-11-25T12:00:02Z",
}


def export_download_url(export_id: str) -> str:
    return f"/api/v1/export/download/{export_id}"


def export_entry(export: ExportFile) -> ExportEntry:
    job_id = export.job_id or ""
    return ExportEntry(
        export_id=job_id, job_id=job_id, name=export.name, exported_at=export.exported_at,
        status_url=f"/api/v1/export/status/{job_id}",
        download_urls={fmt: export_download_url(str(ExportId(job_id, fmt))) for fmt in FORMATS},
    )


def export_status(state: ExportState) -> ExportStatus:
    job = state.job
    urls = {fmt: export_download_url(str(ExportId(job.id, fmt))) for fmt in FORMATS} if state.ready else None
    return ExportStatus(
        status=job.status,  # type: ignore[arg-type]  # queued, running, done or failed (BatchJob)
        export_id=state.export_id,
        job_id=job.id,
        format=state.format,  # type: ignore[arg-type]
        progress=Progress(job.done, job.total),
        eta_seconds=state.eta_seconds,
        error=job.error,
        download_url=export_download_url(state.export_id) if state.ready else None,
        download_urls=urls,
        created_at=job.created_at,
        finished_at=job.finished_at,
    )

"""The public API (SPEC §7) under /api/v1, for integrators: authenticated by `X-API-Key` or by a
bearer token of POST /api/v1/auth/token, and counted against the owner's daily plan."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from litestar import Request, Response, get, post
from litestar.params import JSONBody, PathParameter, QueryParameter

from application.api_plans import DailyStanding
from application.ports.public_api import ApiCaller
from application.pages import MAX_OFFSET, PageRequest
from application.public_api import HISTORY_LIMIT, PublicApi
from entrypoints.http.dependencies import ApiClient, ApiKeys, IdempotencyService, PublicApiService
from entrypoints.http.idempotency import IdempotencyKey, idempotent
from entrypoints.http.known_query import only_query
from entrypoints.http.rate_limit_headers import remember_caller
from entrypoints.http.openapi import JSON_BODY, public_api
from entrypoints.http.v1_schema import (
    AddressCandidates,
    OFFSET_DESCRIPTION,
    AnswerHistoryView,
    Candidate,
    Grant,
    PastAnswer,
    RiskAssessment,
    TokenAnswer,
    TokenRequest,
    location_view,
    rate_limit_headers,
    risk_assessment,
)

TAGS = ["public API v1"]


def grant(caller: ApiCaller, standing: DailyStanding) -> Grant:
    return Grant(
        status="success",
        valid=True,
        user_id=caller.user_id,
        key_id=caller.key_id,
        scopes=sorted(caller.scopes),
        plan=standing.plan.value,
        daily_limit=standing.limit,
        used_today=standing.used,
        remaining_today=standing.remaining,
        resets_at=standing.resets_at,
    )


@post(
    "/api/v1/auth/token",
    tags=TAGS,
    status_code=200,
    summary="Exchange an API key for a bearer token of 15 minutes, for some or all of its scopes",
    security=[],
    responses=public_api(JSON_BODY, 409)["responses"],
    response_headers=public_api()["response_headers"],
)
async def issue_token(
    request: Request,
    api_keys: ApiKeys,
    public_api: PublicApiService,
    idempotency: IdempotencyService,
    data: JSONBody[TokenRequest],
    idempotency_key: IdempotencyKey = None,
) -> Response[TokenAnswer]:
    async def issue() -> Response[TokenAnswer]:
        issued = await api_keys.issue_token(data.api_key, data.scope)
        standing = await public_api.standing(issued.caller)
        answer = TokenAnswer(issued.token, "bearer", issued.expires_in, " ".join(sorted(issued.caller.scopes)))
        return Response(answer, status_code=200, headers=rate_limit_headers(standing))

    # An unknown or revoked API key is refused (401) first; a known one is the caller whose standing
    # every other answer (a scope it lacks, a reused Idempotency-Key) says too, and the key's owner.
    caller = await api_keys.by_key(data.api_key)
    remember_caller(request.scope, caller)
    owner = caller.user_id if idempotency_key is not None else ""
    return await idempotent(idempotency, request, owner, idempotency_key, TokenAnswer, issue)


@get("/api/v1/auth/verify", tags=TAGS, summary="What the API key or bearer token grants", guards=[only_query()],
     **public_api(400))
async def verify(public_api: PublicApiService, api_caller: ApiClient) -> Response[Grant]:
    standing = await public_api.standing(api_caller)
    return Response(grant(api_caller, standing), headers=rate_limit_headers(standing))


@get(
    "/api/v1/risk-assessment",
    tags=TAGS,
    summary="The risk answer for one address in one call (one request of the daily limit)",
    guards=[only_query("address")],
    **public_api(400, 404, 429, 503),
)
async def get_risk_assessment(
    public_api: PublicApiService, api_caller: ApiClient, address: Annotated[str, QueryParameter(max_length=1000)] = ""
) -> Response[RiskAssessment]:
    assessment = await public_api.risk_assessment(api_caller, address)
    return Response(risk_assessment(assessment.answer), headers=rate_limit_headers(assessment.standing))


@get(
    "/api/v1/search/address",
    tags=TAGS,
    summary="Find an address: the address as read, where it lies and its address_id (one request)",
    guards=[only_query("query", "limit", "country")],
    **public_api(400, 404, 429, 503),
)
async def search_address(
    public_api: PublicApiService,
    api_caller: ApiClient,
    # `query` is a name Litestar keeps for itself: the parameter is read under that name.
    query_text: Annotated[str, QueryParameter(name="query", max_length=1000)] = "",
    limit: Annotated[int, QueryParameter(ge=1, le=10)] = 5,
    country: Annotated[str, QueryParameter(max_length=3)] = "US",
) -> Response[AddressCandidates]:
    found = await public_api.search_address(api_caller, query_text, limit, country)
    candidates = [Candidate(c.address_id, c.address, location_view(c.location)) for c in found.candidates]
    return Response(AddressCandidates("success", candidates), headers=rate_limit_headers(found.standing))


@get(
    "/api/v1/data/risk/{address_id:str}",
    tags=TAGS,
    summary="The risk answer for an address_id of the address search (one request)",
    guards=[only_query("include_occupants")],
    **public_api(400, 404, 429, 503),
)
async def risk_by_address_id(
    public_api: PublicApiService,
    api_caller: ApiClient,
    address_id: Annotated[str, PathParameter(max_length=1500)],
    include_occupants: Annotated[bool, QueryParameter()] = False,
) -> Response[RiskAssessment]:
    assessment = await public_api.risk_for(api_caller, address_id)
    body = risk_assessment(assessment.answer, include_occupants=include_occupants)
    return Response(body, headers=rate_limit_headers(assessment.standing))


@get(
    "/api/v1/data/history/{address_id:str}",
    tags=TAGS,
    summary="Your earlier answers for an address_id, newest first, a page at a time (UTC days, inclusive; costs no request)",
    guards=[only_query("from_date", "to_date", "offset", "limit")],
    **public_api(400, 404),
)
async def answer_history(
    public_api: PublicApiService,
    api_caller: ApiClient,
    address_id: Annotated[str, PathParameter(max_length=1500)],
    from_date: Annotated[date | None, QueryParameter()] = None,
    to_date: Annotated[date | None, QueryParameter()] = None,
    offset: Annotated[int, QueryParameter(ge=0, le=MAX_OFFSET, description=OFFSET_DESCRIPTION)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=HISTORY_LIMIT, description="Answers on the page, 1 to 100 (default 100).")] = HISTORY_LIMIT,
) -> Response[AnswerHistoryView]:
    history = await public_api.history(api_caller, address_id, from_date, to_date, PageRequest(offset, limit))
    answers = [PastAnswer(past.answered_at, risk_assessment(past.answer)) for past in history.answers]
    body = AnswerHistoryView("success", address_id, history.address, answers, history.offset, history.next_offset)
    return Response(body, headers=rate_limit_headers(history.standing))


ROUTES = [issue_token, verify, get_risk_assessment, search_address, risk_by_address_id, answer_history]

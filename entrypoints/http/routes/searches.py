"""Single lookups and stored searches (SPEC §7 shapes, owner-scoped)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get
from litestar.params import FromPath, QueryParameter

from application.lookup import LookupService
from application.lookup_ports import StoredSearch
from entrypoints.http.dependencies import Claims, container_of
from entrypoints.http.openapi import signed_in
from domain.export import result_rows, to_csv


def _lookup(request: Request) -> LookupService:
    return container_of(request).lookup()


def search_json(search: StoredSearch) -> dict[str, Any]:
    result = search.result
    return {
        "search_id": search.id,
        "address": search.address,
        "timestamp": search.created_at.isoformat(),
        "total_results": search.occupant_count,
        "filtered_results": (result or {}).get("occupants", []),
        "result_data": result,
    }


@get(
    "/api/nearby-search",
    tags=["search"],
    summary="Look up one address: occupants, building, geo perils",
    **signed_in(400, 429, 503),
)
async def nearby_search(
    request: Request, claims: Claims, address: Annotated[str, QueryParameter(max_length=1000)] = ""
) -> dict[str, Any]:
    result = await _lookup(request).look_up(claims, address)
    return {"status": "success", "search_id": result["search_id"], "data": result["occupants"], "result": result}


@get("/api/recent-searches", tags=["search"], **signed_in())
async def recent_searches(request: Request, claims: Claims) -> dict[str, Any]:
    searches = await _lookup(request).recent(claims)
    return {"status": "success", "searches": [search_json(s) for s in searches]}


@get(
    "/api/search-results/{search_id:str}",
    tags=["search"],
    summary="One of the caller's stored searches",
    **signed_in(400, 404),
)
async def search_result(request: Request, claims: Claims, search_id: FromPath[str]) -> dict[str, Any]:
    search, previous_id, next_id = await _lookup(request).stored(claims, search_id)
    return {"status": "success", "search": search_json(search), "previous_id": previous_id, "next_id": next_id}


@get(
    "/api/search-results/{search_id:str}/export",
    tags=["search"],
    summary="One stored search as CSV",
    **signed_in(400, 404),
)
async def export_search_result(request: Request, claims: Claims, search_id: FromPath[str]) -> Response[str]:
    search, _previous, _next = await _lookup(request).stored(claims, search_id)
    body = to_csv(result_rows(search.result or {}))
    filename = f"perilscope-search-{search.id[:8]}.csv"
    return Response(
        body, media_type="text/csv; charset=utf-8", headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )


ROUTES = [nearby_search, recent_searches, search_result, export_search_result]

"""Single lookups and stored searches (SPEC §7 shapes, owner-scoped)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from litestar import Response, get
from litestar.params import FromPath, QueryParameter

from application.ports.lookup import StoredSearch
from entrypoints.http.dependencies import Claims, Lookup
from entrypoints.http.openapi import CSV_MEDIA_TYPE, signed_in
from domain.export import export_rows, to_csv
from entrypoints.http.presenters import OccupantBody, SearchResultBody, result_body


class NearbySearchBody(msgspec.Struct):
    status: str
    search_id: str
    data: list[OccupantBody]  # SPEC §7: the occupants
    result: SearchResultBody


class RecentSearchBody(msgspec.Struct):
    """SPEC §3 'Recent search record'."""

    search_id: str
    address: str
    timestamp: str
    total_results: int | None  # null: no occupant source covers the address
    filtered_results: list[OccupantBody]
    result_data: SearchResultBody | None  # null for a batch


class RecentSearchesBody(msgspec.Struct):
    status: str
    searches: list[RecentSearchBody]


class StoredSearchBody(msgspec.Struct):
    status: str
    search: RecentSearchBody
    previous_id: str | None
    next_id: str | None


def search_body(search: StoredSearch) -> RecentSearchBody:
    result = result_body(search.result) if search.result is not None else None
    return RecentSearchBody(
        search_id=search.id,
        address=search.address,
        timestamp=search.created_at.isoformat(),
        total_results=search.occupant_count,
        filtered_results=result.occupants if result else [],
        result_data=result,
    )


@get(
    "/api/nearby-search",
    tags=["search"],
    summary="Look up one address: occupants, building, geo perils",
    **signed_in(400, 429, 503),
)
async def nearby_search(
    lookup: Lookup, claims: Claims, address: Annotated[str, QueryParameter(max_length=1000)] = ""
) -> NearbySearchBody:
    body = result_body(await lookup.look_up(claims, address))
    assert body is not None  # a fresh answer is always typed
    return NearbySearchBody(status="success", search_id=body.search_id, data=body.occupants, result=body)


@get("/api/recent-searches", tags=["search"], **signed_in())
async def recent_searches(lookup: Lookup, claims: Claims) -> RecentSearchesBody:
    searches = await lookup.recent(claims)
    return RecentSearchesBody(status="success", searches=[search_body(s) for s in searches])


@get(
    "/api/search-results/{search_id:str}",
    tags=["search"],
    summary="One of the caller's stored searches",
    **signed_in(400, 404),
)
async def search_result(lookup: Lookup, claims: Claims, search_id: FromPath[str]) -> StoredSearchBody:
    search, previous_id, next_id = await lookup.stored(claims, search_id)
    return StoredSearchBody(status="success", search=search_body(search), previous_id=previous_id, next_id=next_id)


@get(
    "/api/search-results/{search_id:str}/export",
    tags=["search"],
    summary="One stored search as CSV",
    media_type=CSV_MEDIA_TYPE,
    **signed_in(400, 404),
)
async def export_search_result(lookup: Lookup, claims: Claims, search_id: FromPath[str]) -> Response[str]:
    search, _previous, _next = await lookup.stored(claims, search_id)
    body = to_csv(export_rows([search.result] if search.result is not None else []))
    filename = f"perilscope-search-{search.id[:8]}.csv"
    return Response(
        body, media_type=CSV_MEDIA_TYPE, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )


ROUTES = [nearby_search, recent_searches, search_result, export_search_result]

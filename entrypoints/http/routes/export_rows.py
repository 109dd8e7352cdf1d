"""The export viewer's rows over HTTP: a page at a time, filtered and sorted on the server
(owner-scoped; 404 without a batch's dataset; 400 naming what is allowed)."""

from __future__ import annotations

from typing import Annotated, Literal

from litestar import get
from litestar.params import FromPath, QueryParameter

from application.export_rows import MAX_LIMIT
from domain.export_rows import MAX_SEARCH, SORT_COLUMNS, RowFilter, RowOrder
from entrypoints.http.dependencies import Claims, ExportRows
from entrypoints.http.export_rows_schema import ExportRowsBody, export_rows_body
from entrypoints.http.openapi import signed_in

OFFSET = "Position of the first matching row to answer (0-based)"
LIMIT = f"Rows to answer, 1 to {MAX_LIMIT}"
MATCH_LEVEL = "Only rows located this way: one of the answer's filters.match_levels values"
COUNTY = "Only rows in this county (FIPS code), or 'not located': one of the answer's filters.counties values"
STATE = "Only rows in this state, or 'not located': one of the answer's filters.states values"
RATING = "Only rows of this NRI composite rating, or 'no rating': one of the answer's filters.ratings values"
LOW_CONFIDENCE = "Only rows whose county is uncertain (yes) or not (no)"
STATUS = "Only rows of this status: one of the answer's filters.statuses values"
SEARCH = "Only rows whose address holds this text (any case)"
SORT = f"Sort by this score column, unknown scores last: {', '.join(SORT_COLUMNS)}; empty: input order"
ORDER = "asc or desc, for `sort`"


@get(
    "/api/exports/{filename:str}/rows",
    tags=["batch"],
    summary="A finished batch's rows for the export viewer, a page at a time, filtered and sorted on the server",
    **signed_in(400, 404),
)
async def export_rows(  # noqa: PLR0913 - one parameter per filter
    export_rows: ExportRows,
    claims: Claims,
    filename: FromPath[str],
    offset: Annotated[int, QueryParameter(description=OFFSET)] = 0,
    limit: Annotated[int, QueryParameter(description=LIMIT)] = 100,
    match_level: Annotated[str | None, QueryParameter(max_length=40, description=MATCH_LEVEL)] = None,
    county: Annotated[str | None, QueryParameter(max_length=40, description=COUNTY)] = None,
    # `state` is Litestar's own keyword (the app's state): the parameter is named apart, asked for as `state`.
    county_state: Annotated[str | None, QueryParameter(name="state", max_length=40, description=STATE)] = None,
    rating: Annotated[str | None, QueryParameter(max_length=40, description=RATING)] = None,
    low_confidence: Annotated[str | None, QueryParameter(max_length=10, description=LOW_CONFIDENCE)] = None,
    status: Annotated[str | None, QueryParameter(max_length=40, description=STATUS)] = None,
    search: Annotated[str | None, QueryParameter(max_length=MAX_SEARCH, description=SEARCH)] = None,
    sort: Annotated[str | None, QueryParameter(max_length=40, description=SORT)] = None,
    order: Annotated[Literal["asc", "desc"], QueryParameter(description=ORDER)] = "desc",
) -> ExportRowsBody:
    wanted = RowFilter(
        match_level=match_level or None, county=county or None, rating=rating or None, state=county_state or None,
        low_confidence=low_confidence or None, status=status or None, search=(search or "").strip() or None,
    )
    ordered = RowOrder(sort or None, descending=order == "desc")
    return export_rows_body(await export_rows.page(claims, filename, wanted, offset, limit, ordered))


ROUTES = [export_rows]

"""The export viewer's rows over HTTP: a page at a time, filtered on the server (owner-scoped;
404 without a detailed export; 400 naming what is allowed)."""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.params import FromPath, QueryParameter

from application.export_rows import MAX_LIMIT
from domain.export_rows import RowFilter
from entrypoints.http.dependencies import Claims, ExportRows
from entrypoints.http.export_rows_schema import ExportRowsBody, export_rows_body
from entrypoints.http.openapi import signed_in

OFFSET = "Position of the first matching row to answer (0-based)"
LIMIT = f"Rows to answer, 1 to {MAX_LIMIT}"
MATCH_LEVEL = "Only rows located this way: one of the answer's filters.match_levels values"
COUNTY = "Only rows in this county (FIPS code), or 'not located': one of the answer's filters.counties values"
RATING = "Only rows of this NRI composite rating, or 'no rating': one of the answer's filters.ratings values"


@get(
    "/api/exports/{filename:str}/rows",
    tags=["batch"],
    summary="A finished batch's rows for the export viewer, a page at a time, filtered by match level, county and rating",
    **signed_in(400, 404),
)
async def export_rows(
    export_rows: ExportRows,
    claims: Claims,
    filename: FromPath[str],
    offset: Annotated[int, QueryParameter(description=OFFSET)] = 0,
    limit: Annotated[int, QueryParameter(description=LIMIT)] = 100,
    match_level: Annotated[str | None, QueryParameter(max_length=40, description=MATCH_LEVEL)] = None,
    county: Annotated[str | None, QueryParameter(max_length=40, description=COUNTY)] = None,
    rating: Annotated[str | None, QueryParameter(max_length=40, description=RATING)] = None,
) -> ExportRowsBody:
    wanted = RowFilter(match_level or None, county or None, rating or None)
    return export_rows_body(await export_rows.page(claims, filename, wanted, offset, limit))


ROUTES = [export_rows]

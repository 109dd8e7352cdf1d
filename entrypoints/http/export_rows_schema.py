"""The export viewer's page of rows (GET /api/exports/{name}/rows) as msgspec Structs, so /schema
documents it; made from application/export_rows.py's page by attribute. Unknown is null."""

from __future__ import annotations

import msgspec

from application.export_rows import ExportRow, RowsPage


class FilterChoiceBody(msgspec.Struct):
    value: str  # what the filter parameter takes
    label: str  # what a person reads, e.g. "King, WA" for county 53033
    rows: int  # rows of the export with it


class FilterChoicesBody(msgspec.Struct):
    match_levels: list[FilterChoiceBody]  # building, census_exact, place, zip_centroid, none; unknown in old files
    counties: list[FilterChoiceBody]  # county FIPS codes; "not located" for rows without a county
    ratings: list[FilterChoiceBody]  # NRI composite ratings; "no rating" for rows without one


class ExportRowsBody(msgspec.Struct):
    export: str
    offset: int
    limit: int
    total_rows: int  # rows of the whole export
    total_matching: int  # rows passing the filters; `rows` is the part from `offset`
    rows: list[ExportRow]
    filters: FilterChoicesBody  # what each filter can be set to (from the whole export)


def export_rows_body(page: RowsPage) -> ExportRowsBody:
    return ExportRowsBody(
        export=page.export_name, offset=page.offset, limit=page.limit, total_rows=page.total_rows,
        total_matching=page.total_matching, rows=page.rows,
        filters=msgspec.convert(page.choices, FilterChoicesBody, from_attributes=True),
    )

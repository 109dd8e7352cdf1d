"""The export viewer's page of rows (GET /api/exports/{name}/rows) as msgspec Structs, so /schema
documents it; made from application/export_rows.py's page by attribute. Unknown is null."""

from __future__ import annotations

import msgspec

from application.export_rows import RowsPage
from domain.export_rows import ViewerRow


class FilterChoiceBody(msgspec.Struct):
    value: str  # what the filter parameter takes
    label: str  # what a person reads, e.g. "King, WA" for county 53033
    rows: int  # rows of the export with it


class FilterChoicesBody(msgspec.Struct):
    match_levels: list[FilterChoiceBody]  # building, census_exact, place, zip_centroid, none; unknown in old files
    counties: list[FilterChoiceBody]  # county FIPS codes; "not located" for rows without a county
    ratings: list[FilterChoiceBody]  # NRI composite ratings; "no rating" for rows without one
    states: list[FilterChoiceBody]  # the counties' states; "not located" for rows without a county
    statuses: list[FilterChoiceBody]  # answered, answered at ZIP level, not located
    low_confidence: list[FilterChoiceBody]  # yes (the county is uncertain), no


class ExportRowsBody(msgspec.Struct):
    export: str
    offset: int
    limit: int
    total_rows: int  # rows of the whole export
    total_matching: int  # rows passing the filters; `rows` is the part from `offset`
    columns: list[str]  # the upload's own column names: each row's `values` in this order
    rows: list[ViewerRow]  # each row as the viewer shows it (domain/export_rows.py); null is unknown
    filters: FilterChoicesBody  # what each filter can be set to, with its rows (from the whole export)
    sort: str | None  # the score column the rows are sorted by (unknown scores last); null: input order
    order: str  # asc or desc


def export_rows_body(page: RowsPage) -> ExportRowsBody:
    return ExportRowsBody(
        export=page.export_name, offset=page.offset, limit=page.limit, total_rows=page.total_rows,
        total_matching=page.total_matching, columns=page.columns,
        rows=page.rows,
        filters=msgspec.convert(page.choices, FilterChoicesBody, from_attributes=True),
        sort=page.sort, order="desc" if page.descending else "asc",
    )

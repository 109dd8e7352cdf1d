"""The export viewer's page of rows (GET /api/exports/{name}/rows) as msgspec Structs, so /schema
documents it; made from application/export_rows.py's page by attribute. Unknown is null."""

from __future__ import annotations

import msgspec

from application.export_rows import RowsPage


class ExportRow(msgspec.Struct):
    """One row of the export as the viewer shows it; null is unknown."""

    index: int  # position in the export (0-based): the group page is /search-result/export:{name}:{index}
    row: int | None  # line of the row in the uploaded file
    address: str  # the address text with its building facts as 'Key: value' lines (SPEC §3)
    status: str | None  # answered, answered at ZIP level, not located
    message: str | None
    match_level: str | None
    low_confidence: bool | None
    county_fips: str | None
    county_name: str | None
    county_state: str | None
    total_score: float | None  # NRI composite score of the county
    rating: str | None  # its composite rating
    top_3: str | None
    occupant_count: int | None
    naics_codes: str | None
    values: list[str | None]  # the user's own columns as uploaded, in the page's `columns` order
    sort_score: float | None  # the value of the page's `sort` column (null unsorted, or unknown)


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
    rows: list[ExportRow]
    filters: FilterChoicesBody  # what each filter can be set to, with its rows (from the whole export)
    sort: str | None  # the score column the rows are sorted by (unknown scores last); null: input order
    order: str  # asc or desc


def export_rows_body(page: RowsPage) -> ExportRowsBody:
    return ExportRowsBody(
        export=page.export_name, offset=page.offset, limit=page.limit, total_rows=page.total_rows,
        total_matching=page.total_matching, columns=page.columns,
        rows=[msgspec.convert(row, ExportRow, from_attributes=True) for row in page.rows],
        filters=msgspec.convert(page.choices, FilterChoicesBody, from_attributes=True),
        sort=page.sort, order="desc" if page.descending else "asc",
    )

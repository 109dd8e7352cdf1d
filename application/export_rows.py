"""The export viewer's rows, a page at a time, filtered and sorted on the server, so the browser
never downloads a batch's whole export to scroll, filter or sort it.

A page is a query over the export's dataset (its manifest's chunk files; ExportQueries.rows_page,
adapters/results/viewer.py): filters by match level, county, state, composite rating, low
confidence, status and a text in the address; sorted by input order or by any score column,
unknown scores last; the count of each filter value over the whole export; the user's own
columns, their names once per page."""

from __future__ import annotations

from dataclasses import dataclass

from application.batch import NO_DETAIL, valid_export_name
from application.errors import InvalidInput, NotFound
from application.ports.accounts import AccessClaims
from application.ports.batch import BatchStore
from application.ports.files import FileStore
from application.kept_manifests import KeptManifests
from application.ports.results import ExportQueries
from domain.export_rows import FilterChoices, RowFilter, RowOrder, ViewerRow, filter_problems, order_problems

MAX_LIMIT = 500
KEPT_MANIFESTS = 64  # a manifest never changes once written: kept, a few KB each


@dataclass(frozen=True, slots=True)
class RowsQuery:
    """What ExportQueries.rows_page is asked: the matching rows from `offset`, at most `limit`."""

    wanted: RowFilter
    order: RowOrder
    offset: int
    limit: int


@dataclass(frozen=True, slots=True)
class RowsAnswer:
    """What ExportQueries.rows_page answers."""

    total_matching: int
    rows: list[ViewerRow]
    choices: FilterChoices  # of the whole export, whatever the filters


@dataclass(frozen=True, slots=True)
class RowsPage:
    export_name: str
    offset: int
    limit: int
    total_rows: int
    total_matching: int
    columns: list[str]  # the user's own columns, as uploaded: each row's `values` in this order
    rows: list[ViewerRow]
    choices: FilterChoices
    sort: str | None  # the score column the rows are sorted by; None: input order
    descending: bool


def _checked_page(offset: int, limit: int) -> None:
    if offset < 0:
        raise InvalidInput("offset must be 0 or more (the position of the first matching row to answer).")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be from 1 to {MAX_LIMIT} rows.")


class ExportRowsService:
    def __init__(self, store: BatchStore, files: FileStore, queries: ExportQueries) -> None:
        self._store = store
        self._queries = queries
        self._manifests = KeptManifests(files, KEPT_MANIFESTS)

    async def page(self, caller: AccessClaims, name: str, wanted: RowFilter, offset: int, limit: int,
                   order: RowOrder | None = None) -> RowsPage:
        order = order or RowOrder()
        _checked_page(offset, limit)
        if problems := order_problems(order):
            raise InvalidInput(" ".join(problems), code="unknown_sort")
        export = await self._store.export(caller.user_id, name) if valid_export_name(name) else None
        if export is None:
            raise NotFound("Export not found")
        if export.manifest_key is None:  # rows a client sent: a CSV, no dataset to query
            raise NotFound(NO_DETAIL)
        manifest = await self._manifests.get(export.manifest_key)
        answer = await self._queries.rows_page(manifest, RowsQuery(wanted, order, offset, limit))
        if problems := filter_problems(wanted, answer.choices):
            raise InvalidInput(" ".join(problems), code="unknown_filter_value")
        return RowsPage(
            export_name=export.name, offset=offset, limit=limit, total_rows=manifest.rows,
            total_matching=answer.total_matching, columns=list(manifest.user_columns), rows=answer.rows,
            choices=answer.choices, sort=order.column, descending=order.descending,
        )


"""A finished batch's portfolio summary (domain/portfolio.py), computed on the server from its
detailed export, so the browser never downloads and re-parses the whole file. The export's
portfolio tally was taken while it was assembled, for every peril and the value of the upload's
first columns, and is read at once; only a value column past those, or an export assembled before
(whose stored summary is the default one: no value column, composite peril), streams the stored
records once (application/portfolio_tally.py)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from application.batch import NO_DETAIL, valid_export_name
from application.batch_files import read_whole
from application.errors import InvalidInput, NotFound
from application.portfolio_tally import decode_stored, tally_pieces
from application.ports.accounts import AccessClaims
from application.ports.batch import BatchStore, ExportFile
from application.ports.files import FileStore
from application.ports.lookup import NaicsClassifier
from application.result_files import export_bytes
from domain.portfolio import COMPOSITE, PERIL_IDS, PortfolioSummary, PortfolioTally, sectors_seen, with_sector_names

UNKNOWN_PERIL = f"peril must be one of: {', '.join(PERIL_IDS)}."
# A finished export never changes, so its summaries are kept: switching back to a peril or a
# value column already shown answers at once. Summaries are small (counties x perils).
KEPT_SUMMARIES = 32


def not_a_column(name: str, columns: tuple[str, ...]) -> InvalidInput:
    listed = ", ".join(columns) if columns else "none besides the address"
    return InvalidInput(
        f"value_column {name!r} is not a column of this upload. Its own columns are: {listed}.",
        code="unknown_value_column",
    )


@dataclass(frozen=True, slots=True)
class Portfolio:
    export_name: str
    user_columns: tuple[str, ...]  # the upload's own columns: candidates for the value column
    summary: PortfolioSummary


class PortfolioService:
    def __init__(self, store: BatchStore, files: FileStore, naics: NaicsClassifier) -> None:
        self._store = store
        self._files = files
        self._naics = naics
        self._kept: OrderedDict[tuple[str, str | None, str], Portfolio] = OrderedDict()

    async def summary(
        self, caller: AccessClaims, name: str, value_column: str | None = None, peril: str = COMPOSITE
    ) -> Portfolio:
        if peril not in PERIL_IDS:
            raise InvalidInput(UNKNOWN_PERIL, code="unknown_peril")
        export = await self._store.export(caller.user_id, name) if valid_export_name(name) else None
        if export is None:
            raise NotFound("Export not found")
        value_column = value_column or None
        key = (export.id, value_column, peril)  # after the owner's export was found: scoped
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        if not export.legacy and export.detail_key is None:
            raise NotFound(NO_DETAIL)
        if value_column is not None and value_column not in export.detail_columns:
            raise not_a_column(value_column, export.detail_columns)
        summary = await self._summary(export, value_column, peril)
        summary = with_sector_names(summary, await self._naics.titles(sectors_seen(summary)))
        portfolio = self._kept[key] = Portfolio(export.name, export.detail_columns, summary)
        if len(self._kept) > KEPT_SUMMARIES:
            self._kept.popitem(last=False)
        return portfolio

    async def _summary(self, export: ExportFile, value_column: str | None, peril: str) -> PortfolioSummary:
        if export.summary_key is not None:
            stored = decode_stored(await read_whole(self._files, export.summary_key))
            if isinstance(stored, PortfolioTally):
                if stored.answers(value_column, peril):
                    return stored.answer(value_column, peril)
            elif value_column is None and peril == COMPOSITE:
                return stored
        records = await export_bytes(self._files, self._store, export, detailed=True)
        if records is None:
            raise NotFound(NO_DETAIL)
        return (await tally_pieces(records, value_column, peril)).summary()

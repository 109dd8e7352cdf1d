"""A finished batch's portfolio summary (domain/portfolio.py), computed on the server from its
dataset when it is asked for, for any peril and any of the upload's own columns as the value
(ExportQueries.portfolio: group-bys over the export's chunk files, adapters/results/portfolio.py),
so the browser never downloads and re-parses the whole export, and nothing is tallied or stored
for it while the batch runs."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from application.batch import NO_DETAIL, valid_export_name
from application.errors import InvalidInput, NotFound
from application.ports.accounts import AccessClaims
from application.ports.batch import BatchStore
from application.ports.files import FileStore
from application.ports.lookup import NaicsClassifier
from application.kept_manifests import KeptManifests
from application.ports.results import ExportQueries
from domain.portfolio import COMPOSITE, PERIL_IDS, PortfolioSummary, sectors_seen, value_columns, with_sector_names

UNKNOWN_PERIL = f"peril must be one of: {', '.join(PERIL_IDS)}."
# A finished export never changes, so its summaries are kept: switching back to a peril or a
# value column already shown answers at once. Summaries are small (counties x perils).
KEPT_SUMMARIES = 32
KEPT_MANIFESTS = 32


def not_a_column(name: str, columns: tuple[str, ...]) -> InvalidInput:
    listed = ", ".join(columns) if columns else "none besides the address"
    return InvalidInput(
        f"value_column {name!r} is not one of this upload's own columns. Its own columns are: {listed}.",
        code="unknown_value_column",
    )


@dataclass(frozen=True, slots=True)
class PortfolioQuery:
    """What ExportQueries.portfolio is asked: the value column (one of the manifest's user
    columns, or None) and the peril that ranks the riskiest and splits the sectors by rating."""

    value_column: str | None = None
    peril: str = COMPOSITE


@dataclass(frozen=True, slots=True)
class Portfolio:
    export_name: str
    user_columns: tuple[str, ...]  # the upload's own columns: candidates for the value column
    summary: PortfolioSummary


class PortfolioService:
    def __init__(self, store: BatchStore, files: FileStore, naics: NaicsClassifier, queries: ExportQueries) -> None:
        self._store = store
        self._naics = naics
        self._queries = queries
        self._kept: OrderedDict[tuple[str, str | None, str], Portfolio] = OrderedDict()
        self._manifests = KeptManifests(files, KEPT_MANIFESTS)

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
        if export.manifest_key is None:  # rows a client sent (a CSV), or an export not yet converted
            raise NotFound(NO_DETAIL)
        manifest = await self._manifests.get(export.manifest_key)
        columns = value_columns(manifest.user_columns)
        if value_column is not None and value_column not in columns:
            raise not_a_column(value_column, columns)
        summary = await self._queries.portfolio(manifest, PortfolioQuery(value_column, peril))
        summary = with_sector_names(summary, await self._naics.titles(sectors_seen(summary)))
        portfolio = self._kept[key] = Portfolio(export.name, columns, summary)
        if len(self._kept) > KEPT_SUMMARIES:
            self._kept.popitem(last=False)
        return portfolio


"""A finished batch's portfolio summary (domain/portfolio.py), computed on the server from its
detailed export, so the browser never downloads and re-parses the whole file."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import msgspec

from application.batch import NO_DETAIL, valid_export_name
from application.errors import InvalidInput, NotFound
from application.ports.accounts import AccessClaims
from application.ports.batch import BatchStore
from application.ports.lookup import NaicsClassifier
from domain.portfolio import COMPOSITE, PERIL_IDS, RECORD_FIELDS, PortfolioSummary, PortfolioTally

UNKNOWN_PERIL = f"peril must be one of: {', '.join(PERIL_IDS)}."
# Summing is pure CPU (about a second per 100,000 rows would hold every other request); small
# exports are summed in place, where a thread hop would cost more than the work.
IN_PLACE_BYTES = 256 * 1024
# A finished export never changes, so its summaries are kept: switching back to a peril or a
# value column already shown answers at once. Summaries are small (counties x perils).
KEPT_SUMMARIES = 32


def not_a_column(name: str, columns: tuple[str, ...]) -> InvalidInput:
    listed = ", ".join(columns) if columns else "none besides the address"
    return InvalidInput(
        f"value_column {name!r} is not a column of this upload. Its own columns are: {listed}.",
        code="unknown_value_column",
    )


# Only the fields the summary reads: msgspec skips the rest (receipt, location...) without
# building them, about 4 times faster than decoding whole records.
SummaryFields = msgspec.defstruct("SummaryFields", [(name, Any, None) for name in RECORD_FIELDS])


def tally_lines(detail: str, value_column: str | None, peril: str) -> PortfolioTally:
    """One pass over the JSON Lines text: one record decoded at a time."""
    tally = PortfolioTally(value_column, peril)
    decode = msgspec.json.Decoder(SummaryFields).decode
    as_dict = msgspec.structs.asdict
    index = 0
    for line in detail.splitlines():
        if line.strip():
            tally.add(index, as_dict(decode(line)))
            index += 1
    return tally


@dataclass(frozen=True, slots=True)
class Portfolio:
    export_name: str
    user_columns: tuple[str, ...]  # the upload's own columns: candidates for the value column
    summary: PortfolioSummary


class PortfolioService:
    def __init__(self, store: BatchStore, naics: NaicsClassifier) -> None:
        self._store = store
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
        detail = await self._store.export_detail(caller.user_id, export.name)
        if detail is None:
            raise NotFound(NO_DETAIL)
        if value_column is not None and value_column not in export.detail_columns:
            raise not_a_column(value_column, export.detail_columns)
        if len(detail) <= IN_PLACE_BYTES:
            tally = tally_lines(detail, value_column, peril)
        else:
            tally = await asyncio.to_thread(tally_lines, detail, value_column, peril)
        summary = tally.summary(await self._naics.titles(tally.sectors_seen))
        portfolio = self._kept[key] = Portfolio(export.name, export.detail_columns, summary)
        if len(self._kept) > KEPT_SUMMARIES:
            self._kept.popitem(last=False)
        return portfolio

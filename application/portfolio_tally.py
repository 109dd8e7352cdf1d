"""The portfolio tally (domain/portfolio.py) fed from JSON Lines records as they stream by: while
a batch's export is assembled (the default summary, stored with it) and when another peril or a
value column is asked for (application/portfolio.py). One record is decoded at a time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import msgspec

from application.record_blocks import decoded_records, feed_records, fields_struct
from domain.portfolio import COMPOSITE, RECORD_FIELDS, PortfolioSummary, PortfolioTally

# Only the fields the summary reads (not the receipt, location...).
SummaryFields = fields_struct("SummaryFields", RECORD_FIELDS)


class RecordTally:
    """A PortfolioTally over blocks of whole JSON Lines records, numbered across the blocks."""

    def __init__(self, value_column: str | None = None, peril: str = COMPOSITE) -> None:
        self.tally = PortfolioTally(value_column, peril)
        self._index = 0
        self._decode = msgspec.json.Decoder(SummaryFields).decode

    def add_block(self, block: bytes) -> None:
        for record in decoded_records(block, self._decode):
            self.add_record(record)

    def add_record(self, record: dict[str, Any]) -> None:
        """A decoded record (a dict with at least RECORD_FIELDS; others are ignored)."""
        self.tally.add(self._index, record)
        self._index += 1


async def tally_pieces(pieces: AsyncIterator[bytes], value_column: str | None, peril: str) -> PortfolioTally:
    """One pass over a stored detail file, read in pieces."""
    records = RecordTally(value_column, peril)
    await feed_records(pieces, records.add_block)
    return records.tally


def tally_lines(detail: str, value_column: str | None, peril: str) -> PortfolioTally:
    """One pass over JSON Lines text held in memory (small exports, tests)."""
    records = RecordTally(value_column, peril)
    records.add_block(detail.encode())
    return records.tally


def encode_summary(summary: PortfolioSummary) -> bytes:
    return msgspec.json.encode(summary)


def decode_summary(content: bytes) -> PortfolioSummary:
    return msgspec.json.decode(content, type=PortfolioSummary)

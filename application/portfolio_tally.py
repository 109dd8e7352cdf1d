"""The portfolio tally (domain/portfolio.py) fed from JSON Lines records as they stream by: while
a batch's export is assembled (a tally of every variant, stored with it) and, for exports stored
before that or a value column past the ones followed, when a summary is asked for
(application/portfolio.py). One record is decoded at a time.

The stored summary file is either a PortfolioSummary as JSON (exports assembled before: the
default summary only) or the tally's state as MessagePack (any peril, the first columns' values)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import msgspec

from application.record_blocks import decoded_records, feed_records, fields_struct
from domain.portfolio import (
    COMPOSITE,
    RECORD_FIELDS,
    PortfolioSummary,
    PortfolioTally,
    TallyState,
    coded_profiles,
)

# Only the fields the summary reads (not the receipt, location...).
SummaryFields = fields_struct("SummaryFields", RECORD_FIELDS)


class RecordTally:
    """A PortfolioTally over blocks of whole JSON Lines records, numbered across the blocks."""

    def __init__(self, value_column: str | None = None, peril: str = COMPOSITE,
                 tally: PortfolioTally | None = None, first_index: int = 0) -> None:
        self.tally = tally or PortfolioTally(value_column, peril)
        self._index = first_index
        self._decode = msgspec.json.Decoder(SummaryFields).decode

    @classmethod
    def every_variant(cls, first_index: int = 0) -> RecordTally:
        """The tally an export's assembly stores: any peril, the first columns' values."""
        return cls(tally=PortfolioTally.every_variant(), first_index=first_index)

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
    """The format of exports assembled before the tally's state was stored (tests, benches)."""
    return msgspec.json.encode(summary)


_state_encoder = msgspec.msgpack.Encoder()
_state_decoder = msgspec.msgpack.Decoder(TallyState)


def encode_tally(tally: PortfolioTally) -> bytes:
    """The tally's state, to store, or to hand from a worker to the one merging."""
    return _state_encoder.encode(tally.state())


def decode_tally(content: bytes) -> PortfolioTally:
    return PortfolioTally.from_state(decode_tally_state(content))


def decode_tally_state(content: bytes) -> TallyState:
    """A tally's state only, to merge into another (PortfolioTally.merge): a chunk's part at an
    export's assembly, not set up to be added to, which took half of its decoding time."""
    try:
        return _state_decoder.decode(content)
    except msgspec.ValidationError:
        stored = msgspec.msgpack.decode(content)
        if isinstance(stored, dict) and "ratings" not in stored:
            # Stored before rating codes (an export assembled before, a chunk's part of a job that
            # ran across the upgrade): each profile is its list of ratings.
            profiles = msgspec.convert(stored.get("profiles", []), list[list[str]])
            stored["ratings"], stored["profiles"] = coded_profiles(profiles)
        return msgspec.convert(stored, TallyState)  # raises what the decoder did, or for a wrong old state


def decode_stored(content: bytes) -> PortfolioTally | PortfolioSummary:
    """A stored summary file: a tally (answers any variant it follows) or, stored before, the
    default summary as JSON (a MessagePack map never starts with '{')."""
    if content[:1] == b"{":
        return msgspec.json.decode(content, type=PortfolioSummary)
    return decode_tally(content)


def decode_summary(content: bytes) -> PortfolioSummary:
    """The default summary (composite, no value column) of a stored summary file."""
    stored = decode_stored(content)
    return stored.answer(None, COMPOSITE) if isinstance(stored, PortfolioTally) else stored

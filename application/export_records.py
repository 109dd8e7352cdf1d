"""A chunk's detailed records (application/result_files.py), or an older chunk's when the export
is assembled, each decoded once for both parts made of them: the portfolio tally of every
variant and the export viewer's index of rows, numbered from the chunk's first row."""

from __future__ import annotations

import msgspec

from application.portfolio_tally import RecordTally
from application.record_blocks import decoded_records, fields_struct
from application.rows_index import RowsIndexBuilder
from domain.export_rows import VIEWER_FIELDS
from domain.portfolio import RECORD_FIELDS

# The fields either reads, once each.
ExportRecordFields = fields_struct("ExportRecordFields", (*RECORD_FIELDS, *VIEWER_FIELDS))


class ExportRecords:
    """Blocks of records given to `add_block` (synchronous pure CPU: the caller moves large blocks
    off the event loop, record_blocks.add_off_loop)."""

    def __init__(self, first_index: int = 0) -> None:
        # A chunk's records: numbered from the chunk's first row, as in the export.
        self.summary = RecordTally.every_variant(first_index)
        self.rows_index = RowsIndexBuilder(first_index)
        self._decode = msgspec.json.Decoder(ExportRecordFields).decode

    def add_block(self, block: bytes | bytearray) -> None:
        for record in decoded_records(block, self._decode):
            self.summary.add_record(record)
            self.rows_index.add_record(record)

"""A chunk's rows as they are answered, gathered into its result (application/ports/chunks.py)."""

from __future__ import annotations

import msgspec

from application.ports.chunks import ChunkResult
from domain.batch_input import AddressRow
from domain.detailed_export import input_record_json, user_column_names


class AnsweredRows:
    """A chunk's rows as they are answered: their SPEC export lines, and their detailed JSON Lines
    records appended to one buffer. A record is the row's own part, then its answer's (shared by
    repeats), joined as JSON text so a repeated answer is encoded once; kept as UTF-8 bytes (as a
    str, a record with one non-ASCII letter, a county's 'ñ', would take two or four bytes a
    character), and in one buffer, not a list of records and then their join: a chunk's records
    are tens of megabytes, held once."""

    def __init__(self) -> None:
        self.count = 0
        self._lines: list[str] = []
        self._records = bytearray()
        self._user_columns: tuple[str, ...] = ()

    def add(self, row: AddressRow, answer: tuple[str, bytes]) -> None:
        if not self.count:
            # As the records' `input` keys have them: the export finds each value by its column's name.
            self._user_columns = tuple(user_column_names(name for name, _ in row.extra))
        self.count += 1
        self._lines.append(answer[0])
        own = memoryview(input_record_json(row.line, row.extra, msgspec.json.encode))
        self._records += own[:-1]
        self._records += b","
        self._records += memoryview(answer[1])[1:]
        self._records += b"\n"

    def result(self, rows_failed: int = 0, error: str | None = None) -> ChunkResult:
        return ChunkResult("".join(self._lines), self._records, self._user_columns,
                           rows_failed=rows_failed, error=error)

"""A batch job in chunks: which rows each chunk holds, the chunk's own slice of the CSV, and the
pieces put back together in input order.

A chunk is a task that any worker may run, so it carries its rows as CSV text of its own (the
header and its lines, as uploaded): a worker parses a few thousand rows, never the whole file."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

from domain.batch_input import UNCAPPED, AddressRow, BatchCsvReader, CsvRow, iter_batch_csv

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ChunkPlan:
    index: int
    first_row: int  # 0-based position of the chunk's first row among the file's rows
    row_count: int


@dataclass(frozen=True, slots=True)
class ChunkInput:
    plan: ChunkPlan
    text: str  # the header line, then the chunk's lines exactly as uploaded
    line_offset: int  # file line of the chunk's first line minus 2, so row numbers stay the file's


def plan_chunks(row_count: int, chunk_rows: int) -> list[ChunkPlan]:
    """Consecutive chunks of at most `chunk_rows` rows covering rows 0..row_count-1."""
    if chunk_rows < 1:
        raise ValueError("chunk_rows must be at least 1")
    return [
        ChunkPlan(index, first, min(chunk_rows, row_count - first))
        for index, first in enumerate(range(0, row_count, chunk_rows))
    ]


class ChunkSplitter:
    """Rows as they are read (domain/batch_input.py's CsvRow), gathered into chunks: `add` gives
    back a chunk when one is full, `end` the last one. Only one chunk's text is held at a time."""

    def __init__(self, header_text: str, chunk_rows: int) -> None:
        if chunk_rows < 1:
            raise ValueError("chunk_rows must be at least 1")
        self._header = header_text if header_text.endswith(("\n", "\r")) else header_text + "\r\n"
        self._chunk_rows = chunk_rows
        self._texts: list[str] = []
        self._first_line = 0
        self._index = self._first_row = 0

    def add(self, row: CsvRow) -> ChunkInput | None:
        if not self._texts:
            self._first_line = row.first_line
        self._texts.append(row.text)
        return self._take() if len(self._texts) == self._chunk_rows else None

    def end(self) -> ChunkInput | None:
        return self._take() if self._texts else None

    def _take(self) -> ChunkInput:
        count = len(self._texts)
        chunk = ChunkInput(ChunkPlan(self._index, self._first_row, count), self._header + "".join(self._texts),
                           line_offset=self._first_line - 2)
        self._texts = []
        self._index, self._first_row = self._index + 1, self._first_row + count
        return chunk


def split_csv(filename: str, text: str, chunk_rows: int) -> Iterator[ChunkInput]:
    """A whole file's rows, chunk by chunk, each as a CSV of its own (the header, then the chunk's
    lines as uploaded), so a chunk's rows are exactly the rows `iter_batch_csv` reads from the whole
    file, and `rows_of` gives them their file line numbers."""
    reader = BatchCsvReader(filename, UNCAPPED)
    splitter: ChunkSplitter | None = None
    for piece in (text.encode(), None):
        _, rows = reader.feed(piece) if piece is not None else reader.finish()
        for row in rows:
            splitter = splitter or ChunkSplitter(reader.header_text, chunk_rows)
            if chunk := splitter.add(row):
                yield chunk
    if splitter and (chunk := splitter.end()):
        yield chunk


def rows_of(chunk_text: str, line_offset: int) -> Iterator[AddressRow]:
    """A chunk's rows, numbered by their lines in the uploaded file."""
    for row in iter_batch_csv("chunk.csv", chunk_text.encode(), UNCAPPED):
        yield replace(row, line=row.line + line_offset)


def next_row_after(plan: ChunkPlan, expected_row: int) -> int:
    """Where the chunk after `plan` must start, once `plan` is checked to start at `expected_row`:
    a missing or repeated chunk is a bug, said at once rather than written into an export."""
    if plan.first_row != expected_row:
        raise ValueError(f"chunk {plan.index} starts at row {plan.first_row}, expected row {expected_row}")
    return expected_row + plan.row_count


def in_input_order(parts: Iterable[tuple[ChunkPlan, T]]) -> Iterator[T]:
    """Chunk results, checked to follow one another row for row (see next_row_after)."""
    expected = 0
    for plan, part in parts:
        expected = next_row_after(plan, expected)
        yield part


def header_and_body(chunk_text: str) -> tuple[str, str]:
    """A chunk's CSV as its header line and its rows' lines as uploaded."""
    lines = io.StringIO(chunk_text, newline="")
    header = lines.readline()
    return header, lines.read()

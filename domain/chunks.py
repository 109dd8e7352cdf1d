"""A batch job in chunks: which rows each chunk holds, the chunk's own slice of the CSV, and the
pieces put back together in input order.

A chunk is a task that any worker may run, so it carries its rows as CSV text of its own (the
header and its lines, as uploaded): a worker parses a few thousand rows, never the whole file."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

from domain.batch_input import AddressRow, iter_batch_csv

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


def split_csv(filename: str, text: str, chunk_rows: int) -> Iterator[ChunkInput]:
    """The upload's rows, chunk by chunk, each as a CSV of its own. Lines are counted the way the
    csv module counts them (a quoted value may span lines), so a chunk's rows are exactly the rows
    `iter_batch_csv` reads from the whole file, and `rows_of` gives them their file line numbers."""
    lines = io.StringIO(text, newline="")
    header = lines.readline()
    if not header.endswith(("\n", "\r")):
        header += "\r\n"
    consumed = 1  # lines read from `lines` so far (the header)
    index = first_row = 0
    in_chunk = 0
    last_line = 1  # the line on which the chunk's latest row ended
    for row in iter_batch_csv(filename, text.encode()):
        in_chunk += 1
        last_line = row.line
        if in_chunk == chunk_rows:
            yield _chunk(index, first_row, in_chunk, header, lines, consumed, last_line)
            consumed = last_line
            index, first_row, in_chunk = index + 1, first_row + in_chunk, 0
    if in_chunk:
        yield _chunk(index, first_row, in_chunk, header, lines, consumed, last_line)


def _chunk(index: int, first_row: int, count: int, header: str, lines: io.StringIO, consumed: int,
           last_line: int) -> ChunkInput:
    body = "".join(lines.readline() for _ in range(last_line - consumed))
    return ChunkInput(ChunkPlan(index, first_row, count), header + body, line_offset=consumed - 1)


def rows_of(chunk_text: str, line_offset: int) -> Iterator[AddressRow]:
    """A chunk's rows, numbered by their lines in the uploaded file."""
    for row in iter_batch_csv("chunk.csv", chunk_text.encode()):
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


def joined_csv(chunk_texts: Iterable[str]) -> str:
    """Several chunks' CSVs as one file: the header once, then every chunk's lines as uploaded
    (a re-run of failed rows reads exactly what the user sent)."""
    parts: list[str] = []
    for text in chunk_texts:
        lines = io.StringIO(text, newline="")
        header = lines.readline()
        if not parts:
            parts.append(header)
        parts.append(lines.read())
    return "".join(parts)

"""The detailed export (JSON Lines records, domain/detailed_export.py) written as CSV, XLSX or
JSON Lines, streamed: records are converted a block at a time as the stored file is read, so memory
stays at one block whatever the export's size. XLSX goes through xlsxwriter in constant-memory mode
into a temporary file (rows are flushed as they are written), in worker threads, and the finished
file is then read out in pieces; a second sheet describes every column and source. Text cells are
always written as strings, never formulas."""

from __future__ import annotations

import asyncio
import csv
import io
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import msgspec

from application.ports.batch import WrittenFile
from application.ports.files import whole_lines
from domain.detailed_export import ANSWER_COLUMNS, detail_columns, flat_values, user_column_names

FORMATS = {
    "csv": ("text/csv", "csv"),  # UTF-8: the HTTP layer adds the charset, as it does to any text/ type
    "xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
    "jsonl": ("application/x-ndjson", "jsonl"),
}
SOURCES = (
    "FEMA National Risk Index (county scores; this product uses FEMA's NRI but is not endorsed by FEMA)",
    "HUD-USPS ZIP-County crosswalk; Geocorr 2022 and Census places (county choice)",
    "City business registries (occupants), City of Seattle building benchmarking (buildings)",
)
READ_PIECE = 1024 * 1024  # the finished XLSX is read out in pieces of this size


def _records(block: bytes) -> Iterator[dict]:
    for line in block.splitlines():
        if line.strip():
            yield msgspec.json.decode(line)


def _cell(value: object) -> object:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else value


def _csv_rows(block: bytes, user_columns: list[str]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for record in _records(block):
        writer.writerow([_cell(v) for v in flat_values(record, user_columns)])
    return buffer.getvalue().encode()


async def as_csv(records: AsyncIterator[bytes], user_columns: list[str]) -> AsyncIterator[bytes]:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerow(detail_columns(user_columns))
    yield buffer.getvalue().encode("utf-8-sig")  # the BOM makes Excel read UTF-8
    async for block in whole_lines(records):
        yield await asyncio.to_thread(_csv_rows, block, user_columns)


class _Workbook:
    """An XLSX of detailed records, filled a block at a time (each call in a worker thread)."""

    def __init__(self, path: Path, user_columns: list[str]) -> None:
        import xlsxwriter  # here, not at the top: only an XLSX export needs it (server memory)

        self._user_columns = user_columns
        self._book = xlsxwriter.Workbook(
            str(path),
            {"constant_memory": True, "tmpdir": str(path.parent), "strings_to_formulas": False,
             "strings_to_urls": False},
        )
        self._rows = self._book.add_worksheet("Rows")
        self._header = self._book.add_format({"bold": True})
        for column, name in enumerate(detail_columns(user_columns)):
            self._rows.write_string(0, column, name, self._header)
        self._next_row = 1

    def add(self, block: bytes) -> None:
        for record in _records(block):
            for column, value in enumerate(flat_values(record, self._user_columns)):
                value = _cell(value)
                if isinstance(value, int | float):
                    self._rows.write_number(self._next_row, column, value)
                elif value != "":
                    self._rows.write_string(self._next_row, column, str(value))
            self._next_row += 1

    def close(self) -> None:
        about = self._book.add_worksheet("Columns")
        about.write_row(0, 0, ["Column", "What it holds"], self._header)
        for index, name in enumerate(user_column_names(self._user_columns), start=1):
            about.write_string(index, 0, name)
            about.write_string(index, 1, "Your own column, as uploaded")
        for index, (name, meaning) in enumerate(ANSWER_COLUMNS, start=len(self._user_columns) + 1):
            about.write_string(index, 0, name)
            about.write_string(index, 1, meaning)
        start = len(self._user_columns) + len(ANSWER_COLUMNS) + 2
        about.write_string(start, 0, "Sources", self._header)
        for offset, source in enumerate(SOURCES, start=1):
            about.write_string(start + offset, 0, source)
        self._book.close()


async def as_xlsx(records: AsyncIterator[bytes], user_columns: list[str]) -> AsyncIterator[bytes]:
    folder = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="perilscope-xlsx-"))
    try:
        path = folder / "export.xlsx"
        book = await asyncio.to_thread(_Workbook, path, user_columns)
        async for block in whole_lines(records):
            await asyncio.to_thread(book.add, block)
        await asyncio.to_thread(book.close)
        handle = await asyncio.to_thread(path.open, "rb")
        try:
            while piece := await asyncio.to_thread(handle.read, READ_PIECE):
                yield piece
        finally:
            await asyncio.to_thread(handle.close)
    finally:
        await asyncio.to_thread(shutil.rmtree, folder, True)


class DetailedExportFiles:
    """`DetailedExportWriter`: CSV, XLSX and JSON Lines."""

    formats = tuple(FORMATS)

    def write(self, records: AsyncIterator[bytes], user_columns: list[str], fmt: str, stem: str) -> WrittenFile:
        media_type, extension = FORMATS[fmt]
        if fmt == "xlsx":
            chunks = as_xlsx(records, user_columns)
        elif fmt == "jsonl":
            chunks = records
        else:
            chunks = as_csv(records, user_columns)
        return WrittenFile(f"{stem}.{extension}", media_type, chunks)

"""The detailed export (JSON Lines records, domain/detailed_export.py) written as CSV, XLSX or
JSON Lines. XLSX goes through xlsxwriter in constant-memory mode (rows are flushed to a
temporary file as they are written), with a second sheet describing every column and source;
text cells are always written as strings, never formulas."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from collections.abc import Iterator

import xlsxwriter

from application.ports.batch import WrittenFile
from domain.detailed_export import ANSWER_COLUMNS, detail_columns, flat_values

FORMATS = {
    "csv": ("text/csv; charset=utf-8", "csv"),
    "xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
    "jsonl": ("application/x-ndjson", "jsonl"),
}
SOURCES = (
    "FEMA National Risk Index (county scores; this product uses FEMA's NRI but is not endorsed by FEMA)",
    "HUD-USPS ZIP-County crosswalk; Geocorr 2022 and Census places (county choice)",
    "City business registries (occupants), City of Seattle building benchmarking (buildings)",
)


def _records(detail: str) -> Iterator[dict]:
    for line in detail.splitlines():
        if line.strip():
            yield json.loads(line)


def _cell(value: object) -> object:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else value


def as_csv(detail: str, user_columns: list[str]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(detail_columns(user_columns))
    for record in _records(detail):
        writer.writerow([_cell(v) for v in flat_values(record, user_columns)])
    return buffer.getvalue().encode("utf-8-sig")  # the BOM makes Excel read UTF-8


def as_jsonl(detail: str) -> bytes:
    return detail.encode()


def as_xlsx(detail: str, user_columns: list[str]) -> bytes:
    with tempfile.TemporaryDirectory(prefix="perilscope-xlsx-") as tmp:
        path = f"{tmp}/export.xlsx"
        book = xlsxwriter.Workbook(
            path, {"constant_memory": True, "tmpdir": tmp, "strings_to_formulas": False, "strings_to_urls": False}
        )
        rows = book.add_worksheet("Rows")
        header = book.add_format({"bold": True})
        for column, name in enumerate(detail_columns(user_columns)):
            rows.write_string(0, column, name, header)
        for index, record in enumerate(_records(detail), start=1):
            for column, value in enumerate(flat_values(record, user_columns)):
                value = _cell(value)
                if isinstance(value, int | float):
                    rows.write_number(index, column, value)
                elif value != "":
                    rows.write_string(index, column, str(value))
        about = book.add_worksheet("Columns")
        about.write_row(0, 0, ["Column", "What it holds"], header)
        for index, name in enumerate(user_columns, start=1):
            about.write_string(index, 0, name)
            about.write_string(index, 1, "Your own column, as uploaded")
        for index, (name, meaning) in enumerate(ANSWER_COLUMNS, start=len(user_columns) + 1):
            about.write_string(index, 0, name)
            about.write_string(index, 1, meaning)
        start = len(user_columns) + len(ANSWER_COLUMNS) + 2
        about.write_string(start, 0, "Sources", header)
        for offset, source in enumerate(SOURCES, start=1):
            about.write_string(start + offset, 0, source)
        book.close()
        with open(path, "rb") as handle:
            return handle.read()


class DetailedExportFiles:
    """`DetailedExportWriter`: CSV, XLSX and JSON Lines."""

    formats = tuple(FORMATS)

    def write(self, detail: str, user_columns: list[str], fmt: str, stem: str) -> WrittenFile:
        media_type, extension = FORMATS[fmt]
        if fmt == "xlsx":
            content = as_xlsx(detail, user_columns)
        elif fmt == "jsonl":
            content = as_jsonl(detail)
        else:
            content = as_csv(detail, user_columns)
        return WrittenFile(f"{stem}.{extension}", media_type, content)

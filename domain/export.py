"""Export CSV of SPEC §3: rows grouped by address, safe against spreadsheet formula injection,
and the grouping read back from rows (the export viewer's address groups)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any

EXPORT_COLUMNS = (
    "address", "name", "vicinity", "types", "lat", "lng", "business_status",
    "Total_Score", "Top3_Scores_Combined", "naics_code",
)
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """Text that a spreadsheet would run as a formula gets a leading quote; numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def result_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One address group: the first row carries the address text, occupant rows follow with it empty."""
    occupants = result.get("occupants") or [{}]
    rows = []
    for index, occupant in enumerate(occupants):
        rows.append(
            {
                "address": result.get("address", "") if index == 0 else "",
                "name": occupant.get("name", "NA"),
                "vicinity": occupant.get("vicinity", "NA"),
                "types": ",".join(occupant.get("types") or []) or "NA",
                "lat": occupant.get("lat") if occupant.get("lat") is not None else 0,
                "lng": occupant.get("lng") if occupant.get("lng") is not None else 0,
                "business_status": occupant.get("business_status", "NA"),
                "Total_Score": result.get("Total_Score") if result.get("Total_Score") is not None else 0,
                "Top3_Scores_Combined": result.get("Top3_Scores_Combined") or "",
                "naics_code": occupant.get("naics_code") or "N/A",
            }
        )
    return rows


def to_csv(rows: Iterable[dict[str, Any]]) -> str:
    return export_header() + rows_csv(rows)


def export_header() -> str:
    buffer, writer = _csv_writer()
    writer.writeheader()
    return buffer.getvalue()


def rows_csv(rows: Iterable[dict[str, Any]]) -> str:
    """The lines of these rows without the header: a batch keeps each answer as its text (one
    string, which the garbage collector never walks) until it writes the whole export."""
    buffer, writer = _csv_writer()
    for row in rows:
        writer.writerow({column: safe_cell(row.get(column)) for column in EXPORT_COLUMNS})
    return buffer.getvalue()


def _csv_writer() -> tuple[io.StringIO, csv.DictWriter]:
    buffer = io.StringIO()
    # RFC 4180 line ends: with "\r\n" as terminator, a lone "\r" inside a cell gets quoted too.
    return buffer, csv.DictWriter(buffer, fieldnames=EXPORT_COLUMNS, lineterminator="\r\n")


def export_rows(results: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every result's address group in turn (a batch export)."""
    for result in results:
        yield from result_rows(result)


def group_rows(rows: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """SPEC §3 address groups: a row with an address starts a group, rows without one join it.
    Returns (groups, rows dropped because they came before any group)."""
    groups: list[dict[str, Any]] = []
    dropped = 0
    for row in rows:
        if row.get("address"):
            groups.append({"address": row["address"], "rows": [row]})
        elif groups:
            groups[-1]["rows"].append(row)
        else:
            dropped += 1
    return groups, dropped

"""Export CSV of SPEC §3: rows grouped by address, safe against spreadsheet formula injection,
and the grouping read back from rows (the export viewer's address groups)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any

from domain.lookup_result import LookupResult, address_text
from domain.occupancy import UNKNOWN

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


def result_rows(result: LookupResult, top3_combined: str | None = None) -> list[dict[str, Any]]:
    """One address group: the first row carries the address text, occupant rows follow with it
    empty. Unknown stays empty, never 0: a 0 score reads as 'no risk' and 0,0 as a place. An
    occupant without its own coordinates gets the answer's point (building, geocoder or ZIP
    centre), whose kind the detailed export names. `top3_combined`: the scores' top three, when
    the caller has it already (a batch, per county)."""
    point = result.location.point
    scores = result.perils
    if top3_combined is None:
        top3_combined = scores.top3_combined() if scores else ""
    rows = []
    for index, occupant in enumerate(result.occupants or (None,)):
        lat = occupant.lat if occupant and occupant.lat is not None else (point.lat if point else None)
        lng = occupant.lng if occupant and occupant.lng is not None else (point.lng if point else None)
        rows.append(
            {
                "address": address_text(result) if index == 0 else "",
                "name": (occupant.name if occupant else None) or UNKNOWN,
                "vicinity": (occupant.vicinity if occupant else None) or UNKNOWN,
                "types": ",".join(occupant.types) if occupant and occupant.types else UNKNOWN,
                "lat": lat,
                "lng": lng,
                "business_status": (occupant.business_status if occupant else None) or UNKNOWN,
                "Total_Score": scores.total if scores else None,
                "Top3_Scores_Combined": top3_combined,
                "naics_code": (occupant.naics_code if occupant else None) or "N/A",
            }
        )
    return rows


def client_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """An address group from an answer a client sent (SPEC §7's POST /api/export) or one stored
    before answers were typed: as given, with SPEC's defaults for missing text and nothing
    made up for missing numbers."""
    occupants = result.get("occupants") or [{}]
    return [
        {
            "address": result.get("address", "") if index == 0 else "",
            "name": occupant.get("name", UNKNOWN),
            "vicinity": occupant.get("vicinity", UNKNOWN),
            "types": ",".join(occupant.get("types") or []) or UNKNOWN,
            "lat": occupant.get("lat"),
            "lng": occupant.get("lng"),
            "business_status": occupant.get("business_status", UNKNOWN),
            "Total_Score": result.get("Total_Score"),
            "Top3_Scores_Combined": result.get("Top3_Scores_Combined") or "",
            "naics_code": occupant.get("naics_code") or "N/A",
        }
        for index, occupant in enumerate(occupants)
    ]


def to_csv(rows: Iterable[dict[str, Any]]) -> str:
    return export_header() + rows_csv(rows)


def export_header() -> str:
    buffer, writer = _csv_writer()
    writer.writerow(EXPORT_COLUMNS)
    return buffer.getvalue()


def rows_csv(rows: Iterable[dict[str, Any]]) -> str:
    """The lines of these rows without the header: a batch keeps each answer as its text (one
    string, which the garbage collector never walks) until it writes the whole export."""
    buffer, writer = _csv_writer()
    # Lists in column order, not csv.DictWriter, which checks each row's keys for strays: a
    # batch writes a row per answer.
    writer.writerows([safe_cell(row.get(column)) for column in EXPORT_COLUMNS] for row in rows)
    return buffer.getvalue()


def _csv_writer() -> tuple[io.StringIO, Any]:
    buffer = io.StringIO()
    # RFC 4180 line ends: with "\r\n" as terminator, a lone "\r" inside a cell gets quoted too.
    return buffer, csv.writer(buffer, lineterminator="\r\n")


def export_rows(results: Iterable[LookupResult | dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every result's address group in turn (a batch export)."""
    for result in results:
        yield from client_rows(result) if isinstance(result, dict) else result_rows(result)


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

"""The files an export downloads as (issue #27): each detailed format's media type and file
extension. The bytes are made by `ExportQueries.detailed` (application/ports/results.py;
adapters/results/downloads.py); the name and type the file is sent under are the application's."""

from __future__ import annotations

# format -> (media type, extension), in the order the web's download menu lists them.
DETAILED_FILES: dict[str, tuple[str, str]] = {
    "csv": ("text/csv", "csv"),  # UTF-8: the HTTP layer adds the charset, as it does to any text/ type
    "xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
    "jsonl": ("application/x-ndjson", "jsonl"),
    "parquet": ("application/vnd.apache.parquet", "parquet"),
}

"""An export's downloads (issue #27), made from its dataset (adapters/results/dataset.py) by
DuckDB queries and streamed: SPEC §3's CSV, and the detailed export as CSV, XLSX, JSON Lines and
Parquet.

Each format is a query over the facts alone (no join: DuckDB keeps a plain read's order, so the
rows come in input order without a sort), streamed as Arrow batches of `BATCH_ROWS`, with the keys
of each row's score sets; the score sets (a few thousand) are fetched once, written as the format
needs them, and put in their rows' places by Arrow (`_stream`). Memory holds a few batches,
whatever the export's size. The CSV lines and the JSON Lines records are made by DuckDB as texts
(a row's own, and its score sets' once per set) that Arrow joins; the bytes of a batch's lines are
taken from the Arrow buffer as they are, without a Python object a row.

- SPEC CSV: byte for byte what domain/export.py (result_rows, rows_csv) writes for the same rows.
- Detailed CSV: byte for byte what the detailed export wrote before, from domain/detailed_export.py
  (the BOM, the header of `detail_columns`, Python's csv quoting and number formatting: DuckDB's
  text of a DOUBLE is Python's repr), formula-neutralised.
- JSON Lines: the records' keys as before (`row`, `input`, every column, `address`, `location`,
  `receipt`, `tract`, `perils`, `ratings`); nothing neutralised (not a spreadsheet format).
- XLSX: xlsxwriter in constant-memory mode: numbers as numbers (a user's cell that is a plain
  number too), text neutralised, the header frozen with filters, and a sheet describing the columns.
- Parquet: the detailed columns, typed (low_confidence a boolean), the user's values as they came.

DuckDB's calls block: each runs in a worker thread."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias, TypeVar

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from adapters.results.dataset import ExportDataset, ParquetCache
from adapters.results.memory import release_freed_memory
from application.ports.downloads import DETAILED_FILES
from application.ports.files import FileStore
from application.ports.results import ExportManifest
from domain.detailed_export import ANSWER_COLUMN_NAMES, ANSWER_COLUMNS, detail_columns, user_column_names
from domain.export import EXPORT_COLUMNS, FORMULA_TRIGGERS, export_header
from domain.nri_release import TRACT_SCORES_NOTE
from domain.occupancy import UNKNOWN
from domain.perils import HAZARDS, TOTAL_FIELD
from domain.row_facts import COUNTY, TRACT, input_name

FORMATS = DETAILED_FILES
SOURCES = (
    "FEMA National Risk Index (county scores; this product uses FEMA's NRI but is not endorsed by FEMA)",
    "HUD-USPS ZIP-County crosswalk; Geocorr 2022 and Census places (county choice)",
    "City business registries (occupants), City of Seattle building benchmarking (buildings)",
)
# Rows a query reads at most: DuckDB streams its answer, holding a few batches, so a download is
# one query (the first chunk alone first: its bytes leave while the rest is planned). JSON Lines
# records are made one chunk a query: a chunk's file is one row group, read by one thread, and
# DuckDB's JSON functions hold about 100 MB a thread (two threads overran the 128 MB it has).
ROWS_PER_QUERY = 1_000_000
JSONL_ROWS_PER_QUERY = 1
BATCH_ROWS = 4096  # rows a fetched Arrow batch: a piece of the download
JSONL_BATCH_ROWS = 1024  # 5 MB of records
READ_PIECE = 1024 * 1024  # the finished XLSX is read out in pieces of this size
PARQUET_COMPRESSION = "zstd"
# Rows a row group of the Parquet download: at 1,000,000 rows, groups of 16,384 rows peaked at
# 351 MB, of 4,096 at 301 MB (the file 40 MB rather than 34).
PARQUET_GROUP_ROWS = 4096
T = TypeVar("T")
# A user's column written as numbers in XLSX: every value in it a plain decimal (no leading zero, as a
# ZIP code or an ID may have, at most 15 digits before the point, which a double keeps exactly),
# thousands separated by commas or not; and not named as an identifier is (a ZIP code, a phone number).
PLAIN_NUMBER_PATTERN = r"-?(?:0|[1-9][0-9]{0,14}|[1-9][0-9]{0,2}(?:,[0-9]{3}){1,4})(?:\.[0-9]+)?"
PLAIN_NUMBER = re.compile(PLAIN_NUMBER_PATTERN)
IDENTIFIER_NAME = re.compile(r"zip|postal|phone|fips|geoid|\bid\b|_id\b|\bcode\b|number|\bno\b|_no\b", re.IGNORECASE)

_TRIGGERS_SQL = "[" + ", ".join(f"chr({ord(t)})" for t in FORMULA_TRIGGERS) + "]"


# --- SQL pieces ---------------------------------------------------------------------------------


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _neutralised(expr: str) -> str:
    """domain/export.safe_cell in SQL: text a spreadsheet would run as a formula gets a quote."""
    return f"CASE WHEN list_contains({_TRIGGERS_SQL}, left({expr}, 1)) THEN '''' || {expr} ELSE {expr} END"


# Text that needs neutralising (a formula trigger first) or quoting (a comma, a quote, a line break).
_SPECIAL = r"""'^[=+\-@\t\r]|[,"\r\n]'"""
_QUOTED = r"""'[,"\r\n]'"""
# The same in text cells joined by \x1f; and the detailed CSV's columns whose text most often
# holds a comma (written cell by cell, never plain).
_CELL_SPECIAL = r"""'(^|\x1f)[=+\-@\t\r]|[,"\r\n]'"""
_OFTEN_QUOTED = frozenset({"message", "normalized_address", "alternative_counties", "data_as_of"})


def _csv_text(expr: str) -> str:
    """A text cell as Python's csv writer writes it (QUOTE_MINIMAL, '\\r\\n' lines), neutralised
    (domain/export.safe_cell) and quoted when it holds a comma, a quote or a line break; empty for
    null and ''. Most cells need neither: one test finds them."""
    cell = f"({_neutralised(expr)})"
    return (f"CASE WHEN {expr} IS NULL THEN '' WHEN NOT regexp_matches({expr}, {_SPECIAL}) THEN {expr}"
            f" WHEN regexp_matches({expr}, {_QUOTED}) THEN '\"' || replace({cell}, '\"', '\"\"') || '\"' ELSE {cell} END")


def _csv_number(expr: str) -> str:
    # DuckDB writes a DOUBLE as Python's repr does (shortest round trip), an integer as str().
    return f"COALESCE(CAST({expr} AS VARCHAR), '')"


def _csv_line(cells: Sequence[str]) -> str:
    return "concat(" + ", ',', ".join(cells) + ", chr(13), chr(10))"


def _is_text(kind: str) -> bool:
    return kind.upper() == "VARCHAR"


# --- streaming ------------------------------------------------------------------------------------


def query_groups(manifest: ExportManifest, rows_per_query: int = ROWS_PER_QUERY) -> list[slice]:
    """The manifest's chunks in groups a query each: the first chunk alone (the download starts
    as soon as it is read), then chunks together up to `rows_per_query` rows."""
    count = len(manifest.chunks)
    if count == 0:
        return [slice(0, 0)]
    groups = [slice(0, 1)]
    start, rows = 1, 0
    for index in range(1, count):
        rows += manifest.chunks[index].rows
        if rows >= rows_per_query:
            groups.append(slice(start, index + 1))
            start, rows = index + 1, 0
    if start < count:
        groups.append(slice(start, count))
    return groups


def _texts_bytes(column: pa.Array) -> bytes:
    """A text column's values one after the other, as Arrow holds them (no object per value)."""
    if not len(column):
        return b""
    _, offsets_buffer, data = column.buffers()
    offsets = memoryview(offsets_buffer).cast("q" if pa.types.is_large_string(column.type) else "i")
    start, end = offsets[column.offset], offsets[column.offset + len(column)]
    return data[start:end].to_pybytes()


# --- streaming, the scores joined by Arrow ---------------------------------------------------------
#
# A query over the facts alone keeps their order (DuckDB keeps a plain read's order, not a join's),
# so a download is one query streamed a batch at a time, whatever the export's size: its rows'
# texts and the keys of their score sets, and the score sets' texts (a few thousand, fetched once)
# put in their places by Arrow.

_KEY_OF = {COUNTY: "county_key", TRACT: "tract_key"}


def _score_key(geoid: str, version: str) -> str:
    """A score set's key: its geoid and release, null ones included (they match as NOT DISTINCT)."""
    return f"concat(COALESCE({geoid}, chr(30)), chr(31), COALESCE({version}, chr(30)))"


# The keys of a row's score sets: null where the row has none (not scored, no tract scored).
_KEYS = (f"CASE WHEN f.scored THEN {_score_key('f.county_fips', 'f.nri_version')} END AS {_KEY_OF[COUNTY]}, "
         f"CASE WHEN f.tract_scored THEN {_score_key('f.tract_geoid', 'f.tract_nri_version')} END AS {_KEY_OF[TRACT]}")
_SPECIAL_ROW = "__perilscope_special"


@dataclass(frozen=True, slots=True)
class _Slot:
    """A place in a row's text filled with its `level` score set's `column` (`level`: COUNTY or
    TRACT), or `default` for a row without one (None: the row's text is null, see _Either)."""

    level: str
    default: str | None
    column: str = "part"


@dataclass(frozen=True, slots=True)
class _Either:
    """Pieces joined, or `default` when one of them is null."""

    pieces: tuple[_Piece, ...]
    default: str


# A piece of a line: a column of the rows query, a text of every line, a slot, or either of those.
_Piece: TypeAlias = "str | pa.Scalar | _Slot | _Either"


@dataclass(frozen=True, slots=True)
class _Lines:
    """A download's text, a row a line: `rows`, a query over `facts AS f` selecting `row`, text
    columns and `_KEYS`; `parts`, each level's score set texts as a select list over `scores AS s`
    (named as the slots name them); `pieces`, a line's rows columns and slots in order."""

    rows: str
    parts: dict[str, str]
    pieces: tuple[_Piece, ...]


def _parts_sql(level: str, select: str) -> str:
    return f"SELECT {_score_key('s.geoid', 's.nri_version')} AS key, {select} FROM scores AS s WHERE s.level = '{level}'"


def _one_batch(table: pa.Table) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays([column.combine_chunks() for column in table.columns], schema=table.schema)


def _matched(keys: pa.Array, parts: pa.RecordBatch) -> pa.RecordBatch:
    """Each key's score set row of `parts` (keyed by its first column), a null row where none."""
    return parts.take(pc.index_in(keys, value_set=parts.column(0)))


def _check_order(rows: pa.Array, last: list[int]) -> None:
    values = rows.to_numpy()
    if len(values) and (values[0] < last[0] or bool((values[1:] < values[:-1]).any())):
        raise RuntimeError("the download's rows came out of order")
    if len(values):
        last[0] = int(values[-1])


def _line_texts(pieces: Sequence[_Piece], batch: pa.RecordBatch,
                found: dict[str, pa.RecordBatch]) -> pa.Array:
    arrays = []
    for piece in pieces:
        if isinstance(piece, str):
            arrays.append(batch.column(piece))
        elif isinstance(piece, pa.Scalar):
            arrays.append(piece)
        elif isinstance(piece, _Slot):
            column = found[piece.level].column(piece.column)
            arrays.append(column if piece.default is None else pc.fill_null(column, piece.default))
        else:
            arrays.append(pc.fill_null(_line_texts(piece.pieces, batch, found), piece.default))
    return pc.binary_join_element_wise(*arrays, "", null_handling="emit_null")


async def _stream(dataset: ExportDataset, rows_sql: str, parts: dict[str, str],
                  make: Callable[[pa.RecordBatch, dict[str, pa.RecordBatch]], T],
                  rows_per_query: int = ROWS_PER_QUERY, batch_rows: int = BATCH_ROWS) -> AsyncIterator[T]:
    """`make`'s piece of each batch of the query `rows_sql` (over the facts alone: in input order)
    with its rows' score sets (`parts`: a level's select list), one batch at a time. The query
    runs over a group of chunks at a time (`query_groups`): DuckDB holds the batches one thread
    read ahead of another's until their turn, at most a group's."""
    def score_sets() -> dict[str, pa.RecordBatch]:
        with dataset.cursor() as cursor:
            return {level: _one_batch(cursor.sql(_parts_sql(level, select)).to_arrow_table()) for level, select in parts.items()}

    sets = await asyncio.to_thread(score_sets)
    last = [-1]
    for group in query_groups(dataset.manifest, rows_per_query):
        with dataset.cursor(group) as cursor:
            reader = await asyncio.to_thread(lambda: cursor.sql(rows_sql).to_arrow_reader(batch_rows))

            def piece() -> T | None:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    return None
                _check_order(batch.column("row"), last)
                return make(batch, {level: _matched(batch.column(_KEY_OF[level]), table) for level, table in sets.items()})

            try:
                while (made := await asyncio.to_thread(piece)) is not None:
                    yield made
            finally:
                reader.close()


async def _streamed_lines(dataset: ExportDataset, lines: _Lines, rows_per_query: int = ROWS_PER_QUERY,
                          batch_rows: int = BATCH_ROWS) -> AsyncIterator[bytes]:
    def make(batch: pa.RecordBatch, found: dict[str, pa.RecordBatch]) -> bytes:
        return _texts_bytes(_line_texts(lines.pieces, batch, found))

    async for piece in _stream(dataset, lines.rows, lines.parts, make, rows_per_query, batch_rows):
        if piece:
            yield piece


def _column_kinds(dataset: ExportDataset, relation: str) -> list[tuple[str, str]]:
    with dataset.cursor(slice(0, 1)) as cursor:
        return [(row[0], row[1]) for row in cursor.execute(f"DESCRIBE {relation}").fetchall()]


# --- SPEC CSV -----------------------------------------------------------------------------------


def _spec_csv_sql() -> _Lines:
    """SPEC's CSV lines, a line per occupant (one for an address without any), the county's score
    cells written once per set of scores."""
    occupant = "o"
    cells = {
        "address": "CASE WHEN k = 1 THEN f.address ELSE NULL END",
        "name": f"COALESCE(NULLIF({occupant}.name, ''), '{UNKNOWN}')",
        "vicinity": f"COALESCE(NULLIF({occupant}.vicinity, ''), '{UNKNOWN}')",
        "types": f"CASE WHEN len({occupant}.types) > 0 THEN array_to_string({occupant}.types, ',') ELSE '{UNKNOWN}' END",
        "business_status": f"COALESCE(NULLIF({occupant}.business_status, ''), '{UNKNOWN}')",
        "naics_code": f"COALESCE(NULLIF({occupant}.naics_code, ''), 'N/A')",
    }
    numbers = {"lat": f"COALESCE({occupant}.lat, f.lat)", "lng": f"COALESCE({occupant}.lng, f.lng)"}
    scores = ("Total_Score", "Top3_Scores_Combined")
    at = EXPORT_COLUMNS.index(scores[0])
    assert EXPORT_COLUMNS[at:at + len(scores)] == scores
    line: list[str | None] = [
        None if name == scores[0] else _csv_text(cells[name]) if name in cells else _csv_number(numbers[name])
        for name in EXPORT_COLUMNS if name != scores[1]]
    texts = _segments(line)
    rows = (f"SELECT f.row, {', '.join(f'{text} AS text_{i}' for i, text in enumerate(texts))}, {_KEYS} FROM ("
            " SELECT f.*, k, f.occupants[k] AS o FROM (SELECT *, unnest(range(1, greatest(len(occupants), 1) + 1)) AS k FROM facts) AS f"
            ") AS f")
    county_part = f"""concat({_csv_number('s."Total_Score"')}, ',', {_csv_text("s.top3_combined")}) AS part"""
    return _Lines(rows, {COUNTY: county_part}, ("text_0", _Slot(COUNTY, ","), "text_1"))


# --- detailed CSV -------------------------------------------------------------------------------


_COUNTY_COLUMNS = ("Total_Score", "risk_rating", *(f"{h.code}_{kind}" for h in HAZARDS for kind in ("Score", "Rating")), "top_3")
_TRACT_COLUMNS = ("Total_Score", "risk_rating", *(f"{h.code}_{kind}" for h in HAZARDS for kind in ("Score", "Rating")))


def _score_cell(alias: str, name: str) -> str:
    expr = f"{alias}.{_q(name)}"
    return _csv_number(expr) if name.endswith("_Score") else _csv_text(expr)


def _detailed_csv_sql(user_columns: int, fact_kinds: dict[str, str]) -> _Lines:
    """The detailed CSV's lines, as the `detailed` view's rows would be written (its columns as
    domain/detailed_export computes them): a row's own cells from its facts alone, and its county's
    and tract's cells written once per set of scores and put in their places by `_stream`."""
    names = ANSWER_COLUMN_NAMES
    county_at, tract_at = names.index(_COUNTY_COLUMNS[0]), names.index("tract_" + _TRACT_COLUMNS[0])
    assert names[county_at:county_at + len(_COUNTY_COLUMNS)] == _COUNTY_COLUMNS
    assert names[tract_at:tract_at + len(_TRACT_COLUMNS)] == tuple("tract_" + name for name in _TRACT_COLUMNS)
    skipped = {*range(county_at + 1, county_at + len(_COUNTY_COLUMNS)), *range(tract_at + 1, tract_at + len(_TRACT_COLUMNS))}
    # Each cell as it must be written (`cells`), and as it is in most rows (`plain`): a row whose
    # text cells (`checked`, in one test) have nothing to neutralise or quote is its plain cells.
    checked = [f"f.{input_name(i)}" for i in range(user_columns)]
    cells: list[str | None] = [_csv_text(expr) for expr in checked]
    plain: list[str | None] = [f"COALESCE({expr}, '')" for expr in checked]
    for position, name in enumerate(names):
        cell: str | None
        if position in (county_at, tract_at):
            cell = None  # a slot: the score set's cells
        elif position in skipped:
            continue
        elif name == "low_confidence":
            cell = "CASE WHEN f.low_confidence THEN 'yes' ELSE 'no' END"
        elif not _is_text(fact_kinds[name]):
            cell = _csv_number(f"f.{_q(name)}")
        elif name in _OFTEN_QUOTED:
            cell = _csv_text(f"f.{_q(name)}")
        else:
            cells.append(_csv_text(f"f.{_q(name)}"))
            plain.append(f"COALESCE(f.{_q(name)}, '')")
            checked.append(f"f.{_q(name)}")
            continue
        cells.append(cell)
        plain.append(cell)
    texts = [f"CASE WHEN f.{_SPECIAL_ROW} THEN {special} ELSE {usual} END" if special != usual else usual
             for special, usual in zip(_segments(cells), _segments(plain), strict=True)]
    county_part = "concat(" + ", ',', ".join(_score_cell("s", name) for name in _COUNTY_COLUMNS) + ")"
    tract_part = "concat(" + ", ',', ".join(_score_cell("s", name) for name in _TRACT_COLUMNS) + ")"
    rows = (f"SELECT f.row, {', '.join(f'{text} AS text_{i}' for i, text in enumerate(texts))}, {_KEYS}"
            f" FROM (SELECT f.*, regexp_matches(concat_ws(chr(31), {', '.join(checked)}), {_CELL_SPECIAL}) AS {_SPECIAL_ROW}"
            " FROM facts AS f) AS f")
    return _Lines(rows, {COUNTY: f"{county_part} AS part", TRACT: f"{tract_part} AS part"},
                  ("text_0", _Slot(COUNTY, "," * (len(_COUNTY_COLUMNS) - 1)), "text_1",
                   _Slot(TRACT, "," * (len(_TRACT_COLUMNS) - 1)), "text_2"))


def _segments(cells: Sequence[str | None]) -> list[str]:
    """A CSV line's cells as the texts between its slots (None): each text's cells joined by
    commas, with the commas next to a slot, and the line's end."""
    groups: list[list[str]] = [[]]
    for cell in cells:
        if cell is None:
            groups.append([])
        else:
            groups[-1].append(cell)
    texts = []
    for index, group in enumerate(groups):
        assert group, "two slots side by side"
        tokens = ", ',', ".join(group)
        before = "',', " if index else ""
        after = ", ','" if index < len(groups) - 1 else ", chr(13), chr(10)"
        texts.append(f"concat({before}{tokens}{after})")
    return texts


def _csv_header(user_columns: Sequence[str]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerow(detail_columns(user_columns))
    return buffer.getvalue().encode("utf-8-sig")  # the BOM makes Excel read UTF-8


# --- JSON Lines -----------------------------------------------------------------------------------


def _object(pairs: Sequence[tuple[str, str]]) -> str:
    return "json_object(" + ", ".join(f"{_text(key)}, {expr}" for key, expr in pairs) + ")"


def _hazard_pairs(alias: str, prefix: str = "") -> list[tuple[str, str]]:
    return [(f"{prefix}{h.code}_{kind}", f'{alias}."{h.code}_{kind}"') for h in HAZARDS for kind in ("Score", "Rating")]


def _perils(alias: str) -> str:
    return _object([(h.field_name, f'{alias}."{h.code}_Score"') for h in HAZARDS] + [(TOTAL_FIELD, f'{alias}."Total_Score"')])


def _ratings(alias: str) -> str:
    return _object([(h.code, f'{alias}."{h.code}_Rating"') for h in HAZARDS] + [("Total", f"{alias}.risk_rating")])


def _members(pairs: Sequence[tuple[str, str]]) -> str:
    """An object's members as JSON text, without its braces: records are joined from such parts."""
    return f"(CAST({_object(pairs)} AS VARCHAR))[2:-2]"


def _json_members(values: dict[str, object]) -> str:
    return json.dumps(values, separators=(",", ":"))[1:-1]


_HAZARD_NAMES = [f"{h.code}_{kind}" for h in HAZARDS for kind in ("Score", "Rating")]
# The members of a row without county scores, or without tract scores: unknown, never 0.
_NO_COUNTY = _json_members({
    "Total_Score": None, "risk_rating": None, "top_3": "", **dict.fromkeys(_HAZARD_NAMES),
    "perils": {**{h.field_name: None for h in HAZARDS}, TOTAL_FIELD: None},
    "ratings": {**{h.code: None for h in HAZARDS}, "Total": None},
})
_NO_TRACT_HEAD = _json_members({"tract_Total_Score": None, "tract_risk_rating": None})
_NO_TRACT_HAZARDS = _json_members(dict.fromkeys("tract_" + name for name in _HAZARD_NAMES))


def unique_names(names: Sequence[str]) -> list[str]:
    """The names, a repeated one numbered ('Notes', 'Notes (2)'): keys of one object, columns of one file."""
    seen: set[str] = set()
    unique = []
    for name in names:
        candidate, number = name, 1
        while candidate in seen:
            number += 1
            candidate = f"{name} ({number})"
        seen.add(candidate)
        unique.append(candidate)
    return unique


def _jsonl_sql(user_columns: Sequence[str]) -> _Lines:
    """domain/detailed_export's record (input_record | answer_record), not neutralised, built by DuckDB."""
    inputs = [(name, f"f.{input_name(i)}") for i, name in enumerate(unique_names(user_columns))]
    own = [
        ("status", "f.status"), ("message", "f.message"), ("normalized_address", "f.normalized_address"),
        ("match_level", "f.match_level"), ("lat", "f.lat"), ("lng", "f.lng"), ("county_fips", "f.county_fips"),
        ("county_name", "f.county_name"), ("county_state", "f.county_state"), ("county_method", "f.county_method"),
        ("county_confidence", "f.county_confidence"),
        ("low_confidence", "CASE WHEN f.low_confidence THEN 'yes' ELSE 'no' END"),
        ("alternative_counties", "f.alternative_counties"), ("tract_geoid", "f.tract_geoid"),
        ("nri_version", "f.nri_version"), ("property_name", "f.property_name"), ("year_built", "f.year_built"),
        ("property_type", "f.property_type"), ("floors", "f.floors"),
        ("gross_floor_area_sqft", "f.gross_floor_area_sqft"), ("parking_area_sqft", "f.parking_area_sqft"),
        ("largest_use", "f.largest_use"), ("occupant_count", "f.occupant_count"), ("naics_codes", "f.naics_codes"),
        ("data_as_of", "f.data_as_of"),
    ]
    alternative = _object([
        ("county_fips", "a.county_fips"), ("county_name", "a.county_name"), ("state", "a.state"), ("share", "a.share"),
        ("Total_Score", "a.total_score"), ("risk_rating", "a.risk_rating"),
    ])
    location = _object([
        ("method", "f.county_method"), ("county_fips", "f.county_fips"), ("county_name", "f.county_name"),
        ("state", "f.county_state"), ("confidence", "f.county_confidence"), ("low_confidence", "f.low_confidence"),
        ("alternatives", f"list_transform(COALESCE(f.alternatives, []), lambda a: {alternative})"),
        ("notes", "COALESCE(f.location_notes, [])"), ("source", "f.locator"), ("tract_geoid", "f.tract_geoid"),
        ("match_level", "f.match_level"), ("lat", "f.lat"), ("lng", "f.lng"),
    ])
    county_level = _object([("geography_level", f"'{COUNTY}'"), ("geoid", "f.county_fips"), ("nri_version", "f.nri_version")])
    tract_level = _object([("geography_level", f"'{TRACT}'"), ("geoid", "f.tract_geoid"), ("nri_version", "f.tract_nri_version")])
    dataset = _object([("dataset", "d.dataset"), ("version", "d.version"), ("as_of", "d.as_of")])
    receipt = _object([
        ("nri_version", "f.nri_version"),
        ("county_fips", "CASE WHEN f.scored THEN f.county_fips END"),
        ("county_name", "CASE WHEN f.scored THEN f.county_name END"),
        ("state", "CASE WHEN f.scored THEN f.county_state END"),
        ("geography_level", f"CASE WHEN f.scored THEN '{COUNTY}' END"),
        ("geocode_match", "f.match_level"), ("lat", "f.lat"), ("lng", "f.lng"),
        ("providers", _object([(name, f"f.{name}") for name in ("geocoder", "places", "perils", "property_records", "tract_perils")])),
        ("score_geographies", f"list_concat(CASE WHEN f.scored THEN [{county_level}] ELSE [] END,"
                              f" CASE WHEN f.tract_scored THEN [{tract_level}] ELSE [] END)"),
        ("scored_at", "f.scored_at"),
        ("datasets", f"list_transform(COALESCE(f.datasets, []), lambda d: {dataset})"),
        ("from_cache", "f.from_cache"), ("cache_max_age_hours", "f.cache_max_age_hours"),
    ])
    # The scores' members, written once per set of scores (`parts`) and joined to the rows as text.
    county_members = _members([
        ("Total_Score", 's."Total_Score"'), ("risk_rating", "s.risk_rating"), ("top_3", "COALESCE(s.top_3, '')"),
        *_hazard_pairs("s"), ("perils", _perils("s")), ("ratings", _ratings("s")),
    ])
    tract_head = _members([("tract_Total_Score", 's."Total_Score"'), ("tract_risk_rating", "s.risk_rating")])
    tract_hazards = _members(_hazard_pairs("s", "tract_"))
    tract_scores = _members([("perils", _perils("s")), ("ratings", _ratings("s")), ("Total_Score", 's."Total_Score"'),
                             ("Top3_Scores_Combined", "s.top3_combined")])
    # A row's tract object, when its tract was scored and its scores are found: their members
    # between the row's own.
    tract_head_of_row = ("CASE WHEN f.tract_scored THEN '{' || " + _members([
        ("geography_level", f"'{TRACT}'"), ("tract_geoid", "f.tract_geoid"), ("county_fips", "f.tract_county_fips"),
        ("nri_version", "f.tract_nri_version"), ("tract_from", "f.tract_from")]) + " || ',' END")
    tract_tail_of_row = "',' || " + _members([("notes", "COALESCE(f.tract_notes, [])"), ("about", _text(TRACT_SCORES_NOTE))]) + " || '}'"
    texts = [
        "'{' || " + _members([("row", "f.row"), ("input", _object(inputs) if inputs else "json_object()"), *own]) + " || ','",
        "',' || " + _members([("tract_nri_version", "f.tract_nri_version"), ("tract_note", "f.tract_note")]) + " || ','",
        "',' || " + _members([("address", "f.address"), ("location", location), ("receipt", receipt)]) + """ || ',"tract":'""",
        tract_head_of_row, tract_tail_of_row,
    ]
    rows = f"SELECT f.row, {', '.join(f'{text} AS text_{i}' for i, text in enumerate(texts))}, {_KEYS} FROM facts AS f"
    return _Lines(
        rows,
        {COUNTY: f"{county_members} AS county_members",
         TRACT: f"{tract_head} AS tract_head, {tract_hazards} AS tract_hazards, {tract_scores} AS tract_scores"},
        ("text_0", _Slot(TRACT, _NO_TRACT_HEAD, "tract_head"), "text_1", _Slot(TRACT, _NO_TRACT_HAZARDS, "tract_hazards"),
         "text_2", _Either(("text_3", _Slot(TRACT, None, "tract_scores"), "text_4"), "null"),
         pa.scalar(","), _Slot(COUNTY, _NO_COUNTY, "county_members"), pa.scalar("}\n")),
    )


# --- Parquet ------------------------------------------------------------------------------------


def download_column_names(user_columns: Sequence[str]) -> list[str]:
    """The Parquet download's column names: the user's as uploaded (a repeat numbered), then ours,
    renamed only where a user's column has the name already."""
    user = unique_names(user_columns)
    taken = set(user)
    return user + [name if name not in taken else f"{name} (PerilScope)" for name in ANSWER_COLUMN_NAMES]


_SCORE_COLUMNS = {COUNTY: _COUNTY_COLUMNS, TRACT: tuple("tract_" + name for name in _TRACT_COLUMNS)}


def _score_columns_sql(level: str) -> str:
    """A level's score columns as the detailed rows name them (dataset.detailed_select)."""
    columns = []
    for name in _SCORE_COLUMNS[level]:
        source = name.removeprefix("tract_") if level == TRACT else name
        expr = "COALESCE(s.top_3, '')" if source == "top_3" else f"s.{_q(source)}"
        columns.append(f"{expr} AS {_q(name)}")
    return ", ".join(columns)


def _detailed_table(user_columns: int, low_confidence: str) -> tuple[str, dict[str, str]]:
    """The detailed rows (dataset.detailed_select's columns) as a query over the facts alone and
    the score sets' columns, put together by `_detailed_batch`."""
    scored = {name for names in _SCORE_COLUMNS.values() for name in names}
    own = [low_confidence + " AS low_confidence" if name == "low_confidence" else f"f.{_q(name)}"
           for name in ANSWER_COLUMN_NAMES if name not in scored]
    rows = f"SELECT {', '.join([*(f'f.{input_name(i)}' for i in range(user_columns)), *own])}, {_KEYS} FROM facts AS f"
    return rows, {level: _score_columns_sql(level) for level in _SCORE_COLUMNS}


def _detailed_batch(user_columns: int, names: Sequence[str], batch: pa.RecordBatch,
                    found: dict[str, pa.RecordBatch]) -> pa.RecordBatch:
    """The detailed columns in order, named `names`: the user's, then ANSWER_COLUMN_NAMES."""
    level_of = {name: level for level, columns in _SCORE_COLUMNS.items() for name in columns}
    arrays = [batch.column(input_name(i)) for i in range(user_columns)]
    for name in ANSWER_COLUMN_NAMES:
        if name in level_of:
            column = found[level_of[name]].column(name)
            arrays.append(pc.fill_null(column, "") if name == "top_3" else column)
        else:
            arrays.append(batch.column(name))
    return pa.RecordBatch.from_arrays(arrays, names=list(names))


async def _detailed_batches(dataset: ExportDataset, names: Sequence[str], low_confidence: str) -> AsyncIterator[pa.RecordBatch]:
    """The detailed rows in input order, a batch at a time (with their columns when there is none)."""
    users = len(dataset.user_columns)
    rows, parts = _detailed_table(users, low_confidence)

    def make(batch: pa.RecordBatch, found: dict[str, pa.RecordBatch]) -> pa.RecordBatch:
        return _detailed_batch(users, names, batch, found)

    empty = True
    async for made in _stream(dataset, rows, parts, make):
        empty = False
        yield made
    if empty:
        yield await asyncio.to_thread(_no_rows, dataset, rows, parts, make)


def _no_rows(dataset: ExportDataset, rows: str, parts: dict[str, str],
             make: Callable[[pa.RecordBatch, dict[str, pa.RecordBatch]], pa.RecordBatch]) -> pa.RecordBatch:
    with dataset.cursor(slice(0, 0)) as cursor:
        batch = _one_batch(cursor.sql(rows + " LIMIT 0").to_arrow_table())
        found = {level: _one_batch(cursor.sql(_parts_sql(level, select) + " LIMIT 0").to_arrow_table())
                 for level, select in parts.items()}
    return make(batch, found)


class _Sink:
    """A file-like sink the Parquet writer writes to; what it has written is taken out in pieces."""

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self._position = 0
        self.closed = False

    def write(self, data: bytes) -> int:
        piece = bytes(data)
        self._pieces.append(piece)
        self._position += len(piece)
        return len(piece)

    def tell(self) -> int:
        return self._position

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def take(self) -> bytes:
        taken = b"".join(self._pieces)
        self._pieces.clear()
        return taken


async def _parquet(dataset: ExportDataset) -> AsyncIterator[bytes]:
    """Row groups of about PARQUET_GROUP_ROWS rows: a larger group holds more batches at once."""
    sink = _Sink()
    writer: pq.ParquetWriter | None = None
    group: list[pa.RecordBatch] = []
    rows = 0

    def write(batches: list[pa.RecordBatch]) -> bytes:
        nonlocal writer
        table = pa.Table.from_batches(batches)
        if writer is None:
            writer = pq.ParquetWriter(sink, table.schema, compression=PARQUET_COMPRESSION)
        writer.write_table(table, row_group_size=max(len(table), 1))
        return sink.take()

    names = download_column_names(dataset.user_columns)
    async for batch in _detailed_batches(dataset, names, "f.low_confidence"):
        group.append(batch)
        rows += batch.num_rows
        if rows >= PARQUET_GROUP_ROWS:
            yield await asyncio.to_thread(write, group)
            group, rows = [], 0
    if group:
        yield await asyncio.to_thread(write, group)
    assert writer is not None  # an export of no rows: a batch of its columns
    writer.close()
    yield sink.take()


# --- XLSX -----------------------------------------------------------------------------------------


def numeric_user_columns(dataset: ExportDataset) -> set[int]:
    """The user's columns whose every value is a plain number (PLAIN_NUMBER; empty cells aside),
    whose names do not say identifier: one scan of those columns (blocking)."""
    candidates = [i for i, name in enumerate(dataset.user_columns) if not IDENTIFIER_NAME.search(name)]
    if not candidates:
        return set()
    checks = ", ".join(
        f"bool_and(COALESCE(NULLIF({input_name(i)}, '') IS NULL OR regexp_full_match({input_name(i)}, {_text(PLAIN_NUMBER_PATTERN)}), true))"
        for i in candidates)
    with dataset.cursor() as cursor:
        answer = cursor.execute(f"SELECT {checks} FROM facts").fetchone()
    return {i for i, numeric in zip(candidates, answer or (), strict=True) if numeric}


def _user_cell(value: str | None, numeric: bool) -> str | float | None:
    """A user's cell in XLSX: in a column of numbers, a number; text neutralised; empty as nothing."""
    if value is None or value == "":
        return None
    if numeric and PLAIN_NUMBER.fullmatch(value):
        return float(value.replace(",", ""))
    return "'" + value if value.startswith(FORMULA_TRIGGERS) else value


def _answer_cell(value: object) -> object:
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


class _Workbook:
    """An XLSX of the detailed rows, filled a batch at a time (each call in a worker thread)."""

    def __init__(self, path: Path, user_columns: Sequence[str], rows: int, numeric: set[int]) -> None:
        import xlsxwriter  # here, not at the top: only an XLSX download needs it (server memory)

        self._users = len(user_columns)
        self._numeric = [index in numeric for index in range(len(user_columns))]
        self._user_columns = list(user_columns)
        self._book = xlsxwriter.Workbook(
            str(path),
            {"constant_memory": True, "tmpdir": str(path.parent), "strings_to_formulas": False,
             "strings_to_urls": False, "strings_to_numbers": False, "nan_inf_to_errors": True},
        )
        self._rows = self._book.add_worksheet("Rows")
        self._header = self._book.add_format({"bold": True})
        names = detail_columns(user_columns)
        for column, name in enumerate(names):
            self._rows.write_string(0, column, name, self._header)
        self._rows.freeze_panes(1, 0)
        self._rows.autofilter(0, 0, max(rows, 1), len(names) - 1)
        self._next_row = 1

    def add(self, batch: pa.RecordBatch) -> None:
        columns = [column.to_pylist() for column in batch.columns]
        sheet, users = self._rows, self._users
        for offset in range(batch.num_rows):
            row = self._next_row + offset
            for index, values in enumerate(columns):
                value = _user_cell(values[offset], self._numeric[index]) if index < users else _answer_cell(values[offset])
                if value is None:
                    continue
                if isinstance(value, str):
                    sheet.write_string(row, index, value)
                else:
                    sheet.write_number(row, index, value)
        self._next_row += batch.num_rows

    def close(self) -> None:
        about = self._book.add_worksheet("Columns")
        about.write_row(0, 0, ["Column", "What it holds"], self._header)
        for index, name in enumerate(user_column_names(self._user_columns), start=1):
            about.write_string(index, 0, name)
            about.write_string(index, 1, "Your own column, as uploaded")
        for index, (name, meaning) in enumerate(ANSWER_COLUMNS, start=self._users + 1):
            about.write_string(index, 0, name)
            about.write_string(index, 1, meaning)
        start = self._users + len(ANSWER_COLUMNS) + 2
        about.write_string(start, 0, "Sources", self._header)
        for offset, source in enumerate(SOURCES, start=1):
            about.write_string(start + offset, 0, source)
        self._book.close()


async def _xlsx(dataset: ExportDataset) -> AsyncIterator[bytes]:
    folder = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix="perilscope-xlsx-"))
    try:
        path = folder / "export.xlsx"
        numeric = await asyncio.to_thread(numeric_user_columns, dataset)
        book = await asyncio.to_thread(_Workbook, path, dataset.user_columns, dataset.manifest.rows, numeric)
        # low_confidence stays 'yes'/'no' text, as in the CSV.
        names = detail_columns(dataset.user_columns)
        async for batch in _detailed_batches(dataset, names, "CASE WHEN f.low_confidence THEN 'yes' ELSE 'no' END"):
            await asyncio.to_thread(book.add, batch)
        await asyncio.to_thread(book.close)
        handle = await asyncio.to_thread(path.open, "rb")
        try:
            while piece := await asyncio.to_thread(handle.read, READ_PIECE):
                yield piece
        finally:
            await asyncio.to_thread(handle.close)
    finally:
        await asyncio.to_thread(shutil.rmtree, folder, True)


# --- the adapter ----------------------------------------------------------------------------------


class ResultDownloads:
    """`ExportQueries.spec_csv` and `.detailed` (application/ports/results.py): an export's
    downloads from its dataset, on any FileStore (the S3 store's files through the local cache)."""

    formats = tuple(FORMATS)

    def __init__(self, files: FileStore, cache: ParquetCache | None = None) -> None:
        release_freed_memory()
        self._files = files
        self._cache = cache

    async def _open(self, manifest: ExportManifest) -> ExportDataset:
        return await ExportDataset.open(self._files, manifest, self._cache)

    def spec_csv(self, manifest: ExportManifest) -> AsyncIterator[bytes]:
        async def pieces() -> AsyncIterator[bytes]:
            dataset = await self._open(manifest)
            yield export_header().encode()
            async for piece in _streamed_lines(dataset, _spec_csv_sql()):
                yield piece

        return pieces()

    def detailed(self, manifest: ExportManifest, fmt: str) -> AsyncIterator[bytes]:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}")
        makers: dict[str, Callable[[ExportDataset], AsyncIterator[bytes]]] = {
            "csv": _detailed_csv, "jsonl": _jsonl, "xlsx": _xlsx, "parquet": _parquet,
        }

        async def pieces() -> AsyncIterator[bytes]:
            dataset = await self._open(manifest)
            async for piece in makers[fmt](dataset):
                yield piece

        return pieces()


async def _detailed_csv(dataset: ExportDataset) -> AsyncIterator[bytes]:
    yield _csv_header(dataset.user_columns)
    kinds = dict(await asyncio.to_thread(_column_kinds, dataset, "facts"))
    async for piece in _streamed_lines(dataset, _detailed_csv_sql(len(dataset.user_columns), kinds)):
        yield piece


async def _jsonl(dataset: ExportDataset) -> AsyncIterator[bytes]:
    async for piece in _streamed_lines(dataset, _jsonl_sql(dataset.user_columns), JSONL_ROWS_PER_QUERY, JSONL_BATCH_ROWS):
        yield piece

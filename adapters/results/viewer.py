"""The export viewer's pages as DuckDB queries over an export's dataset (ExportQueries.rows_page;
application/export_rows.py asks, domain/export_rows.py says what filters and sorts mean).

A page is two queries, so a sort or a filter never carries a whole row through it:
1. which rows: the `row` (line in the upload, unique and in input order) of the matching rows,
   sorted, from `offset`, reading only the filtered and sorted columns; with no filter and no sort,
   the positions alone say which rows (the manifest gives each chunk's first position);
2. the page's rows whole, read from the chunk files that hold them (each file's lines are known).

What an export keeps in memory between requests (`_Prepared`, a few exports, least recently used
out): its files' paths and line ranges, its county scores (the few columns the viewer reads, a
row per county and NRI release) and the count of every filter value. Nothing per row."""

from __future__ import annotations

import asyncio
import time
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa

from adapters.results.dataset import ExportDataset, ParquetCache, connection
from application.export_rows import RowsAnswer, RowsQuery
from application.ports.files import FileStore
from application.ports.results import ExportManifest
from domain.export_rows import (
    LOW_CONFIDENCE_ORDER, MATCH_LEVEL_ORDER, NO, NO_COUNTY, RATING_ORDER, SORT_COLUMNS, STATUS_ORDER, YES,
    FilterChoice, FilterChoices, RowFilter, RowOrder, ViewerRow, county_choices, county_label, ranked,
)
from domain.portfolio import NO_RATING
from domain.row_facts import COUNTY, input_name

UNKNOWN = "unknown"  # a match level or status a row does not have (an export converted from an old one)
KEPT_EXPORTS = 8
# A dataset's local paths are trusted this long (S3 copies stay in their cache 600 s after use).
PATHS_SECONDS = 300.0
LOW_CONFIDENCE_LABELS = {YES: "County uncertain", NO: "County certain"}

# Each filter's value of a facts row `f` (joined to its county's scores `s` for the rating).
_KEYS = {
    "match_level": f"coalesce(f.match_level, '{UNKNOWN}')",
    "county": f"coalesce(f.county_fips, '{NO_COUNTY}')",
    "state": f"coalesce(f.county_state, '{NO_COUNTY}')",
    "rating": f"coalesce(s.risk_rating, '{NO_RATING}')",
    "low_confidence": f"CASE WHEN f.low_confidence THEN '{YES}' ELSE '{NO}' END",
    "status": f"coalesce(f.status, '{UNKNOWN}')",
}
_SCORES_JOIN = (" LEFT JOIN scores AS s ON f.scored AND s.geoid = f.county_fips"
                " AND s.nri_version IS NOT DISTINCT FROM f.nri_version")
_ROW_FIELDS = ("row", "address", "status", "message", "match_level", "low_confidence", "county_fips", "county_name",
               "county_state", "occupant_count", "naics_codes")


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _text_list(values: Sequence[str]) -> str:
    return "[" + ", ".join("'" + value.replace("'", "''") + "'" for value in values) + "]"


@dataclass(slots=True)
class _Prepared:
    """What an export's pages need besides its files' rows (module doc)."""

    dataset: ExportDataset
    opened: float
    first_rows: dict[str, int]  # each facts file's first position in the export
    lines: list[tuple[int, int, str]]  # each facts file's (first, last) row, in file order
    scores: pa.Table  # county scores: geoid, nri_version, Total_Score, risk_rating, top_3, <code>_Score
    choices: FilterChoices


class ViewerQueries:
    """`ExportQueries.rows_page` (application/ports/results.py) over the store's files."""

    def __init__(self, files: FileStore, cache: ParquetCache | None = None, kept: int = KEPT_EXPORTS) -> None:
        self._files = files
        self._cache = cache
        self._kept = kept
        self._prepared: OrderedDict[tuple[str, ...], _Prepared] = OrderedDict()
        self._preparing: dict[tuple[str, ...], asyncio.Lock] = {}

    async def rows_page(self, manifest: ExportManifest, query: RowsQuery) -> RowsAnswer:
        prepared = await self._prepare(manifest)
        return await asyncio.to_thread(_answer, prepared, query)

    async def _prepare(self, manifest: ExportManifest) -> _Prepared:
        key = manifest.keys  # a chunk claim's files are its own: the keys name the export
        lock = self._preparing.setdefault(key, asyncio.Lock())
        async with lock:
            prepared = self._prepared.get(key)
            if prepared is not None and time.monotonic() - prepared.opened < PATHS_SECONDS:
                self._prepared.move_to_end(key)
                return prepared
            dataset = await ExportDataset.open(self._files, manifest, self._cache)
            if prepared is not None:  # the same files: only their paths are looked at again
                prepared.dataset, prepared.opened = dataset, time.monotonic()
                prepared.first_rows = _first_rows(dataset)
            else:
                prepared = await asyncio.to_thread(_prepared_of, dataset)
            self._prepared[key] = prepared
            self._prepared.move_to_end(key)
            while len(self._prepared) > self._kept:
                gone, _ = self._prepared.popitem(last=False)
                self._preparing.pop(gone, None)
            return prepared


def _first_rows(dataset: ExportDataset) -> dict[str, int]:
    return {path: chunk.first_row for path, chunk in zip(dataset.facts_paths, dataset.chunks, strict=True)}


def _cursor(prepared: _Prepared, paths: Sequence[str] | None = None, positions: bool = False) -> duckdb.DuckDBPyConnection:
    """A cursor with the views `facts` (of `paths`, or every file) and `scores` (the county scores)."""
    cursor = connection().cursor()
    chosen = list(prepared.dataset.facts_paths if paths is None else paths)
    options = ", filename = true, file_row_number = true" if positions else ""
    cursor.execute(f"CREATE OR REPLACE TEMP VIEW facts AS SELECT * FROM read_parquet({_text_list(chosen)}{options})")
    cursor.register("scores", prepared.scores)
    return cursor


def _prepared_of(dataset: ExportDataset) -> _Prepared:
    score_columns = ["geoid", "nri_version", "Total_Score", "risk_rating", "top_3", *SORT_COLUMNS[1:]]
    with dataset.cursor() as cursor:
        scores = cursor.sql(
            "SELECT DISTINCT ON (geoid, nri_version) " + ", ".join(_quoted(c) for c in score_columns)
            + f" FROM scores WHERE level = '{COUNTY}'").to_arrow_table()
        lines = cursor.execute(
            f"SELECT filename, min(row), max(row) FROM read_parquet({_text_list(dataset.facts_paths)}, filename = true)"
            " GROUP BY filename").fetchall() if dataset.facts_paths else []
    prepared = _Prepared(dataset, time.monotonic(), _first_rows(dataset), [], scores, FilterChoices((), (), ()))
    by_path = {path: (first, last) for path, first, last in lines}
    prepared.lines = [(*by_path[path], path) for path in dataset.facts_paths if path in by_path]
    prepared.choices = _choices(prepared)
    return prepared


def _choices(prepared: _Prepared) -> FilterChoices:
    """Every filter value of the export with its rows: one grouped scan of the filter columns."""
    if not prepared.dataset.facts_paths:
        return FilterChoices((), (), ())
    keys = ("match_level", "county", "state", "rating", "low_confidence", "status")
    cursor = _cursor(prepared)
    try:
        groups = cursor.execute(
            "SELECT " + ", ".join(_KEYS[k] for k in keys) + ", any_value(f.county_name), any_value(f.county_state), count(*)"
            f" FROM facts AS f{_SCORES_JOIN} GROUP BY ALL").fetchall()
    finally:
        cursor.close()
    counts: dict[str, Counter[str]] = {k: Counter() for k in keys}
    labels: dict[str, str] = {}
    for *values, county_name, county_state, rows in groups:
        for key, value in zip(keys, values, strict=True):
            counts[key][value] += rows
        county = values[1]
        if county not in labels:
            labels[county] = county_label(None if county == NO_COUNTY else county, county_name, county_state)
    states = ranked(counts["state"].items(), last=NO_COUNTY)
    return FilterChoices(
        match_levels=ranked(counts["match_level"].items(), MATCH_LEVEL_ORDER, UNKNOWN),
        counties=county_choices((c, labels[c], rows) for c, rows in counts["county"].items()),
        ratings=ranked(counts["rating"].items(), RATING_ORDER, NO_RATING),
        states=tuple(FilterChoice(c.value, "Not located" if c.value == NO_COUNTY else c.label, c.rows) for c in states),
        statuses=ranked(counts["status"].items(), STATUS_ORDER, UNKNOWN),
        low_confidence=tuple(FilterChoice(c.value, LOW_CONFIDENCE_LABELS[c.value], c.rows)
                             for c in ranked(counts["low_confidence"].items(), LOW_CONFIDENCE_ORDER)),
    )


def _where(wanted: RowFilter) -> tuple[str, list[Any], bool]:
    """The SQL condition of the filters, its parameters, and whether it reads the scores."""
    conditions, parameters = [], []
    for name, value in wanted.chosen().items():
        if value is not None:
            conditions.append(f"{_KEYS[name]} = ?")
            parameters.append(value)
    if wanted.search:
        # The address as read, or for a row that could not be read, the text it came as (the
        # address text's first line); any case, `%` and `_` as themselves.
        pattern = "%" + wanted.search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        conditions.append("(f.normalized_address ILIKE ? ESCAPE '\\' OR (coalesce(f.normalized_address, '') = ''"
                          " AND split_part(f.address, chr(10), 1) ILIKE ? ESCAPE '\\'))")
        parameters += [pattern, pattern]
    return (" WHERE " + " AND ".join(conditions)) if conditions else "", parameters, wanted.rating is not None


def _answer(prepared: _Prepared, query: RowsQuery) -> RowsAnswer:
    total = prepared.dataset.manifest.rows
    wanted, order = query.wanted, query.order
    if not prepared.dataset.facts_paths or query.offset >= total:
        return RowsAnswer(total if wanted.is_empty else _count(prepared, wanted), [], prepared.choices)
    if wanted.is_empty and order.column is None:
        return RowsAnswer(total, _rows_at(prepared, query.offset, query.limit), prepared.choices)
    where, parameters, needs_scores = _where(wanted)
    join = _SCORES_JOIN if needs_scores or order.column is not None else ""
    sort = (f"s.{_quoted(order.column)} {'DESC' if order.descending else 'ASC'} NULLS LAST, " if order.column else "")
    cursor = _cursor(prepared)
    try:
        picked = [row for (row,) in cursor.execute(
            f"SELECT f.row FROM facts AS f{join}{where} ORDER BY {sort}f.row LIMIT ? OFFSET ?",
            [*parameters, query.limit, query.offset]).fetchall()]
        if wanted.is_empty:
            matching = total
        elif 0 < len(picked) < query.limit or (not picked and query.offset == 0):
            matching = query.offset + len(picked)  # the page reached the last matching row
        else:
            count_join = _SCORES_JOIN if needs_scores else ""
            matching = cursor.execute(f"SELECT count(*) FROM facts AS f{count_join}{where}", parameters).fetchone()[0]
    finally:
        cursor.close()
    return RowsAnswer(matching, _rows_of(prepared, picked, order.column), prepared.choices)


def _count(prepared: _Prepared, wanted: RowFilter) -> int:
    if not prepared.dataset.facts_paths:
        return 0
    where, parameters, needs_scores = _where(wanted)
    cursor = _cursor(prepared)
    try:
        return cursor.execute(f"SELECT count(*) FROM facts AS f{_SCORES_JOIN if needs_scores else ''}{where}", parameters).fetchone()[0]
    finally:
        cursor.close()


def _select(prepared: _Prepared, sort_column: str | None) -> str:
    inputs = [f"f.{input_name(i)}" for i in range(len(prepared.dataset.manifest.user_columns))]
    sort = f"s.{_quoted(sort_column)}" if sort_column else "NULL::DOUBLE"
    return ("SELECT f.filename, f.file_row_number, " + ", ".join(f"f.{name}" for name in _ROW_FIELDS)
            + ', s."Total_Score", s.risk_rating, s.top_3, ' + sort + ", [" + ", ".join(inputs) + "]::VARCHAR[]"
            + f" FROM facts AS f{_SCORES_JOIN}")


def _rows_at(prepared: _Prepared, offset: int, limit: int) -> list[ViewerRow]:
    """The rows at positions offset..offset+limit-1 (input order): read from the files holding them."""
    end = offset + limit
    paths = [path for path, chunk in zip(prepared.dataset.facts_paths, prepared.dataset.chunks, strict=True)
             if chunk.first_row < end and chunk.first_row + chunk.rows > offset]
    spans = []
    for path in paths:
        first = prepared.first_rows[path]
        spans.append(f"(f.filename = {_text_list([path])[1:-1]} AND f.file_row_number >= {max(0, offset - first)}"
                     f" AND f.file_row_number < {end - first})")
    cursor = _cursor(prepared, paths, positions=True)
    try:
        found = cursor.execute(_select(prepared, None) + " WHERE " + " OR ".join(spans)).fetchall()
    finally:
        cursor.close()
    return sorted((_viewer_row(prepared, found_row) for found_row in found), key=lambda r: r.index)


def _rows_of(prepared: _Prepared, picked: list[int], sort_column: str | None) -> list[ViewerRow]:
    """The rows whose `row` is each of `picked`, in that order: read from the files holding them."""
    if not picked:
        return []
    wanted = sorted(picked)
    paths, at = [], 0
    for first, last, path in prepared.lines:  # both in input order: one walk
        while at < len(wanted) and wanted[at] < first:
            at += 1
        if at < len(wanted) and wanted[at] <= last:
            paths.append(path)
    cursor = _cursor(prepared, paths, positions=True)
    try:
        found = cursor.execute(_select(prepared, sort_column) + " WHERE f.row IN (SELECT unnest(?::BIGINT[]))",
                               [wanted]).fetchall()
    finally:
        cursor.close()
    by_row = {row.row: row for row in (_viewer_row(prepared, found_row) for found_row in found)}
    return [by_row[row] for row in picked if row in by_row]


def _viewer_row(prepared: _Prepared, found: tuple[Any, ...]) -> ViewerRow:
    (path, number, row, address, status, message, match_level, low_confidence, county_fips, county_name,
     county_state, occupant_count, naics_codes, total_score, rating, top_3, sort_score, values) = found
    return ViewerRow(
        index=prepared.first_rows[path] + number, row=row, address=address or "", status=status or None,
        message=message or None, match_level=match_level or None, low_confidence=low_confidence,
        county_fips=county_fips or None, county_name=county_name or None, county_state=county_state or None,
        total_score=total_score, rating=rating or None, top_3=top_3 or None, occupant_count=occupant_count,
        naics_codes=naics_codes or None, values=tuple(values), sort_score=sort_score,
    )

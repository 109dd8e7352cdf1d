"""The export viewer's pages as DuckDB queries over an export's dataset (ExportQueries.rows_page;
application/export_rows.py asks, domain/export_rows.py says what filters and sorts mean).

On an export's first open, one scan of its facts files takes what every row is filtered and sorted
by into a compact Arrow table in memory (`keys`: its row, its file and place in the file, its match
level, county, state, status and confidence as dictionary codes, and which county scores it has:
about 25 bytes a row), with its county scores (the few columns the viewer reads, a row per county
and NRI release) and the count of every filter value. Kept for a few exports, least recently used
out, within KEPT_BYTES. A page is then two queries:
1. which rows: over `keys` joined to the scores (and, for a text search, the facts files' address
   columns), filtered, sorted, from `offset`;
2. the page's rows whole, read from the chunk files that hold them (their place in each is known).
With no filter and no sort, the positions alone say which rows (the manifest gives each chunk's
first position): the first query is not needed."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from adapters.results.dataset import ExportDataset, ParquetCache, connection
from application.export_rows import RowsAnswer, RowsQuery
from application.ports.files import FileStore
from application.ports.results import ExportManifest
from domain.export_rows import (
    LOW_CONFIDENCE_ORDER, MATCH_LEVEL_ORDER, NO, NO_COUNTY, RATING_ORDER, SORT_COLUMNS, STATUS_ORDER, YES,
    FilterChoice, FilterChoices, RowFilter, ViewerRow, county_choices, county_label, ranked,
)
from domain.portfolio import NO_RATING
from domain.row_facts import COUNTY, input_name

UNKNOWN = "unknown"  # a match level or status a row does not have (an export converted from an old one)
KEPT_EXPORTS = 8
# The kept exports' keys together (the newest is kept whatever its size): 1,000,000 rows take about 25 MB.
KEPT_BYTES = 96 * 1024 * 1024
# A dataset's local paths are trusted this long (S3 copies stay in their cache 600 s after use).
PATHS_SECONDS = 300.0
KEYS_BATCH = 65536
KEPT_SEARCHES = 4  # an export's last searched texts whose rows are kept
LOW_CONFIDENCE_LABELS = {YES: "County uncertain", NO: "County certain"}

# Each filter's value of a `keys` row `k` (joined to its county's scores `s` for the rating).
_KEYS = {
    "match_level": "k.match_level",
    "county": "k.county",
    "state": "k.state",
    "rating": f"coalesce(s.risk_rating, '{NO_RATING}')",
    "low_confidence": f"CASE WHEN k.low_confidence THEN '{YES}' ELSE '{NO}' END",
    "status": "k.status",
}
_SCORES_JOIN = " LEFT JOIN scores AS s ON s.at = k.score"
# What `keys` holds of a facts row `f` (the score's place is joined in as it is made).
_KEY_COLUMNS = (
    "f.row::INTEGER AS row, f.file_index::SMALLINT AS file, f.file_row_number::INTEGER AS at,"
    f" coalesce(f.match_level, '{UNKNOWN}') AS match_level, coalesce(f.county_fips, '{NO_COUNTY}') AS county,"
    f" coalesce(f.county_state, '{NO_COUNTY}') AS state, coalesce(f.status, '{UNKNOWN}') AS status,"
    " coalesce(f.low_confidence, false) AS low_confidence"
)
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
    keys: pa.Table  # a row per facts row, in input order (module doc)
    scores: pa.Table  # county scores: at, geoid, nri_version, Total_Score, risk_rating, top_3, <code>_Score
    choices: FilterChoices
    labels: dict[str, tuple[str | None, str | None]]  # each county's name and state
    # The rows whose address holds a searched text, for the last few texts: the page, its count
    # and the next pages of a search read the addresses once, not once each.
    found: OrderedDict[str, pa.Table] = field(default_factory=OrderedDict)
    found_lock: threading.Lock = field(default_factory=threading.Lock)  # pages are answered in threads

    @property
    def size_bytes(self) -> int:
        with self.found_lock:
            return self.keys.nbytes + self.scores.nbytes + sum(rows.nbytes for rows in self.found.values())

    def rows_found(self, cursor: duckdb.DuckDBPyConnection, search: str) -> pa.Table:
        """The rows (`row`) whose address as read, or for a row that could not be read, the text
        it came as (the address text's first line), holds `search` in any case, `%` and `_` as
        themselves. Only these two columns of the facts files are read."""
        with self.found_lock:
            rows = self.found.get(search)
        if rows is None:
            pattern = "%" + search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = cursor.sql(
                "SELECT f.row::INTEGER AS row FROM facts AS f WHERE f.normalized_address ILIKE $1 ESCAPE '\\'"
                " OR (coalesce(f.normalized_address, '') = '' AND split_part(f.address, chr(10), 1) ILIKE $1 ESCAPE '\\')",
                params=[pattern]).to_arrow_table()
        with self.found_lock:
            self.found[search] = rows
            self.found.move_to_end(search)
            while len(self.found) > KEPT_SEARCHES:
                self.found.popitem(last=False)
        return rows


class ViewerQueries:
    """`ExportQueries.rows_page` (application/ports/results.py) over the store's files."""

    def __init__(self, files: FileStore, cache: ParquetCache | None = None, kept: int = KEPT_EXPORTS,
                 kept_bytes: int = KEPT_BYTES) -> None:
        self._files = files
        self._cache = cache
        self._kept = kept
        self._kept_bytes = kept_bytes
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
            else:
                prepared = await asyncio.to_thread(_prepared_of, dataset)
            self._prepared[key] = prepared
            self._prepared.move_to_end(key)
            while len(self._prepared) > 1 and (
                    len(self._prepared) > self._kept or sum(p.size_bytes for p in self._prepared.values()) > self._kept_bytes):
                gone, _ = self._prepared.popitem(last=False)
                self._preparing.pop(gone, None)
            return prepared


def _cursor(prepared: _Prepared, paths: Sequence[str] | None = None) -> duckdb.DuckDBPyConnection:
    """A cursor with `keys`, `scores` (the county scores) and `facts` (of `paths`, or every file)."""
    cursor = connection().cursor()
    chosen = list(prepared.dataset.facts_paths if paths is None else paths)
    if chosen:
        cursor.execute(f"CREATE OR REPLACE TEMP VIEW facts AS SELECT *, file_index, file_row_number FROM read_parquet({_text_list(chosen)})")
    cursor.register("keys", prepared.keys)
    cursor.register("scores", prepared.scores)
    return cursor


def _compact(batch: pa.RecordBatch | pa.Table) -> pa.Table:
    """Texts as dictionary codes of the fewest bytes that hold them: a county's name is held once,
    not once a row, and a row's county is 2 bytes."""
    columns = []
    for column in batch.columns:
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type) or pa.types.is_string_view(column.type):
            coded = pc.dictionary_encode(column.cast(pa.string()))
            values = len(coded.dictionary) if isinstance(coded, pa.Array) else max((len(c.dictionary) for c in coded.chunks), default=0)
            index = pa.int8() if values < 2**7 else pa.int16() if values < 2**15 else pa.int32()
            column = coded.cast(pa.dictionary(index, pa.string()))
        columns.append(column)
    return pa.Table.from_arrays(columns, names=batch.schema.names)


def _prepared_of(dataset: ExportDataset) -> _Prepared:
    score_columns = ["geoid", "nri_version", "Total_Score", "risk_rating", "top_3", *SORT_COLUMNS[1:]]
    with dataset.cursor() as cursor:
        scores = cursor.sql(
            "SELECT (row_number() OVER () - 1)::INTEGER AS at, * FROM (SELECT DISTINCT ON (geoid, nri_version) "
            + ", ".join(_quoted(c) for c in score_columns) + f" FROM scores WHERE level = '{COUNTY}')").to_arrow_table()
        if dataset.facts_paths:
            cursor.register("county_scores", scores)
            reader = cursor.sql(
                f"SELECT {_KEY_COLUMNS}, c.at AS score FROM read_parquet({_text_list(dataset.facts_paths)}) AS f"
                " LEFT JOIN county_scores AS c ON f.scored AND c.geoid = f.county_fips"
                " AND c.nri_version IS NOT DISTINCT FROM f.nri_version").to_arrow_reader(KEYS_BATCH)
            # A batch at a time, its texts made codes at once: memory holds one batch's texts, never all.
            keys = pa.concat_tables([_compact(batch) for batch in reader]) if dataset.manifest.rows else _compact(reader.read_all())
            labels = {fips: (name, state) for fips, name, state in cursor.execute(
                "SELECT county_fips, any_value(county_name), any_value(county_state) FROM facts"
                " WHERE county_fips IS NOT NULL GROUP BY county_fips").fetchall()}
        else:
            keys, labels = pa.table({"row": pa.array([], pa.int64())}), {}
    prepared = _Prepared(dataset, time.monotonic(), _compact(keys), scores, FilterChoices((), (), ()), labels)
    prepared.choices = _choices(prepared)
    return prepared


def _choices(prepared: _Prepared) -> FilterChoices:
    """Every filter value of the export with its rows: one grouped scan of `keys`."""
    if not prepared.dataset.facts_paths:
        return FilterChoices((), (), ())
    names = ("match_level", "county", "state", "rating", "low_confidence", "status")
    cursor = _cursor(prepared, [])
    try:
        groups = cursor.execute(
            "SELECT " + ", ".join(f"{_KEYS[k]} AS {k}" for k in names) + f", count(*) FROM keys AS k{_SCORES_JOIN}"
            " GROUP BY ALL").fetchall()
    finally:
        cursor.close()
    counts: dict[str, Counter[str]] = {k: Counter() for k in names}
    for *values, rows in groups:
        for name, value in zip(names, values, strict=True):
            counts[name][value] += rows
    labels = {county: county_label(None if county == NO_COUNTY else county, *prepared.labels.get(county, (None, None)))
              for county in counts["county"]}
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
    """The SQL condition of the filters over `keys`, its parameters, and whether it reads the scores."""
    conditions, parameters = [], []
    for name, value in wanted.chosen().items():
        if value is not None:
            conditions.append(f"{_KEYS[name]} = ?")
            parameters.append(value)
    if wanted.search:  # the rows found (_Prepared.rows_found), registered as `found`
        conditions.append("k.row IN (SELECT row FROM found)")
    return (" WHERE " + " AND ".join(conditions)) if conditions else "", parameters, wanted.rating is not None


def _answer(prepared: _Prepared, query: RowsQuery) -> RowsAnswer:
    total = prepared.dataset.manifest.rows
    wanted, order = query.wanted, query.order
    if not prepared.dataset.facts_paths:
        return RowsAnswer(0, [], prepared.choices)
    if wanted.is_empty and order.column is None:
        end = min(total, query.offset + query.limit)
        return RowsAnswer(total, _rows_of(prepared, _places(prepared, query.offset, end), None), prepared.choices)
    where, parameters, needs_scores = _where(wanted)
    join = _SCORES_JOIN if needs_scores or order.column is not None else ""
    sort = (f"s.{_quoted(order.column)} {'DESC' if order.descending else 'ASC'} NULLS LAST, " if order.column else "")
    cursor = _cursor(prepared)
    try:
        if wanted.search:
            cursor.register("found", prepared.rows_found(cursor, wanted.search))
        picked = cursor.execute(
            f"SELECT k.file, k.at, k.row FROM keys AS k{join}{where} ORDER BY {sort}k.row LIMIT ? OFFSET ?",
            [*parameters, query.limit, query.offset]).fetchall()
        if wanted.is_empty:
            matching = total
        elif 0 < len(picked) < query.limit or (not picked and query.offset == 0):
            matching = query.offset + len(picked)  # the page reached the last matching row
        else:
            count_join = _SCORES_JOIN if needs_scores else ""
            matching = cursor.execute(f"SELECT count(*) FROM keys AS k{count_join}{where}", parameters).fetchone()[0]
    finally:
        cursor.close()
    return RowsAnswer(matching, _rows_of(prepared, picked, order.column), prepared.choices)


def _places(prepared: _Prepared, start: int, end: int) -> list[tuple[int, int, int | None]]:
    """(file, place in the file, row unknown) of the positions start..end-1."""
    places: list[tuple[int, int, int | None]] = []
    for file, chunk in enumerate(prepared.dataset.chunks):
        first, last = max(start, chunk.first_row), min(end, chunk.first_row + chunk.rows)
        places += [(file, position - chunk.first_row, None) for position in range(first, last)]
    return places


def _rows_of(prepared: _Prepared, places: Sequence[tuple[int, int, int | None]], sort_column: str | None) -> list[ViewerRow]:
    """The rows at each (file, place, row), in that order: read from the files holding them, and
    only those rows (by `row`, which each file's statistics bound, when known; else by place)."""
    if not places:
        return []
    files = sorted({file for file, _, _ in places})
    paths = [prepared.dataset.facts_paths[file] for file in files]
    rows = [row for _, _, row in places if row is not None]
    if len(rows) == len(places):
        wanted, parameters = "f.row IN (SELECT unnest(?::BIGINT[]))", [rows]
    else:  # positions in input order: a span of one or two files
        wanted, parameters = " OR ".join(
            f"(f.file_index = {at} AND f.file_row_number BETWEEN {min(p for f_, p, _ in places if f_ == file)}"
            f" AND {max(p for f_, p, _ in places if f_ == file)})" for at, file in enumerate(files)), []
    inputs = [f"f.{input_name(i)}" for i in range(len(prepared.dataset.manifest.user_columns))]
    sort = f"s.{_quoted(sort_column)}" if sort_column else "NULL::DOUBLE"
    cursor = _cursor(prepared, paths)
    try:
        found = cursor.execute(
            "SELECT f.file_index, f.file_row_number, " + ", ".join(f"f.{name}" for name in _ROW_FIELDS)
            + f', s."Total_Score", s.risk_rating, s.top_3, {sort}, [' + ", ".join(inputs) + "]::VARCHAR[]"
            + " FROM facts AS f LEFT JOIN scores AS s ON f.scored AND s.geoid = f.county_fips"
            " AND s.nri_version IS NOT DISTINCT FROM f.nri_version WHERE " + wanted, parameters).fetchall()
    finally:
        cursor.close()
    by_place = {(files[file_index], number): _viewer_row(prepared, files[file_index], number, rest)
                for file_index, number, *rest in found}
    return [by_place[(file, place)] for file, place, _ in places if (file, place) in by_place]


def _viewer_row(prepared: _Prepared, file: int, number: int, found: list[Any]) -> ViewerRow:
    (row, address, status, message, match_level, low_confidence, county_fips, county_name, county_state,
     occupant_count, naics_codes, total_score, rating, top_3, sort_score, values) = found
    return ViewerRow(
        index=prepared.dataset.chunks[file].first_row + number, row=row, address=address or "", status=status or None,
        message=message or None, match_level=match_level or None, low_confidence=low_confidence,
        county_fips=county_fips or None, county_name=county_name or None, county_state=county_state or None,
        total_score=total_score, rating=rating or None, top_3=top_3 or None, occupant_count=occupant_count,
        naics_codes=naics_codes or None, values=tuple(values), sort_score=sort_score,
    )

"""An export's portfolio summary (domain/portfolio.py) by DuckDB group-bys over its columnar
dataset (issue #27), for any peril and any of the user's columns as the value, when it is asked
for: nothing is tallied while the batch runs, nothing but the dataset is stored.

Three reads of the facts, whatever the size of the book:
1. one scan grouped three ways (GROUPING SETS): by county score set x sector (with the value's
   count and sum), by the headline's keys (status, match level, low confidence, occupants,
   building), and by tract score set; each a few thousand groups at a million rows;
2. the riskiest 50 of the chosen peril (a top-N over the rows joined to that peril's scores);
3. their positions in the export (one count of the rows before each).
Every per-peril figure (histograms, ratings, value by rating, counties, sectors, tracts) is then a
group-by over the small grouped tables joined to the export's own score rows, with the 19 perils
unnested as lists. The user's numbers are read in SQL exactly as domain/portfolio.parse_value reads
them (tested against it). Counts of located and not located come from the `status` column, as
the viewer and the downloads count them."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import duckdb
import pyarrow as pa

from adapters.results.dataset import ExportDataset, ParquetCache
from application.portfolio import PortfolioQuery
from application.ports.files import FileStore
from application.ports.results import ExportManifest

from domain.perils import HAZARDS
from domain.row_facts import input_name
from domain.portfolio import (
    BIN_COUNT,
    BUILDING_FIELDS,
    HIGH_RATINGS,
    NO_OCCUPANTS,
    NO_RATING,
    NOT_COVERED,
    NOT_LOCATED,
    PERIL_IDS,
    PERIL_NAMES,
    SECTOR_OF_PREFIX,
    TOP_COUNT,
    CountyExposure,
    Headline,
    PerilDistribution,
    PortfolioSummary,
    RiskyLocation,
    SectorMix,
    TractDistribution,
    TractSummary,
    ValueByRating,
    ValueSummary,
    first_line,
    parse_value,
    most_common,
    rating_field,
    score_field,
    top_hazards,
    tract_releases,
)

# --- the user's number, as domain/portfolio.parse_value reads it -------------------------------
# A text of ASCII characters only (nearly every cell) is read in SQL: one regexp_replace takes
# away what parse_value takes away (str.strip()'s ASCII whitespace at both ends, then one leading
# "'", the formula guard, then every ',' '$' ' '), then a plain decimal number is matched and
# cast. A text with any other character is read by parse_value itself, as a Python function of
# DuckDB's: SQL can say Unicode's whitespace and every script's digits (which str.strip(), \d and
# float() take), but translate() over 650 digits cost 185 us a cell, and trim() over Unicode
# whitespace 6 us (1 M cells: three minutes, six seconds); such cells are rare.
_ASCII_SPACE = r"[\t\n\x0b\x0c\r\x1c-\x1f ]"
# Leftmost alternative first: never an empty match (it would step over a '$' at the start).
_NOISE = rf"^{_ASCII_SPACE}+'?|^'|{_ASCII_SPACE}+$|[,$ ]"
# Python's `$` also matches before a final newline, and float() reads "5\n".
_NUMBER = r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\n?"
_SPACES = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in map(chr, range(0x110000)) if c.isspace()) + "]*"
PARSE_VALUE = "perilscope_parse_value"  # parse_value, as a function of the cursor's (register_parse_value)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def register_parse_value(cursor: duckdb.DuckDBPyConnection) -> None:
    """parse_value as a DuckDB function (for cells with other than ASCII characters): once per
    database, where every cursor of the connection finds it."""
    try:
        cursor.create_function(PARSE_VALUE, parse_value, ["VARCHAR"], "DOUBLE", null_handling="special",
                               side_effects=False)
    except duckdb.CatalogException:
        pass  # registered already


def value_sql(cell: str, source: str) -> str:
    """A query of `source`'s columns and `v`, the number of the text `cell` (an SQL expression of
    `source`'s columns) as parse_value reads it, NULL if none; `pv_cell` its text. In steps, so no
    text is cleaned twice: a plain number is cast at once; a cell that neither begins nor ends
    with whitespace or begins with "'" loses its ',' '$' ' ' by replace(); the rest by _NOISE."""
    clean = _NUMBER.removesuffix(r"\n?")
    plain_ends = "ascii(pv_cell) > 32 AND ascii(pv_cell) <> 39 AND ascii(right(pv_cell, 1)) > 32"
    return f"""
    SELECT * EXCLUDE (pv_ascii, pv_clean, pv_bare, pv_number),
           CASE WHEN isfinite(pv_number) THEN pv_number END AS v
    FROM (
        SELECT *, CASE WHEN pv_cell IS NULL THEN NULL WHEN NOT pv_ascii THEN {PARSE_VALUE}(pv_cell)
                       WHEN pv_clean THEN TRY_CAST(pv_cell AS DOUBLE)
                       WHEN regexp_full_match(pv_bare, {_literal(_NUMBER)}) THEN TRY_CAST(rtrim(pv_bare, chr(10)) AS DOUBLE)
                  END AS pv_number
        FROM (
            SELECT *, CASE WHEN pv_clean OR NOT pv_ascii THEN NULL
                           WHEN {plain_ends} THEN replace(replace(replace(pv_cell, ',', ''), '$', ''), ' ', '')
                           ELSE regexp_replace(pv_cell, {_literal(_NOISE)}, '', 'g') END AS pv_bare
            FROM (
                SELECT *, strlen(pv_cell) = length(pv_cell) AS pv_ascii,
                       regexp_full_match(pv_cell, {_literal(clean)}) AS pv_clean
                FROM (SELECT *, {cell} AS pv_cell FROM {source}))))"""


def blank_sql(cell: str) -> str:
    """Whether the cell is blank: missing, or nothing but whitespace (str.strip()'s)."""
    return f"({cell} IS NULL OR regexp_full_match({cell}, {_literal(_SPACES)}))"


def parse_values(cursor: duckdb.DuckDBPyConnection, cells: Sequence[str | None]) -> list[tuple[float | None, bool]]:
    """The cells as the summary reads them: (number, blank) each (tests compare it with parse_value)."""
    register_parse_value(cursor)
    rows = cursor.execute(
        f"SELECT v, {blank_sql('c')} FROM ({value_sql('c', '(SELECT unnest(range(len($1))) AS i, unnest($1) AS c)')}) ORDER BY i",
        [list(cells)],
    ).fetchall()
    return [(number, bool(blank)) for number, blank in rows]


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# --- the grouped tables ------------------------------------------------------------------------

_SCORES = [score_field(peril) for peril in PERIL_IDS]
_RATINGS = [rating_field(peril) for peril in PERIL_IDS]
_NOT_LOCATED = _literal(NOT_LOCATED)
_SECTOR_CASES = " ".join(f"WHEN '{prefix}' THEN '{sector}'" for prefix, sector in SECTOR_OF_PREFIX.items())
# NAICS codes are our own ASCII codes joined by spaces: the first that begins with two digits.
_PREFIX = r"regexp_extract(coalesce(naics_codes, ''), '(?:^|\s)([0-9]{2})', 1)"
_SECTOR = (f"(CASE WHEN {_PREFIX} <> '' THEN (CASE {_PREFIX} {_SECTOR_CASES} ELSE {_PREFIX} END) "
           f"WHEN located AND occupant_count IS NULL THEN '{NOT_COVERED}' ELSE '{NO_OCCUPANTS}' END)")
_BUILDING = " OR ".join(f"({name} IS NOT NULL AND CAST({name} AS VARCHAR) <> '')" for name in BUILDING_FIELDS)


def _score_list(alias: str) -> str:
    """The 19 scores of a score row as a list (PERIL_IDS order); NaN and infinities unknown."""
    return "[" + ", ".join(f"CASE WHEN isfinite({alias}.{name}) THEN {alias}.{name} END" for name in _SCORES) + "]"


def _rating_list(alias: str, *, unrated: str | None = _literal(NO_RATING)) -> str:
    default = unrated or "NULL"
    return "[" + ", ".join(f"coalesce(nullif({alias}.{name}, ''), {default})" for name in _RATINGS) + "]"


def _bin(score: str) -> str:
    """domain/portfolio.score_bin in SQL (CPython's float floor division, for scores in 0-100)."""
    return (f"(CASE WHEN {score} >= 100 THEN {BIN_COUNT - 1} WHEN {score} > 0 "
            f"THEN CAST(round(({score} - fmod({score}, 10.0)) / 10.0) AS INTEGER) ELSE 0 END)")


def _county_join(cells: str, scores: str) -> str:
    return (f"{scores}.level = 'county' AND {cells}.scored AND {scores}.geoid = {cells}.county_fips "
            f"AND {scores}.nri_version IS NOT DISTINCT FROM {cells}.nri_version")


def _tract_join(cells: str, scores: str) -> str:
    return (f"{scores}.level = 'tract' AND {cells}.tract_scored AND {scores}.geoid = {cells}.tract_geoid "
            f"AND {scores}.nri_version IS NOT DISTINCT FROM {cells}.tract_nri_version")


def _grouped_sql(facts: str, value: str | None) -> str:
    """One scan of the facts grouped three ways (module doc); `value` the value's column."""
    rows = f"""SELECT row, county_fips, county_name, county_state, nri_version, coalesce(scored, FALSE) AS scored,
                      tract_geoid, tract_nri_version, coalesce(tract_scored, FALSE) AS tract_scored,
                      status, match_level, coalesce(low_confidence, FALSE) AS low_confidence, occupant_count,
                      naics_codes, ({_BUILDING}) AS building, coalesce(status, '') <> {_NOT_LOCATED} AS located
                      {', ' + value if value else ''}
               FROM {facts}"""
    if value:
        rows = value_sql(value, f"({rows})")
        blank = f"CASE WHEN v IS NOT NULL THEN FALSE ELSE {blank_sql('pv_cell')} END"
    else:
        rows = f"SELECT *, CAST(NULL AS DOUBLE) AS v FROM ({rows})"
        blank = "TRUE"
    return f"""
    SELECT GROUPING(county_fips, nri_version, scored, sector) = 0 AS is_cell,
           GROUPING(status, match_level, low_confidence, occupants, building) = 0 AS is_head,
           county_fips, nri_version, scored, sector,
           status, match_level, low_confidence, occupants, building,
           tract_geoid, tract_nri_version, tract_scored,
           count(*) AS n, min(row) AS first,
           arg_min(county_name, row) AS county_name, arg_min(county_state, row) AS county_state,
           count(v) AS vn, fsum(v) AS vs, count(*) FILTER (WHERE {blank}) AS blank
    FROM (
        SELECT *, {_SECTOR} AS sector,
               CASE WHEN occupant_count > 0 THEN 'some' WHEN occupant_count IS NULL THEN 'unknown' ELSE 'none' END
                   AS occupants
        FROM ({rows}))
    GROUP BY GROUPING SETS (
        (county_fips, nri_version, scored, sector),
        (status, match_level, low_confidence, occupants, building),
        (county_fips, nri_version, scored, tract_geoid, tract_nri_version, tract_scored)
    )
    """


# The score columns the summary reads, each (level, geoid, nri_version) once.
_SCORE_COLUMNS = ", ".join(["level", "geoid", "nri_version", *_SCORES, *_RATINGS])
SCORES_SQL = f"SELECT DISTINCT ON (level, geoid, nri_version) {_SCORE_COLUMNS} FROM scores"


def grouped_sql(user_columns: Sequence[str], value_column: str | None, facts: str = "facts") -> str:
    """The grouped table's query for this value column (one of `user_columns`, or None)."""
    value = _quoted(input_name(list(user_columns).index(value_column))) if value_column is not None else None
    return _grouped_sql(facts, value)


def summarise(cursor: duckdb.DuckDBPyConnection, user_columns: Sequence[str], value_column: str | None,
              peril: str, *, facts: str = "facts", positions: Mapping[str, int] | None = None,
              top: int = TOP_COUNT) -> PortfolioSummary:
    """The summary of the dataset behind the `facts` and `scores` views of `cursor` (its own:
    temporary tables are made on it), computed afresh (tests; PortfolioQueries keeps the grouped
    tables). `value_column` is one of `user_columns` or None; `peril` one of PERIL_IDS."""
    register_parse_value(cursor)
    cursor.execute(f"CREATE OR REPLACE TEMP TABLE pf_scores AS {SCORES_SQL}")
    cursor.execute(f"CREATE OR REPLACE TEMP TABLE pf_groups AS {grouped_sql(user_columns, value_column, facts)}")
    try:
        return summary_of(cursor, value_column, peril, facts=facts, positions=positions, top=top)
    finally:
        cursor.execute("DROP TABLE IF EXISTS pf_groups")
        cursor.execute("DROP TABLE IF EXISTS pf_scores")


def summary_of(cursor: duckdb.DuckDBPyConnection, value_column: str | None, peril: str, *, facts: str = "facts",
               positions: Mapping[str, int] | None = None, top: int = TOP_COUNT,
               kept: PortfolioSummary | None = None) -> PortfolioSummary:
    """The summary from the relations `pf_scores` (SCORES_SQL) and `pf_groups` (grouped_sql) of
    `cursor`, and `facts` for the riskiest. `positions`: each facts file's first position in the
    export, when `facts` is read with `filename` and `file_row_number` (else positions are counted).
    `kept`: a summary of the same value column, for another peril: only what the peril changes
    (the riskiest, the sectors by rating) is computed again."""
    position = PERIL_IDS.index(peril) + 1  # lists are 1-based in SQL
    run = cursor.execute
    # The county cells with their score set as lists (19 scores, 19 ratings, the raw composite rating).
    run(f"""CREATE OR REPLACE TEMP TABLE pf_cells AS
        SELECT c.county_fips, c.sector, c.n, c.first, c.county_name, c.county_state, c.vn, c.vs,
               {_score_list('s')} AS sc, {_rating_list('s')} AS ra, nullif(s.risk_rating, '') AS composite_rating
        FROM (SELECT * FROM pf_groups WHERE is_cell) c LEFT JOIN pf_scores s ON {_county_join('c', 's')}""")
    try:
        if kept is not None:
            sectors = _sectors(run, position)
            riskiest = _riskiest(run, facts, position, top, positions)
            return replace(kept, ranked_by=peril, riskiest=riskiest, sectors=sectors)
        headline = _headline(run)
        distributions, by_rating = _distributions(run, headline.rows)
        counties = _counties(run, value_column is not None)
        sectors = _sectors(run, position)
        riskiest = _riskiest(run, facts, position, top, positions)
        tracts = _tracts(run)
        value_summary = None
        if value_column is not None:
            vn, total, blank = run("SELECT sum(vn), fsum(vs), sum(blank) FROM pf_groups WHERE is_cell").fetchone() or (0, 0, 0)
            parsed, blank = int(vn or 0), int(blank or 0)
            value_summary = ValueSummary(
                column=value_column, total=float(total or 0.0), parsed=parsed, blank=blank,
                unparsed=headline.rows - parsed - blank,
                by_rating=[ValueByRating(p, by_rating.get(i, {})) for i, p in enumerate(PERIL_IDS)],
            )
    finally:
        run("DROP TABLE IF EXISTS pf_cells")
    return PortfolioSummary(headline, distributions, counties, value_summary, peril, riskiest, sectors, tracts)


def _headline(run: Any) -> Headline:
    groups = run("""SELECT status, match_level, low_confidence, occupants, building, n, first
                    FROM pf_groups WHERE is_head""").fetchall()
    rows = located = low = not_located = with_occupants = not_covered = with_building = 0
    levels: dict[str, int] = {}
    statuses: dict[str, int] = {}
    first: dict[str, int] = {}
    status_first: dict[str, int] = {}
    for status, level, low_confidence, occupants, building, n, first_row in groups:
        rows += n
        status_name = status or NOT_LOCATED
        statuses[status_name] = statuses.get(status_name, 0) + n
        status_first[status_name] = min(status_first.get(status_name, first_row), first_row)
        if status == NOT_LOCATED or status is None:
            not_located += n
        else:
            located += n
            level = level or "none"
            levels[level] = levels.get(level, 0) + n
            first[level] = min(first.get(level, first_row), first_row)
            not_covered += n if occupants == "unknown" else 0
        low += n if low_confidence else 0
        with_occupants += n if occupants == "some" else 0
        with_building += n if building else 0
    return Headline(
        rows=rows, located=located, located_by_match_level=most_common(levels, first), low_confidence=low,
        not_located=not_located, with_occupants=with_occupants, with_building_record=with_building,
        occupants_not_covered=not_covered, by_status=most_common(statuses, status_first),
    )


def _distributions(run: Any, total: int) -> tuple[list[PerilDistribution], dict[int, dict[str, float]]]:
    unnested = "SELECT n, first, vn, vs, unnest(range(19)) AS i, unnest(sc) AS s, unnest(ra) AS r FROM pf_cells"
    bins: dict[int, list[int]] = {i: [0] * BIN_COUNT for i in range(len(PERIL_IDS))}
    for i, bin_, n in run(f"SELECT i, {_bin('s')}, sum(n) FROM ({unnested}) WHERE s IS NOT NULL GROUP BY ALL").fetchall():
        bins[i][bin_] = int(n)
    ratings: dict[int, dict[str, int]] = {}
    firsts: dict[int, dict[str, int]] = {}
    values: dict[int, dict[str, float]] = {}
    value_firsts: dict[int, dict[str, int]] = {}
    rows = run(f"""SELECT i, r, sum(n), min(first), fsum(vs) FILTER (WHERE vn > 0), min(first) FILTER (WHERE vn > 0)
                   FROM ({unnested}) GROUP BY ALL""").fetchall()
    for i, rating, n, first, value, value_first in rows:
        ratings.setdefault(i, {})[rating] = int(n)
        firsts.setdefault(i, {})[rating] = first
        if value_first is not None:
            values.setdefault(i, {})[rating] = float(value)
            value_firsts.setdefault(i, {})[rating] = value_first
    distributions = []
    for i, peril in enumerate(PERIL_IDS):
        counts = ratings.get(i, {})
        scored = sum(bins[i])
        distributions.append(PerilDistribution(
            peril=peril, name=PERIL_NAMES[peril], bins=bins[i], scored=scored, unknown=total - scored,
            high=sum(n for rating, n in counts.items() if rating in HIGH_RATINGS),
            ratings=most_common(counts, firsts.get(i)),
        ))
    # The value by rating in the order its ratings are first seen.
    by_rating = {i: dict(sorted(sums.items(), key=lambda item: value_firsts[i][item[0]])) for i, sums in values.items()}
    return distributions, by_rating


def _counties(run: Any, with_value: bool) -> list[CountyExposure]:
    rows = run("""SELECT county_fips, sum(n) AS locations, fsum(vs) FILTER (WHERE vn > 0),
                         arg_min(county_name, first), arg_min(county_state, first),
                         arg_min(struct_pack(sc := sc, rating := composite_rating), first)
                             FILTER (WHERE list_count(sc) > 0)
                  FROM pf_cells WHERE county_fips IS NOT NULL AND county_fips <> ''
                  GROUP BY county_fips ORDER BY locations DESC, county_fips""").fetchall()
    counties = []
    for fips, locations, value, name, state, scores in rows:
        known = scores["sc"] if scores else [None] * len(PERIL_IDS)
        counties.append(CountyExposure(
            county_fips=fips, county_name=name, state=state, locations=int(locations),
            composite_score=known[0], composite_rating=scores["rating"] if scores else None,
            top_hazards=top_hazards({h.code: s for h, s in zip(HAZARDS, known[1:], strict=True)}),
            value=float(value or 0.0) if with_value else None,
        ))
    return counties


def _sectors(run: Any, position: int) -> list[SectorMix]:
    rows = run(f"""SELECT sector, ra[{position}] AS r, sum(n), min(first) FROM pf_cells GROUP BY ALL""").fetchall()
    counts: dict[str, dict[str, int]] = {}
    firsts: dict[str, dict[str, int]] = {}
    for sector, rating, n, first in rows:
        counts.setdefault(sector, {})[rating] = int(n)
        firsts.setdefault(sector, {})[rating] = first
    mixes = [SectorMix(sector=sector, name=None, locations=sum(by.values()), ratings=most_common(by, firsts[sector]))
             for sector, by in counts.items()]
    return sorted(mixes, key=lambda mix: (-mix.locations, mix.sector))


def _riskiest(run: Any, facts: str, position: int, top: int, positions: Mapping[str, int] | None) -> list[RiskyLocation]:
    """The `top` rows of the highest score of the peril, ties in file order: the lowest score
    they reach is known from the cells, so the scan joins only the score sets that reach it, and
    the rows' texts are read for those rows alone."""
    score, rating = _SCORES[position - 1], _RATINGS[position - 1]
    floor, seen = None, 0
    for value, rows in run(f"""SELECT sc[{position}] AS s, sum(n) FROM pf_cells WHERE s IS NOT NULL
                               GROUP BY s ORDER BY s DESC""").fetchall():
        floor, seen = value, seen + rows
        if seen >= top:
            break
    if floor is None or top <= 0:
        return []
    where = ", f.filename, f.file_row_number" if positions is not None else ""
    ranked = run(f"""
        WITH peril AS (
            SELECT geoid, nri_version, {score} AS score, nullif({rating}, '') AS rating FROM pf_scores
            WHERE level = 'county' AND isfinite({score}) AND {score} >= ?)
        SELECT f.row, p.score, p.rating {where}
        FROM {facts} f JOIN peril p ON p.geoid = f.county_fips AND p.nri_version IS NOT DISTINCT FROM f.nri_version
        WHERE f.scored
        ORDER BY p.score DESC, f.row LIMIT {int(top)}""", [floor]).fetchall()
    if not ranked:
        return []
    if positions is not None:  # each file's first position, and the row's place in its file
        indexes = [positions[r[3]] + r[4] for r in ranked]
    else:
        indexes = run("SELECT " + ", ".join(f"count(*) FILTER (WHERE row < {int(r[0])})" for r in ranked)
                      + f" FROM {facts}").fetchone()
    lines = ", ".join(str(int(r[0])) for r in ranked)
    details = {r[0]: r[1:] for r in run(f"""
        SELECT row, normalized_address, address, county_fips, county_name, county_state, nri_version, tract_geoid,
               tract_nri_version, coalesce(tract_scored, FALSE)
        FROM {facts} WHERE row IN ({lines})""").fetchall()}
    tract_keys = {(d[6], d[7]) for d in details.values() if d[8]}
    tract_scores: dict[tuple[Any, Any], tuple[float | None, str | None]] = {}
    if tract_keys:
        found = run(f"""SELECT geoid, nri_version, CASE WHEN isfinite({score}) THEN {score} END, nullif({rating}, '')
                        FROM pf_scores WHERE level = 'tract'""").fetchall()
        tract_scores = {(g, v): (s, r) for g, v, s, r in found if (g, v) in tract_keys}
    located = []
    for index, (row, value, peril_rating, *_) in zip(indexes, ranked, strict=True):
        normalized, address, fips, name, state, version, geoid, tract_version, tract_scored = details[row]
        tract_score, tract_rating = tract_scores.get((geoid, tract_version), (None, None)) if tract_scored else (None, None)
        located.append(RiskyLocation(
            index=int(index), row=int(row), address=str(normalized or first_line(address)),
            county_fips=fips, county_name=name, state=state, score=float(value), rating=peril_rating,
            nri_version=version or None, tract_score=tract_score, tract_rating=tract_rating,
            tract_nri_version=tract_version or None,
        ))
    return located


def _tracts(run: Any) -> TractSummary | None:
    run(f"""CREATE OR REPLACE TEMP TABLE pf_tracts AS
        SELECT g.n, g.first, g.tract_nri_version, g.nri_version,
               {_score_list('t')} AS sc, {_rating_list('t', unrated=None)} AS ra,
               {_rating_list('c', unrated=None)} AS county_ra
        FROM (SELECT * FROM pf_groups WHERE NOT is_cell AND NOT is_head AND tract_scored) g
        LEFT JOIN pf_scores t ON {_tract_join('g', 't')}
        LEFT JOIN pf_scores c ON {_county_join('g', 'c')}""")
    versions = run("SELECT tract_nri_version, nri_version, sum(n), min(first) FROM pf_tracts GROUP BY ALL").fetchall()
    if not versions:
        run("DROP TABLE IF EXISTS pf_tracts")
        return None
    locations = sum(int(n) for _, _, n, _ in versions)
    releases = tract_releases((t, c, int(n), first) for t, c, n, first in versions)
    high = ", ".join(f"'{rating}'" for rating in sorted(HIGH_RATINGS))
    unnested = ("SELECT n, unnest(range(19)) AS i, unnest(sc) AS s, unnest(ra) AS r, unnest(county_ra) AS cr "
                "FROM pf_tracts")
    figures = {i: (int(scored or 0), int(tract_high or 0), int(county_high or 0)) for i, scored, tract_high, county_high in run(f"""
        SELECT i, sum(n) FILTER (WHERE s IS NOT NULL), sum(n) FILTER (WHERE r IN ({high})),
               sum(n) FILTER (WHERE cr IN ({high}))
        FROM ({unnested}) GROUP BY i""").fetchall()}
    bins: dict[int, list[int]] = {i: [0] * BIN_COUNT for i in range(len(PERIL_IDS))}
    for i, bin_, n in run(f"SELECT i, {_bin('s')}, sum(n) FROM ({unnested}) WHERE s IS NOT NULL GROUP BY ALL").fetchall():
        bins[i][bin_] = int(n)
    run("DROP TABLE IF EXISTS pf_tracts")
    distributions = []
    for i, peril in enumerate(PERIL_IDS):
        scored, tract_high, county_high = figures.get(i, (0, 0, 0))
        distributions.append(TractDistribution(
            peril=peril, name=PERIL_NAMES[peril], bins=bins[i], scored=scored, unknown=locations - scored,
            high=tract_high, county_high=county_high,
        ))
    return TractSummary(locations=locations, by_version=releases.by_version, county_versions=releases.county_versions,
                        other_release=releases.other_release, distributions=distributions)


# --- an export's summaries, its grouped tables kept ------------------------------------------

KEPT_EXPORTS = 8
KEPT_VALUE_COLUMNS = 4  # grouped tables an export keeps (no value column, and the last others asked)
# A dataset's local paths are trusted this long (S3 copies stay in their cache 600 s after use).
PATHS_SECONDS = 300.0


@dataclass(slots=True)
class _Prepared:
    """What an export keeps between summaries: its dataset (files' paths), its score rows (the
    columns read, each set once: a few thousand rows) and its grouped tables by value column (a
    few thousand rows each). Nothing per row."""

    dataset: ExportDataset
    opened: float
    scores: pa.Table | None = None
    groups: OrderedDict[str | None, pa.Table] = field(default_factory=OrderedDict)
    # A summary by value column: another peril changes only its riskiest and its sectors.
    summaries: dict[str | None, PortfolioSummary] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def summary(self, value_column: str | None, peril: str) -> PortfolioSummary:
        dataset = self.dataset
        with self.lock, dataset.cursor() as cursor:
            register_parse_value(cursor)
            if self.scores is None:
                self.scores = cursor.sql(SCORES_SQL).to_arrow_table()
            groups = self.groups.get(value_column)
            if groups is None:
                groups = cursor.sql(grouped_sql(dataset.user_columns, value_column)).to_arrow_table()
                self.groups[value_column] = groups
                while len(self.groups) > KEPT_VALUE_COLUMNS:
                    gone, _ = self.groups.popitem(last=False)
                    self.summaries.pop(gone, None)
            self.groups.move_to_end(value_column)
            cursor.register("pf_scores", self.scores)
            cursor.register("pf_groups", groups)
            kept = self.summaries.get(value_column)
            if not dataset.facts_paths:
                summary = summary_of(cursor, value_column, peril, kept=kept)
            else:
                files = "[" + ", ".join(_literal(path) for path in dataset.facts_paths) + "]"
                cursor.execute("CREATE OR REPLACE TEMP VIEW pf_facts AS SELECT * FROM "
                               f"read_parquet({files}, filename = true, file_row_number = true)")
                positions = {path: chunk.first_row for path, chunk in zip(dataset.facts_paths, dataset.chunks, strict=True)}
                summary = summary_of(cursor, value_column, peril, facts="pf_facts", positions=positions, kept=kept)
            self.summaries[value_column] = summary
            return summary


class PortfolioQueries:
    """`ExportQueries.portfolio` (application/ports/results.py) over the store's files: the
    summary for any peril and value column, by group-bys when asked. An export's grouped tables are
    kept (a few exports, least recently used out): another peril reads only the riskiest from the
    files, another value column one grouped scan."""

    def __init__(self, files: FileStore, cache: ParquetCache | None = None, kept: int = KEPT_EXPORTS) -> None:
        self._files = files
        self._cache = cache
        self._kept = kept
        self._prepared: OrderedDict[tuple[str, ...], _Prepared] = OrderedDict()
        self._preparing: dict[tuple[str, ...], asyncio.Lock] = {}

    async def portfolio(self, manifest: ExportManifest, query: PortfolioQuery) -> PortfolioSummary:
        if query.value_column is not None and query.value_column not in manifest.user_columns:
            raise ValueError(f"{query.value_column!r} is not a column of the export")
        prepared = await self._prepare(manifest)
        return await asyncio.to_thread(prepared.summary, query.value_column, query.peril)

    async def _prepare(self, manifest: ExportManifest) -> _Prepared:
        key = (*manifest.keys, *manifest.user_columns)  # a chunk claim's files are its own: they name the export
        lock = self._preparing.setdefault(key, asyncio.Lock())
        async with lock:
            prepared = self._prepared.get(key)
            if prepared is None or time.monotonic() - prepared.opened >= PATHS_SECONDS:
                dataset = await ExportDataset.open(self._files, manifest, self._cache)
                if prepared is None:
                    prepared = _Prepared(dataset, time.monotonic())
                else:  # the same files: only their paths are looked at again
                    prepared.dataset, prepared.opened = dataset, time.monotonic()
            self._prepared[key] = prepared
            self._prepared.move_to_end(key)
            while len(self._prepared) > self._kept:
                gone, _ = self._prepared.popitem(last=False)
                self._preparing.pop(gone, None)
            return prepared

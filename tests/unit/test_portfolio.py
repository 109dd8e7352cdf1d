"""The portfolio summary by group-bys over an export's dataset (adapters/results/portfolio.py) on a
small hand-made book written with the real chunk writer: unknown scores stay out of the histograms,
a value column with bad cells is summed from the readable ones, and the counts add up; its figures
equal a pandas computation on the same rows, for any rows, chunking, peril and value column; the
user's numbers are read in SQL exactly as parse_value reads them."""

from __future__ import annotations

import asyncio
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from adapters.files.local import LocalFileStore
from adapters.results.dataset import ExportDataset
from adapters.results.portfolio import PortfolioQueries, parse_values, summarise as summarise_sql
from application.portfolio import PortfolioQuery
from domain.address import BuildingKey
from domain.lookup_result import Location, LookupResult, Provenance, TractPerils, not_located
from domain.occupancy import Building, GeoPoint, Occupant, OccupantCoverage, ParsedAddress
from domain.perils import HAZARDS, PerilScores
from domain.portfolio import (
    BIN_COUNT, COMPOSITE, HIGH_RATINGS, NO_OCCUPANTS, NO_RATING, NOT_COVERED, NOT_LOCATED, PERIL_IDS, TOP_COUNT,
    PortfolioSummary, first_line, naics_sector, parse_value, rating_field, score_bin, score_field, sector_of,
    top_hazards, tract_releases, with_sector_names,
)
from domain.row_facts import facts_of, score_rows
from tests.support.result_dataset import Row, batch_rows, write_dataset

V119, V120 = "1.19.0 (March 2023)", "1.20.0 (December 2025)"


def answer(
    row: int, *, fips: str | None = "53033", total: float | None = 50.0, rating: str | None = "Relatively Moderate",
    match: str = "building", naics: str = "", occupants: int | None = 0, low: bool = False, building: bool = False,
    hazard: dict[str, float | None] | None = None, version: str | None = "1.20.0",
    tract: tuple[float | None, str | None, str | None, float | None] | None = None,
) -> LookupResult:
    """A row's answer as the lookup gives it. `naics`: the occupants' codes, most common first
    (the first code repeated to make up `occupants`); `occupants` None: no source covers it.
    `tract`: (composite, rating, release, earthquake score) of its census tract."""
    if fips is None:
        return not_located(f"{row} Nowhere", "could not read", "2026-11-28T10:00:00+00:00", f"s{row}")
    address = ParsedAddress(f"{row} Main St", "Town", "ST", "00000", None, BuildingKey(f"{row} MAIN ST", "00000"))
    codes = naics.split()
    people: tuple[Occupant, ...] = ()
    if occupants:
        filled = [codes[0]] * (occupants - len(codes)) + codes if codes else [None] * occupants
        people = tuple(Occupant(name=f"o{i}", vicinity="here", naics_code=code) for i, code in enumerate(filled))
    scores = {h.code: (hazard or {}).get(h.code, 10.0) for h in HAZARDS}
    ratings = {code: "Very Low" for code, score in scores.items() if score is not None}
    tract_perils = None
    geoid = f"{fips}{row:06d}"
    if tract is not None:
        tract_total, tract_rating, tract_version, quake = tract
        tract_scores = {h.code: (quake if h.code == "ERQK" else None) for h in HAZARDS}
        tract_ratings = {code: "Very High" for code, score in tract_scores.items() if score is not None and score >= 80}
        tract_perils = TractPerils(geoid, fips, PerilScores(tract_scores, tract_ratings, tract_total, tract_rating),
                                   tract_version, "geocoder")
    return LookupResult(
        search_id=f"s{row}", query=f"{row} Main St", address=address,
        location=Location("zip", fips, "King" if fips == "53033" else "Pierce", "WA", 1.0, low,
                          point=GeoPoint(47.6, -122.3, match) if match != "none" else None,
                          tract_geoid=geoid if tract is not None else None),
        perils=PerilScores(scores=scores, ratings=ratings, total=total, total_rating=rating),
        building=Building(address=f"{row} Main St", property_name="Tower") if building else None,
        provenance=Provenance(version, "embedded", "registry", "NRI", None, "2026-11-28T10:00:00+00:00"),
        occupants=people, occupant_coverage=None if occupants is None else OccupantCoverage(True, "registry", "here"),
        tract_perils=tract_perils,
    )


# Pierce's two rows were scored with two NRI releases (a county's scores are one per release).
BOOK: list[Row] = [
    (2, ["2,500,000"], answer(2, total=95.0, rating="Very High", naics="722511 445110", occupants=3, building=True,
                              hazard={"ERQK": 99.0, "VLCN": None})),
    (3, ["$100"], answer(3, total=95.0, rating="Very High", match="census_exact", hazard={"ERQK": 99.0, "VLCN": None})),
    (4, ["n/a"], answer(4, fips="53053", total=None, rating=None, match="zip_centroid", low=True, naics="311811",
                        occupants=1, version="1.19.0")),
    (5, [""], answer(5, fips=None)),
    (6, ["'-50"], answer(6, fips="53053", total=0.0, rating="Very Low", match="zip_centroid")),
]
TRACT_BOOK: list[Row] = [
    (2, BOOK[0][1], answer(2, total=95.0, rating="Very High", naics="722511 445110", occupants=3, building=True,
                           hazard={"ERQK": 99.0, "VLCN": None}, tract=(99.0, "Very High", V119, 99.5))),
    (3, BOOK[1][1], answer(3, total=95.0, rating="Very High", match="census_exact", hazard={"ERQK": 99.0, "VLCN": None},
                           tract=(30.0, "Relatively Low", V119, None))),
    BOOK[2], BOOK[3],
    # The same release written two ways; the tract composite unknown.
    (6, BOOK[4][1], answer(6, fips="53053", total=0.0, rating="Very Low", match="zip_centroid",
                           tract=(None, None, V120, 85.0))),
]


async def summary_of(rows: Sequence[Row], value_column: str | None = None, peril: str = COMPOSITE,
                     columns: Sequence[str] = ("tiv",), chunk_sizes: Sequence[int] = (2,)) -> PortfolioSummary:
    with tempfile.TemporaryDirectory() as root:
        files = LocalFileStore(Path(root))
        written = await write_dataset(files, columns, rows, chunk_sizes=chunk_sizes)
        return await PortfolioQueries(files).portfolio(written.manifest, PortfolioQuery(value_column, peril))


def summarise(rows: Sequence[Row], value_column: str | None = None, peril: str = COMPOSITE,
              sector_names: dict[str, str] | None = None, **kwargs: Any) -> PortfolioSummary:
    summary = asyncio.run(summary_of(rows, value_column, peril, **kwargs))
    return with_sector_names(summary, sector_names or {})


def test_headline_counts_locate_levels_and_what_is_known() -> None:
    summary = summarise(BOOK, value_column="tiv")
    head = summary.headline
    assert head.rows == 5 and head.located == 4 and head.not_located == 1
    assert head.located_by_match_level == {"zip_centroid": 2, "building": 1, "census_exact": 1}
    assert head.low_confidence == 1 and head.with_occupants == 2 and head.with_building_record == 1
    # One count everywhere: the status column the exports and the viewer count by.
    assert head.by_status == {"answered": 4, NOT_LOCATED: 1}


def test_unknown_scores_are_left_out_of_the_histograms_not_counted_as_zero() -> None:
    composite = summarise(BOOK).distributions[0]
    assert composite.peril == COMPOSITE
    # 95, 95 in the top bin; the real 0 in the first; the unknown county and the row not located apart.
    assert composite.bins == [1, 0, 0, 0, 0, 0, 0, 0, 0, 2] and composite.scored == 3 and composite.unknown == 2
    assert composite.high == 2 and composite.ratings["Very High"] == 2 and composite.ratings["no rating"] == 2
    volcano = next(d for d in summarise(BOOK).distributions if d.peril == "VLCN")
    assert volcano.scored == 2 and volcano.unknown == 3 and volcano.bins[1] == 2


def test_the_value_column_sums_readable_cells_and_counts_the_rest() -> None:
    value = summarise(BOOK, value_column="tiv").value
    assert value is not None
    assert value.total == 2_500_100 - 50 and value.parsed == 3 and value.unparsed == 1 and value.blank == 1
    composite = next(v for v in value.by_rating if v.peril == COMPOSITE)
    assert composite.ratings == {"Very High": 2_500_100, "Very Low": -50}


def test_counties_sum_locations_and_value_with_the_countys_scores() -> None:
    counties = summarise(BOOK, value_column="tiv").counties
    assert [(c.county_fips, c.locations, c.value) for c in counties] == [("53033", 2, 2_500_100), ("53053", 2, -50)]
    king = counties[0]
    assert king.composite_score == 95.0 and king.composite_rating == "Very High"
    assert king.top_hazards[0].peril == "ERQK" and len(king.top_hazards) == 3
    # Pierce's first row has no composite; its scores still come from that row, unknown stays unknown.
    assert counties[1].composite_score is None
    assert summarise(BOOK).counties[0].value is None  # no value column: no sums, not 0


def test_the_riskiest_are_ranked_by_the_chosen_peril_ties_in_file_order(tmp_path: Path) -> None:
    top = summarise(BOOK).riskiest
    assert [(r.index, r.row, r.score) for r in top] == [(0, 2, 95.0), (1, 3, 95.0), (4, 6, 0.0)]
    by_quake = summarise(BOOK, peril="ERQK").riskiest
    assert [r.score for r in by_quake] == [99.0, 99.0, 10.0, 10.0]
    thrice = [(line + 10 * copy, values, result) for copy in range(3) for line, values, result in BOOK]
    files = LocalFileStore(tmp_path)
    written = asyncio.run(write_dataset(files, ["tiv"], thrice, chunk_rows=4))
    dataset = asyncio.run(ExportDataset.open(files, written.manifest))
    with dataset.cursor() as cursor:
        assert [r.index for r in summarise_sql(cursor, ["tiv"], None, COMPOSITE, top=2).riskiest] == [0, 1]


def test_occupancy_mix_by_the_main_occupants_sector_with_names() -> None:
    summary = summarise(BOOK, sector_names={"72": "Accommodation and Food Services"})
    sectors = {s.sector: s for s in summary.sectors}
    assert sectors["72"].locations == 1 and sectors["72"].name == "Accommodation and Food Services"
    assert sectors["31-33"].locations == 1 and sectors["31-33"].name is None
    assert sectors[NO_OCCUPANTS].locations == 3 and sectors["72"].ratings == {"Very High": 1}
    assert naics_sector("445110") == "44-45" and naics_sector("N/A") is None


def test_without_tract_scores_there_is_no_tract_summary() -> None:
    summary = summarise(BOOK)
    assert summary.tracts is None
    assert all(r.tract_score is None and r.tract_nri_version is None for r in summary.riskiest)


def test_tract_scores_are_counted_by_release_beside_the_county_counts() -> None:
    unknown_release = summarise([(2, ["1"], answer(2, tract=(50.0, None, None, None)))]).tracts
    assert unknown_release is not None and unknown_release.by_version == {"unknown": 1}
    assert unknown_release.other_release == 0  # an unknown release is said as unknown, not guessed
    summary = summarise(TRACT_BOOK)
    tracts = summary.tracts
    assert tracts is not None
    assert tracts.locations == 3 and tracts.by_version == {V119: 2, V120: 1}
    # Two locations' tract scores are v1.19 beside v1.20 county scores: said, never mixed silently.
    assert tracts.county_versions == {V120: 3} and tracts.other_release == 2
    composite = tracts.distributions[0]
    assert composite.peril == COMPOSITE
    # 99 and 30 known; the third tract's composite is unknown: left out, not a 0.
    assert composite.bins == [0, 0, 0, 1, 0, 0, 0, 0, 0, 1] and composite.scored == 2 and composite.unknown == 1
    assert composite.high == 1 and composite.county_high == 2
    quake = next(d for d in tracts.distributions if d.peril == "ERQK")
    assert (quake.scored, quake.unknown, quake.high, quake.county_high) == (2, 1, 2, 0)
    # The county-level figures of the whole book are unchanged by the tract scores.
    assert summary.distributions[0] == summarise(BOOK).distributions[0]


def test_the_riskiest_show_the_tract_score_beside_the_countys_where_known() -> None:
    top = {r.row: r for r in summarise(TRACT_BOOK).riskiest}
    assert (top[2].score, top[2].tract_score, top[2].tract_rating) == (95.0, 99.0, "Very High")
    assert (top[2].nri_version, top[2].tract_nri_version) == ("1.20.0", V119)
    assert top[6].tract_score is None and top[6].tract_nri_version == V120  # unknown, not 0
    by_quake = {r.row: r for r in summarise(TRACT_BOOK, peril="ERQK").riskiest}
    assert by_quake[6].tract_score == 85.0 and by_quake[3].tract_score is None


def test_an_unknown_peril_is_refused() -> None:
    with pytest.raises(ValueError):
        summarise(BOOK, peril="XXXX")


def test_locations_no_occupant_source_covers_are_counted_apart_from_those_without_occupants() -> None:
    book = [(2, ["1"], answer(2, occupants=None)), (3, ["1"], answer(3, occupants=0)),
            (4, ["1"], answer(4, occupants=2, naics="722511")), (5, ["1"], answer(5, fips=None))]
    summary = summarise(book)
    head = summary.headline
    assert (head.with_occupants, head.occupants_not_covered, head.not_located) == (1, 1, 1)
    sectors = {mix.sector: mix.locations for mix in summary.sectors}
    assert sectors == {NOT_COVERED: 1, NO_OCCUPANTS: 2, "72": 1}  # the row not located: none known


# --- the user's numbers ------------------------------------------------------------------------


@pytest.mark.parametrize(("cell", "number"), [
    ("1,234.5", 1234.5), (" 7 ", 7.0), ("$2e3", 2000.0), ("'-5", -5.0), (12, 12.0), ("abc", None), ("1-2", None),
    (True, None), ("nan", None), ("inf", None),
])
def test_value_cells_are_read_as_spreadsheets_type_them(cell: Any, number: float | None) -> None:
    assert parse_value(cell) == number


# Texts of the characters that matter to the reading (and any other), as a user's cells come.
_CELL_CHARACTERS = st.one_of(
    st.sampled_from(list("0123456789.,$ '+-eE_") + ["\n", "\t", "\x0b", "\x1c", "\xa0", "\u2028", "\u0661", "\uff15"]),
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
)
cells = st.one_of(
    st.none(), st.text(_CELL_CHARACTERS, max_size=14),
    st.floats(allow_nan=True, allow_infinity=True).map(lambda x: f"{x:,}"), st.integers().map(str),
    st.decimals(allow_nan=False, allow_infinity=False).map(lambda d: f" ${d:,}\n"),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(cells, min_size=1, max_size=40))
def test_the_sql_reads_every_cell_as_parse_value_does(texts: list[str | None]) -> None:
    expected = [(parse_value(text), text is None or not text.strip()) for text in texts]
    assert parse_values(duckdb.connect().cursor(), texts) == expected


@given(st.floats(0, 100))
def test_a_score_falls_in_the_bin_of_pythons_floor_division(score: float) -> None:
    with duckdb.connect() as connection:
        from adapters.results.portfolio import _bin

        assert connection.execute(f"SELECT {_bin('s')} FROM (SELECT CAST(? AS DOUBLE) AS s)", [score]).fetchone() == (score_bin(score),)


# --- the figures against pandas on the same rows ------------------------------------------------

COLUMNS = ("policy", "tiv")


def reference(rows: Sequence[Row], value_column: str | None, peril: str) -> dict[str, Any]:
    """The summary's figures computed with pandas from the rows' facts and score rows."""
    facts = pd.DataFrame([facts_of(line, values, result) for line, values, result in rows])
    scores = {}
    for _, _, result in rows:
        for score in score_rows(result):
            scores.setdefault((score["level"], score["geoid"], score["nri_version"]), score)
    names = [score_field(p) for p in PERIL_IDS] + [rating_field(p) for p in PERIL_IDS]
    county = pd.DataFrame([
        scores.get(("county", f.county_fips, f.nri_version), {}) if f.scored else {} for f in facts.itertuples()
    ], columns=names, index=facts.index)
    tract = pd.DataFrame([
        scores.get(("tract", f.tract_geoid, f.tract_nri_version), {}) if f.tract_scored else {} for f in facts.itertuples()
    ], columns=names, index=facts.index)
    located = facts.status != NOT_LOCATED
    figures: dict[str, Any] = {
        "rows": len(facts), "located": int(located.sum()), "not_located": int((~located).sum()),
        "by_status": facts.status.value_counts().to_dict(),
        "levels": facts[located].match_level.fillna("none").value_counts().to_dict(),
        "low": int(facts.low_confidence.fillna(False).astype(bool).sum()),
        "with_occupants": int((facts.occupant_count.fillna(0) > 0).sum()),
        "not_covered": int((located & facts.occupant_count.isna()).sum()),
    }
    distributions = {}
    for each in PERIL_IDS:
        known = county[score_field(each)].dropna()
        bins = [0] * BIN_COUNT
        for score in known:
            bins[score_bin(score)] += 1
        ratings = county[rating_field(each)].astype(object).replace("", None).fillna(NO_RATING)
        distributions[each] = (bins, len(known), len(facts) - len(known), int(ratings.isin(HIGH_RATINGS).sum()),
                                ratings.value_counts().to_dict())
    figures["distributions"] = distributions
    sectors = pd.Series([sector_of(f.naics_codes, f.status != NOT_LOCATED, None if pd.isna(f.occupant_count) else f.occupant_count)
                         for f in facts.itertuples()], index=facts.index)
    rated = county[rating_field(peril)].astype(object).replace("", None).fillna(NO_RATING)
    figures["sectors"] = {sector: rated[sectors == sector].value_counts().to_dict() for sector in sectors.unique()}
    in_county = facts[facts.county_fips.fillna("") != ""]
    figures["counties"] = in_county.county_fips.value_counts().to_dict()
    first = in_county.assign(has=county.loc[in_county.index, [score_field(p) for p in PERIL_IDS]].notna().any(axis=1))
    figures["composites"] = {
        fips: (county.loc[group.index[0], "Total_Score"], top_hazards(
            {h.code: _known(county.loc[group.index[0], score_field(h.code)]) for h in HAZARDS}))
        for fips, group in first[first.has].groupby("county_fips", sort=False)
    }
    if value_column is not None:
        cells = facts[f"input_{COLUMNS.index(value_column)}"]
        numbers = cells.map(parse_value)
        blank = cells.map(lambda cell: not isinstance(cell, str) or not cell.strip())
        figures["value"] = (float(numbers.sum()), int(numbers.notna().sum()), int(blank.sum()))
        figures["county_values"] = numbers[in_county.index].groupby(in_county.county_fips).sum().to_dict()
        rated_values = numbers.notna()
        figures["by_rating"] = {
            p: numbers[rated_values].groupby(county[rating_field(p)].astype(object).replace("", None).fillna(NO_RATING)[rated_values]).sum().to_dict()
            for p in PERIL_IDS
        }
    scored = facts.assign(score=county[score_field(peril)], position=range(len(facts))).dropna(subset=["score"])
    top = scored.sort_values(["score", "position"], ascending=[False, True]).head(TOP_COUNT)
    figures["riskiest"] = [(int(t.position), int(t.row), float(t.score),
                            str(t.normalized_address or first_line(t.address))) for t in top.itertuples()]
    with_tracts = facts[facts.tract_scored]
    if len(with_tracts):
        releases = tract_releases(
            (t, c, 1, int(r)) for t, c, r in zip(with_tracts.tract_nri_version, with_tracts.nri_version, with_tracts.row, strict=True))
        tract_figures = {}
        for p in PERIL_IDS:
            known = tract.loc[with_tracts.index, score_field(p)].dropna()
            tract_figures[p] = (len(known), int(tract.loc[with_tracts.index, rating_field(p)].isin(HIGH_RATINGS).sum()),
                                int(county.loc[with_tracts.index, rating_field(p)].isin(HIGH_RATINGS).sum()))
        figures["tracts"] = (len(with_tracts), releases, tract_figures)
    return figures


def _known(value: Any) -> float | None:
    return None if pd.isna(value) else float(value)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


# Not shrunk: a dataset a example, shrinking takes minutes; the failing rows are printed whole.
@settings(max_examples=10, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rows=batch_rows(user_columns=2, max_size=25), chunk=st.integers(1, 7),
       value_column=st.sampled_from([None, "policy", "tiv"]), peril=st.sampled_from(PERIL_IDS),
       values=st.lists(st.one_of(st.none(), st.sampled_from(["", " ", "n/a", "1,250,000", "$100", "'-50", "12.25", "(5)"]),
                                 st.integers(-10**9, 10**9).map(str)), min_size=25, max_size=25))
def test_the_figures_are_pandas_on_the_same_rows(rows: list[Row], chunk: int, value_column: str | None, peril: str,
                                                   values: list[str | None]) -> None:
    rows = [(line, [row_values[0], values[index]], result) for index, (line, row_values, result) in enumerate(rows)]
    summary = summarise(rows, value_column, peril, columns=COLUMNS, chunk_sizes=(chunk,))
    if not rows:
        assert summary.headline.rows == 0 and summary.riskiest == [] and summary.tracts is None
        return
    expected = reference(rows, value_column, peril)
    head = summary.headline
    assert (head.rows, head.located, head.not_located, head.low_confidence) == (
        expected["rows"], expected["located"], expected["not_located"], expected["low"])
    assert head.by_status == expected["by_status"] and head.located_by_match_level == expected["levels"]
    assert (head.with_occupants, head.occupants_not_covered) == (expected["with_occupants"], expected["not_covered"])
    for distribution in summary.distributions:
        bins, scored, unknown, high, ratings = expected["distributions"][distribution.peril]
        assert (distribution.bins, distribution.scored, distribution.unknown, distribution.high) == (bins, scored, unknown, high)
        assert distribution.ratings == ratings
    assert {mix.sector: mix.ratings for mix in summary.sectors} == expected["sectors"]
    assert {c.county_fips: c.locations for c in summary.counties} == expected["counties"]
    for county in summary.counties:
        composite, hazards = expected["composites"].get(county.county_fips, (None, []))
        assert county.composite_score == (None if pd.isna(composite) else composite) and county.top_hazards == hazards
    assert [(r.index, r.row, r.score, r.address) for r in summary.riskiest] == expected["riskiest"]
    if value_column is None:
        assert summary.value is None and all(c.value is None for c in summary.counties)
    else:
        assert summary.value is not None
        total, parsed, blank = expected["value"]
        assert close(summary.value.total, total) and (summary.value.parsed, summary.value.blank) == (parsed, blank)
        assert summary.value.unparsed == len(rows) - parsed - blank
        for county in summary.counties:
            assert close(county.value or 0.0, expected["county_values"].get(county.county_fips, 0.0))
        for by_rating in summary.value.by_rating:
            want = expected["by_rating"][by_rating.peril]
            assert by_rating.ratings.keys() == want.keys()
            assert all(close(by_rating.ratings[key], want[key]) for key in want)
    if summary.tracts is None:
        assert "tracts" not in expected
    else:
        locations, releases, figures = expected["tracts"]
        assert (summary.tracts.locations, summary.tracts.by_version, summary.tracts.county_versions,
                summary.tracts.other_release) == (locations, releases.by_version, releases.county_versions, releases.other_release)
        for distribution in summary.tracts.distributions:
            assert (distribution.scored, distribution.high, distribution.county_high) == figures[distribution.peril]
            assert distribution.unknown == locations - distribution.scored


@settings(max_examples=8, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(batch_rows(user_columns=2, max_size=20), st.lists(st.integers(1, 6), min_size=1, max_size=4))
def test_any_chunking_gives_the_same_summary(rows: list[Row], sizes: list[int]) -> None:
    whole = summarise(rows, "tiv", "HRCN", columns=COLUMNS, chunk_sizes=(max(1, len(rows)),))
    assert summarise(rows, "tiv", "HRCN", columns=COLUMNS, chunk_sizes=sizes) == whole


# --- the service: any variant asked, kept, owner-scoped ----------------------------------------


class _OneExport:
    """A store holding one export of BOOK (a dataset) for its owner, counting the queries asked."""

    def __init__(self, files: LocalFileStore) -> None:
        from application.ports.batch import ExportFile

        self.files = files
        written = asyncio.run(write_dataset(files, ["Street Address", "tiv", "Zip"],
                                            [(line, ["1 Main St", *values, "98101"], result) for line, values, result in BOOK],
                                            user_id="ann", export_id="e1"))
        self.file = ExportFile(id="e1", user_id="ann", name="book_export.csv", exported_at=None,  # type: ignore[arg-type]
                               manifest_key=written.manifest_key, detail_columns=tuple(written.manifest.user_columns))
        self.queries = PortfolioQueries(files)
        self.asked: list[PortfolioQuery] = []
        portfolio = self.queries.portfolio

        async def counted(manifest, query):  # noqa: ANN001, ANN202
            self.asked.append(query)
            return await portfolio(manifest, query)

        self.queries.portfolio = counted  # type: ignore[method-assign]

    async def export(self, user_id: str, name: str):  # noqa: ANN201
        return self.file if (user_id, name) == ("ann", self.file.name) else None


class _Titles:
    async def titles(self, codes: set[str]) -> dict[str, str]:
        return {"72": "Accommodation and Food Services"} if "72" in codes else {}


async def test_any_peril_and_value_column_is_answered_kept_and_others_are_refused(tmp_path: Path) -> None:
    from application.errors import InvalidInput, NotFound
    from application.portfolio import PortfolioService
    from application.ports.accounts import AccessClaims

    store = await asyncio.to_thread(_OneExport, LocalFileStore(tmp_path))
    service = PortfolioService(store, store.files, _Titles(), store.queries)  # type: ignore[arg-type]
    ann, bob = AccessClaims(user_id="ann"), AccessClaims(user_id="bob")
    first = await service.summary(ann, "book_export.csv", "tiv")
    assert first.summary.headline.rows == 5 and first.summary.value is not None and first.summary.value.total == 2_500_050
    assert "Accommodation and Food Services" in [mix.name for mix in first.summary.sectors]  # named when read
    assert first.user_columns == ("tiv",)  # the address's columns are no value
    assert await service.summary(ann, "book_export.csv", "tiv") is first and len(store.asked) == 1
    quake = await service.summary(ann, "book_export.csv", "tiv", peril="ERQK")
    assert quake.summary.ranked_by == "ERQK" and len(store.asked) == 2
    assert quake.summary.counties == first.summary.counties  # the figures of any peril are the book's
    # Another peril of a kept export (its riskiest and sectors asked again) is the summary made afresh.
    from application.ports.results import read_manifest

    manifest = await read_manifest(store.files, store.file.manifest_key)  # type: ignore[arg-type]
    fresh = await PortfolioQueries(store.files).portfolio(manifest, PortfolioQuery("tiv", "ERQK"))
    assert with_sector_names(fresh, {"72": "Accommodation and Food Services"}) == quake.summary
    with pytest.raises(NotFound):
        await service.summary(bob, "book_export.csv", "tiv")
    for wrong in ("Zip", "nothing"):
        with pytest.raises(InvalidInput, match="tiv"):
            await service.summary(ann, "book_export.csv", wrong)
    with pytest.raises(InvalidInput, match="composite"):
        await service.summary(ann, "book_export.csv", peril="XXXX")

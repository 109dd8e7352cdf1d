"""The portfolio summary on a small hand-made book: unknown scores stay out of the histograms,
a value column with bad cells is summed from the readable ones, and the counts add up."""

from __future__ import annotations

from dataclasses import replace

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.perils import HAZARDS
from domain.portfolio import (
    COMPOSITE, NO_OCCUPANTS, NOT_COVERED, RECORD_FIELDS, PortfolioTally, naics_sector, parse_value, summarise,
)


def record(
    row: int, *, fips: str | None = "53033", total: float | None = 50.0, rating: str | None = "Relatively Moderate",
    match: str = "building", value: Any = None, naics: str = "", occupants: int | None = 0, low: bool = False,
    building: bool = False, hazard: dict[str, float | None] | None = None,
) -> dict[str, Any]:
    located = fips is not None
    fields: dict[str, Any] = {
        "row": row, "input": {"tiv": value} if value is not None else {},
        "status": "answered" if located else "not located",
        "normalized_address": f"{row} Main St, Town, ST 00000",
        "match_level": match if located else "none",
        "county_fips": fips, "county_name": "King" if fips == "53033" else ("Pierce" if fips else None),
        "county_state": "WA" if fips else None,
        "low_confidence": "yes" if low else "no",
        "Total_Score": total if located else None, "risk_rating": rating if located else None,
        "occupant_count": occupants, "naics_codes": naics,
        "property_name": "Tower" if building else None,
    }
    for h in HAZARDS:
        score = (hazard or {}).get(h.code, 10.0) if located else None
        fields[f"{h.code}_Score"] = score
        fields[f"{h.code}_Rating"] = "Very Low" if score is not None else None
    return fields


BOOK = [
    record(2, total=95.0, rating="Very High", value="2,500,000", naics="722511 445110", occupants=3, building=True,
           hazard={"ERQK": 99.0, "VLCN": None}),
    record(3, total=95.0, rating="Very High", value="$100", match="census_exact", hazard={"ERQK": 99.0, "VLCN": None}),
    record(4, fips="53053", total=None, rating=None, value="n/a", match="zip_centroid", low=True, naics="311811",
           occupants=1),
    record(5, fips=None, value=""),
    record(6, fips="53053", total=0.0, rating="Very Low", value="'-50", match="zip_centroid"),
]


def test_headline_counts_locate_levels_and_what_is_known() -> None:
    summary = summarise(BOOK, value_column="tiv")
    head = summary.headline
    assert head.rows == 5 and head.located == 4 and head.not_located == 1
    assert head.located_by_match_level == {"zip_centroid": 2, "building": 1, "census_exact": 1}
    assert head.low_confidence == 1 and head.with_occupants == 2 and head.with_building_record == 1


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
    # Pierce's first record has no composite; its scores still come from that record, unknown stays unknown.
    assert counties[1].composite_score is None
    assert summarise(BOOK).counties[0].value is None  # no value column: no sums, not 0


def test_the_riskiest_are_ranked_by_the_chosen_peril_ties_in_file_order() -> None:
    top = summarise(BOOK).riskiest
    assert [(r.index, r.row, r.score) for r in top] == [(0, 2, 95.0), (1, 3, 95.0), (4, 6, 0.0)]
    by_quake = summarise(BOOK, peril="ERQK").riskiest
    assert [r.score for r in by_quake] == [99.0, 99.0, 10.0, 10.0]
    tally = PortfolioTally(top=2)
    for index, item in enumerate(BOOK * 3):
        tally.add(index, item)
    assert [r.index for r in tally.summary().riskiest] == [0, 1]


def test_occupancy_mix_by_the_main_occupants_sector_with_names() -> None:
    summary = summarise(BOOK, sector_names={"72": "Accommodation and Food Services"})
    sectors = {s.sector: s for s in summary.sectors}
    assert sectors["72"].locations == 1 and sectors["72"].name == "Accommodation and Food Services"
    assert sectors["31-33"].locations == 1 and sectors["31-33"].name is None
    assert sectors[NO_OCCUPANTS].locations == 3 and sectors["72"].ratings == {"Very High": 1}
    assert naics_sector("445110") == "44-45" and naics_sector("N/A") is None


V119, V120 = "1.19.0 (March 2023)", "1.20.0 (December 2025)"


def with_tract(
    fields: dict[str, Any], total: float | None, rating: str | None, version: str | None = V120,
    county_version: str | None = "1.20.0", quake: float | None = None,
) -> dict[str, Any]:
    """The record with its census tract's scores beside the county's, as the detailed export writes them."""
    tract: dict[str, Any] = {
        "nri_version": county_version, "tract_nri_version": version,
        "tract_Total_Score": total, "tract_risk_rating": rating,
    }
    for h in HAZARDS:
        score = quake if h.code == "ERQK" else None
        tract[f"tract_{h.code}_Score"] = score
        tract[f"tract_{h.code}_Rating"] = "Very High" if score is not None and score >= 80 else None
    return fields | tract


TRACT_BOOK = [
    with_tract(BOOK[0], 99.0, "Very High", version=V119, quake=99.5),  # county Very High too
    with_tract(BOOK[1], 30.0, "Relatively Low", version=V119),  # county Very High, tract low
    BOOK[2], BOOK[3],
    # The same release written two ways; the tract composite unknown.
    with_tract(BOOK[4], None, None, version=V120, county_version="1.20.0", quake=85.0),
]


def test_without_tract_records_there_is_no_tract_summary() -> None:
    summary = summarise(BOOK)
    assert summary.tracts is None
    assert all(r.tract_score is None and r.tract_nri_version is None for r in summary.riskiest)


def test_tract_scores_are_counted_by_release_beside_the_county_counts() -> None:
    unknown_release = summarise([with_tract(BOOK[0], 50.0, None, version=None, county_version="1.20.0")]).tracts
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


def test_the_summary_decodes_the_tract_fields_it_reads() -> None:
    assert {"nri_version", "tract_nri_version", "tract_Total_Score", "tract_ERQK_Rating"} <= set(RECORD_FIELDS)
    assert "tract" not in RECORD_FIELDS  # the nested record is skipped


def test_an_unknown_peril_is_refused() -> None:
    with pytest.raises(ValueError):
        PortfolioTally(peril="XXXX")


@pytest.mark.parametrize(("cell", "number"), [
    ("1,234.5", 1234.5), (" 7 ", 7.0), ("$2e3", 2000.0), ("'-5", -5.0), (12, 12.0), ("abc", None), ("1-2", None),
    (True, None), ("nan", None), ("inf", None),
])
def test_value_cells_are_read_as_spreadsheets_type_them(cell: Any, number: float | None) -> None:
    assert parse_value(cell) == number


records = st.builds(
    record,
    row=st.integers(1, 10_000),
    fips=st.sampled_from(["53033", "53053", "06037", None]),
    total=st.one_of(st.none(), st.floats(0, 100)),
    rating=st.sampled_from([None, "Very High", "Relatively High", "Relatively Low", "Very Low"]),
    match=st.sampled_from(["building", "census_exact", "zip_centroid"]),
    value=st.one_of(st.none(), st.integers(-10**9, 10**9), st.text(max_size=5)),
    naics=st.sampled_from(["", "722511", "311811 722511", "xx"]),
)


@given(st.lists(records, max_size=60))
def test_every_breakdown_adds_up_to_the_rows(book: list[dict[str, Any]]) -> None:
    summary = summarise(book, value_column="tiv")
    rows = summary.headline.rows
    assert rows == len(book)
    assert summary.headline.located + summary.headline.not_located == rows
    assert sum(summary.headline.located_by_match_level.values()) == summary.headline.located
    for distribution in summary.distributions:
        assert distribution.scored + distribution.unknown == rows
        assert sum(distribution.ratings.values()) == rows
    assert sum(c.locations for c in summary.counties) == summary.headline.located
    assert sum(s.locations for s in summary.sectors) == rows
    assert summary.value is not None
    assert summary.value.parsed + summary.value.unparsed + summary.value.blank == rows
    assert len(summary.riskiest) == min(50, sum(1 for r in book if r["Total_Score"] is not None))


class _OneExport:
    """A store holding one export of BOOK for its owner, its files in memory, counting reads of
    the detailed records."""

    def __init__(self, with_summary: bool = False, with_tally: bool = False) -> None:
        import msgspec

        from application.ports.batch import ExportFile
        from tests.fakes import InMemoryFileStore

        self.reads = 0
        self.files = InMemoryFileStore(piece_size=100)  # records cut mid-line, as a store may
        self.files.files["exports/ann/e1.jsonl"] = "".join(msgspec.json.encode(r).decode() + "\n" for r in BOOK).encode()
        self.files.files["exports/ann/e1.csv"] = b"address\n"
        read = self.files.read

        def counted(key: str, chunk_size: int | None = None):  # noqa: ANN202
            self.reads += key.endswith(".jsonl")
            return read(key, chunk_size)

        self.files.read = counted  # type: ignore[method-assign]
        self.file = ExportFile(id="e1", user_id="ann", name="book_export.csv", exported_at=None,  # type: ignore[arg-type]
                               csv_key="exports/ann/e1.csv", detail_key="exports/ann/e1.jsonl",
                               detail_columns=("tiv",))
        if with_summary:
            from application.portfolio_tally import encode_summary

            self.files.files["exports/ann/e1.summary.json"] = encode_summary(summarise(BOOK))
            self.file = replace(self.file, summary_key="exports/ann/e1.summary.json")
        if with_tally:  # as assembled now: the tally of every variant
            from application.portfolio_tally import encode_tally

            tally = PortfolioTally.every_variant()
            for index, item in enumerate(BOOK):
                tally.add(index, item)
            self.files.files["exports/ann/e1.summary"] = encode_tally(tally)
            self.file = replace(self.file, summary_key="exports/ann/e1.summary")

    async def export(self, user_id: str, name: str):  # noqa: ANN201
        return self.file if (user_id, name) == ("ann", self.file.name) else None

    async def legacy_text(self, user_id: str, name: str, detailed: bool) -> str | None:
        return None


class _Titles:
    async def titles(self, codes: set[str]) -> dict[str, str]:
        return {"72": "Accommodation and Food Services"} if "72" in codes else {}


async def test_a_summary_shown_before_is_kept_and_others_are_still_refused() -> None:
    from application.errors import InvalidInput, NotFound
    from application.ports.accounts import AccessClaims
    from application.portfolio import PortfolioService

    store = _OneExport()
    service = PortfolioService(store, store.files, _Titles())  # type: ignore[arg-type]
    ann, bob = AccessClaims(user_id="ann"), AccessClaims(user_id="bob")
    first = await service.summary(ann, "book_export.csv", "tiv")
    assert first.summary.headline.rows == 5 and first.summary.sectors[-1].name in (None, "Accommodation and Food Services")
    assert await service.summary(ann, "book_export.csv", "tiv") is first and store.reads == 1
    await service.summary(ann, "book_export.csv", "tiv", peril="ERQK")
    assert store.reads == 2
    with pytest.raises(NotFound):
        await service.summary(bob, "book_export.csv", "tiv")
    with pytest.raises(InvalidInput):
        await service.summary(ann, "book_export.csv", "Zip")


async def test_the_default_summary_is_read_as_stored_and_equals_one_summed_afresh() -> None:
    from application.ports.accounts import AccessClaims
    from application.portfolio import PortfolioService

    stored, fresh = _OneExport(with_summary=True), _OneExport()
    ann = AccessClaims(user_id="ann")
    from_store = await PortfolioService(stored, stored.files, _Titles()).summary(ann, "book_export.csv")  # type: ignore[arg-type]
    summed = await PortfolioService(fresh, fresh.files, _Titles()).summary(ann, "book_export.csv")  # type: ignore[arg-type]
    assert stored.reads == 0 and fresh.reads == 1  # the stored one never read the records
    assert from_store.summary == summed.summary and from_store.summary.headline.rows == 5
    assert "Accommodation and Food Services" in [mix.name for mix in from_store.summary.sectors]  # named when read
    await PortfolioService(stored, stored.files, _Titles()).summary(ann, "book_export.csv", peril="ERQK")
    assert stored.reads == 1  # another peril sums the stored records


async def test_every_peril_and_value_column_is_answered_from_the_stored_tally_without_the_records() -> None:
    from application.ports.accounts import AccessClaims
    from application.portfolio import PortfolioService

    stored, fresh = _OneExport(with_tally=True), _OneExport()
    ann = AccessClaims(user_id="ann")
    for column, peril in ((None, COMPOSITE), (None, "ERQK"), ("tiv", COMPOSITE), ("tiv", "VLCN")):
        from_store = await PortfolioService(stored, stored.files, _Titles()).summary(ann, "book_export.csv", column, peril)  # type: ignore[arg-type]
        summed = await PortfolioService(fresh, fresh.files, _Titles()).summary(ann, "book_export.csv", column, peril)  # type: ignore[arg-type]
        assert from_store.summary == summed.summary and from_store.summary.ranked_by == peril
    assert stored.reads == 0 and fresh.reads == 4


def test_locations_no_occupant_source_covers_are_counted_apart_from_those_without_occupants() -> None:
    book = [record(2, occupants=None), record(3, occupants=0), record(4, occupants=2, naics="722511"),
            record(5, fips=None, occupants=None)]
    summary = summarise(book)
    head = summary.headline
    assert (head.with_occupants, head.occupants_not_covered, head.not_located) == (1, 1, 1)
    sectors = {mix.sector: mix.locations for mix in summary.sectors}
    assert sectors == {NOT_COVERED: 1, NO_OCCUPANTS: 2, "72": 1}  # the row not located: none known

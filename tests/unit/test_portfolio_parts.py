"""The portfolio tally of every variant, stored with an export: for random small batches, what it
answers for each peril and each value column is what one pass over the records for that variant
gives; its state read back answers the same; and the tallies of two parts of a batch merge into
the tally of the whole."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from application.portfolio_tally import (
    RecordTally,
    decode_stored,
    decode_tally,
    decode_tally_state,
    encode_summary,
    encode_tally,
    tally_lines,
)
from domain.perils import HAZARDS
from domain.portfolio import (
    COMPOSITE, HIGH_RATINGS, NO_RATING, PERIL_IDS, TOP_COUNT, PortfolioTally, parse_value, rating_field, score_field, summarise,
)

RATINGS = ["Very Low", "Relatively Low", "Relatively Moderate", "Relatively High", "Very High", "", None]
COLUMNS = ("tiv", "zip", "note")
# Quarters are sums without rounding, so sums taken in any order are equal to the last bit.
quarters = st.integers(-(10**9), 10**9).map(lambda n: n / 4)
cells = st.one_of(
    st.none(), st.sampled_from(["", " ", "n/a", "1,250,000", "$100", "'-50", "98101", "(50)"]),
    quarters, quarters.map(str), st.integers(0, 10**7).map(str), st.booleans(),
)
scores = st.one_of(st.none(), st.sampled_from([0, 0.0, 9.99, 10.0, 55.5, 100, 100.0, True]),
                   st.floats(0, 100, allow_nan=False))


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    located = draw(st.booleans())
    fips = draw(st.sampled_from(["53033", "53053", "01001", "", None])) if located else None
    # The perils of a county mostly share their ratings: a few profiles, as in a real book.
    shared = draw(st.sampled_from(RATINGS))
    record: dict[str, Any] = {
        "row": draw(st.integers(1, 10**6)),
        "input": draw(st.dictionaries(st.sampled_from(COLUMNS), cells, max_size=3)),
        "status": "answered" if located else "not located",
        "match_level": draw(st.sampled_from(["building", "census_exact", "zip_centroid"])) if located else "none",
        "low_confidence": draw(st.sampled_from(["yes", "no", True, None])),
        "occupant_count": draw(st.sampled_from([0, 1, 3, None])),
        "naics_codes": draw(st.sampled_from(["", "722511 445110", "522110", "311811", "x 44"])),
        "county_fips": fips, "county_name": f"County {fips}" if fips else None, "county_state": "ST" if fips else None,
        "normalized_address": draw(st.sampled_from(["1 Main St", "", None])), "address": "2 Side St\nmore",
        "property_name": draw(st.sampled_from([None, "", "Tower"])),
        "nri_version": draw(st.sampled_from(["1.20.0", "1.19.0", None])),
    }
    for peril in PERIL_IDS:
        record[score_field(peril)] = draw(scores) if located else None
        record[rating_field(peril)] = (shared if draw(st.booleans()) else draw(st.sampled_from(RATINGS))) if located else None
    if draw(st.booleans()):  # census-tract scores on some records
        record["tract_nri_version"] = draw(st.sampled_from(["1.19.0", "1.20.0", None]))
        record["tract_Total_Score"] = draw(scores)
        record["tract_risk_rating"] = draw(st.sampled_from(RATINGS))
        record["tract_ERQK_Score"] = draw(scores)
    return record


books = st.lists(records(), max_size=25)


def jsonl(book: list[dict[str, Any]]) -> str:
    return "".join(msgspec.json.encode(record).decode() + "\n" for record in book)


def every_variant(book: list[dict[str, Any]], start: int = 0, column_limit: int = 30, top: int = TOP_COUNT
                  ) -> PortfolioTally:
    """The tally an export's assembly stores, from the JSON Lines records (numbered from `start`)."""
    records = RecordTally(tally=PortfolioTally.every_variant(top=top, column_limit=column_limit))
    records._index = start
    records.add_block(jsonl(book).encode())
    return records.tally


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(books)
def test_the_stored_tally_answers_every_variant_as_one_pass_for_it_would(book: list[dict[str, Any]]) -> None:
    stored = decode_tally(encode_tally(every_variant(book)))
    detail = jsonl(book)
    for column in (None, *COLUMNS):
        for peril in PERIL_IDS:
            assert stored.answers(column, peril)
            assert stored.answer(column, peril) == tally_lines(detail, column, peril).summary(), (column, peril)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(books, books)
def test_a_state_stored_before_rating_codes_reads_back_and_merges(
    first: list[dict[str, Any]], second: list[dict[str, Any]]
) -> None:
    """Exports assembled before, and chunks' parts of a job running across the upgrade, hold each
    profile as its list of ratings."""
    stored, later = every_variant(first), every_variant(second, start=len(first))
    read = decode_tally(_before_rating_codes(stored))
    read.merge(decode_tally_state(_before_rating_codes(later)))
    whole = every_variant(first + second)
    for column in (None, *COLUMNS):
        for peril in PERIL_IDS:
            if whole.answers(column, peril):
                assert read.answer(column, peril) == whole.answer(column, peril), (column, peril)


def test_a_state_neither_before_nor_after_rating_codes_is_refused() -> None:
    state = msgspec.to_builtins(every_variant([]).state())
    del state["ratings"]
    state["profiles"] = [[1, 2]]
    with pytest.raises(msgspec.ValidationError):
        decode_tally_state(msgspec.msgpack.encode(state))
    with pytest.raises(msgspec.ValidationError):
        decode_tally_state(msgspec.msgpack.encode({"rows": "many"}))


def _before_rating_codes(tally: PortfolioTally) -> bytes:
    state = msgspec.to_builtins(tally.state())
    ratings = state.pop("ratings")
    state["profiles"] = [[ratings[ord(code) - ord("A")] for code in profile] for profile in state["profiles"]]
    return msgspec.msgpack.encode(state)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(books, st.sampled_from(COLUMNS), st.sampled_from(PERIL_IDS))
def test_value_sums_by_county_and_rating_are_the_row_by_row_sums(book: list[dict[str, Any]], column: str,
                                                                 peril: str) -> None:
    summary = every_variant(book).answer(column, peril)
    by_county: dict[str, float] = {}
    by_rating: dict[str, float] = {}
    for record in book:
        value = parse_value(record["input"].get(column))
        if value is None:
            continue
        if record["county_fips"]:
            by_county[record["county_fips"]] = by_county.get(record["county_fips"], 0.0) + value
        rating = record[rating_field(peril)] or NO_RATING
        by_rating[rating] = by_rating.get(rating, 0.0) + value
    assert summary.value is not None
    assert {c.county_fips: c.value for c in summary.counties if c.value} == {f: v for f, v in by_county.items() if v}
    assert next(v.ratings for v in summary.value.by_rating if v.peril == peril) == by_rating
    high = sum(1 for record in book if record[rating_field(peril)] in HIGH_RATINGS)
    assert next(d.high for d in summary.distributions if d.peril == peril) == high


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(books, books, st.integers(1, 3))
def test_the_tallies_of_two_parts_merge_into_the_tally_of_the_whole(
    first: list[dict[str, Any]], second: list[dict[str, Any]], column_limit: int
) -> None:
    whole = every_variant(first + second, column_limit=column_limit)
    merged = every_variant(first, column_limit=column_limit)
    merged.merge(decode_tally(encode_tally(every_variant(second, start=len(first), column_limit=column_limit))))
    assert merged.state() == whole.state() or _lost_a_column(merged, whole)
    for column in (None, *COLUMNS):
        for peril in PERIL_IDS:
            if merged.answers(column, peril):
                assert merged.answer(column, peril) == whole.answer(column, peril), (column, peril)
            else:  # past the limit, or lost in merging: it is summed afresh when asked
                assert column is not None
                assert not whole.answers(column, peril) or column in _lost(merged)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(books, books, books, st.integers(0, 4))
def test_full_top_lists_merge_into_the_riskiest_of_the_whole(
    first: list[dict[str, Any]], second: list[dict[str, Any]], third: list[dict[str, Any]], top: int
) -> None:
    """With lists shorter than the parts (ties broken by row), a merge keeps what one pass keeps,
    whether a part comes as a tally or, as at an export's assembly, as its decoded state only."""
    whole = every_variant(first + second + third, top=top)
    merged = every_variant(first, top=top)
    merged.merge(decode_tally(encode_tally(every_variant(second, start=len(first), top=top))))
    merged.merge(decode_tally_state(encode_tally(every_variant(third, start=len(first) + len(second), top=top))))
    assert merged.state().tops == whole.state().tops


def _lost(merged: PortfolioTally) -> list[str]:
    return [column.name for column in merged.state().columns if not column.followed]


def _lost_a_column(merged: PortfolioTally, whole: PortfolioTally) -> bool:
    """Merging cannot follow a column that the first part's limit let in but the second part's
    limit left out (the second part's rows may hold it): merged, it is known but not followed."""
    lost = _lost(merged)
    return bool(lost) and all(any(c.name == name for c in whole.state().columns) for name in lost)


@given(books, books)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_named_variant_merges_too(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> None:
    whole = tally_lines(jsonl(first + second), "tiv", "ERQK")
    merged = tally_lines(jsonl(first), "tiv", "ERQK")
    shifted = RecordTally("tiv", "ERQK")
    shifted._index = len(first)
    shifted.add_block(jsonl(second).encode())
    merged.merge(shifted.tally)
    assert merged.state() == whole.state() and merged.summary() == whole.summary()


def test_only_tallies_of_the_same_kind_merge() -> None:
    with pytest.raises(ValueError, match="same kind"):
        PortfolioTally.every_variant().merge(PortfolioTally())
    with pytest.raises(ValueError, match="same value column"):
        PortfolioTally("tiv").merge(PortfolioTally("zip"))


def test_columns_past_the_limit_are_not_answered_and_a_tally_names_what_it_follows() -> None:
    book = [{"row": 2, "input": {"a": "1", "b": "2", "c": "3"}, "county_fips": "53033", "status": "answered",
             "match_level": "building", "Total_Score": 50.0, "risk_rating": "Very High"}]
    tally = every_variant(book, column_limit=2)
    assert [tally.answers(name, COMPOSITE) for name in ("a", "b", "c")] == [True, True, False]
    assert tally.answer("b", "ERQK").value.total == 2.0  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="does not follow"):
        tally.answer("c", COMPOSITE)
    named = PortfolioTally("a", "ERQK")
    assert named.answers("a", "ERQK") and not named.answers("b", "ERQK") and not named.answers(None, COMPOSITE)


def test_a_column_that_one_part_could_not_follow_is_summed_afresh_after_merging() -> None:
    first = [{"row": 2, "input": {"a": "1", "b": "2"}}]
    second = [{"row": 3, "input": {"c": "3", "d": "4", "a": "5"}}]  # its limit of 2 leaves 'a' out
    whole, merged = every_variant(first + second, column_limit=2), every_variant(first, column_limit=2)
    merged.merge(every_variant(second, start=1, column_limit=2))
    assert whole.answer("a", COMPOSITE).value.total == 6.0  # type: ignore[union-attr]
    # Past its limit, the second part's rows may hold any column: neither 'a' nor 'b' is followed.
    assert [merged.answers(name, COMPOSITE) for name in "abc"] == [False, False, False]
    assert [whole.answers(name, COMPOSITE) for name in "abc"] == [True, True, False]
    assert merged.answer(None, "ERQK") == whole.answer(None, "ERQK")


def test_a_column_first_seen_late_counts_the_rows_before_it_as_blank() -> None:
    book = [{"row": 2, "input": {"a": "1"}}, {"row": 3, "input": {"a": "2", "b": "5"}}, {"row": 4, "input": {}}]
    value = every_variant(book).answer("b", COMPOSITE).value
    assert value is not None and (value.blank, value.parsed, value.total) == (2, 1, 5.0)


def test_a_stored_summary_file_of_either_format_is_read() -> None:
    book = [{"row": 2, "input": {"tiv": "10"}, "county_fips": "53033", "Total_Score": 40.0, "risk_rating": "Very Low"}]
    old = decode_stored(encode_summary(summarise(book)))  # exports assembled before: the default summary
    new = decode_stored(encode_tally(every_variant(book)))
    assert isinstance(new, PortfolioTally) and old == new.answer(None, COMPOSITE)
    assert new.answer("tiv", "ERQK").value == replace(summarise(book, "tiv", "ERQK").value)  # type: ignore[arg-type]


def test_quarters_sum_exactly() -> None:
    """The premise of the merge test: its values add without rounding in any order."""
    values = [n / 4 for n in (10**9, -(10**9) + 1, 3, 7, 10**9)]
    assert math.fsum(values) == sum(values) == sum(reversed(values))


def test_hazard_list_is_the_perils_of_the_tally() -> None:
    assert len(PERIL_IDS) == len(HAZARDS) + 1 == 19

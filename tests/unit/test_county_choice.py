"""The county choice on small tables (domain/county_choice.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.county_choice import (
    NOT_LOCATED,
    PLACE_ONLY,
    ZIP_AND_PLACE,
    ZIP_ONE_COUNTY,
    ZIP_SHARE,
    CountyShare,
    choose_county,
    place_key,
    with_note,
)

# A ZIP whose rural area lies mostly in one county while most of its addresses are in a town of another.
BIG_RURAL, TOWN_COUNTY = "02050", "02020"


def test_a_one_county_zip_is_certain() -> None:
    choice = choose_county([CountyShare("53033", 1.0)], {})
    assert (choice.county_fips, choice.confidence, choice.method) == ("53033", 1.0, ZIP_ONE_COUNTY)
    assert not choice.low_confidence and choice.alternatives == ()


def test_without_a_place_the_county_with_most_of_the_zips_addresses_wins() -> None:
    choice = choose_county([CountyShare(BIG_RURAL, 0.3), CountyShare(TOWN_COUNTY, 0.7)], {})
    assert choice.county_fips == TOWN_COUNTY and choice.method == ZIP_SHARE
    assert choice.confidence == pytest.approx(0.7) and choice.low_confidence
    assert [a.county_fips for a in choice.alternatives] == [BIG_RURAL]


def test_the_named_place_moves_the_answer_to_its_county() -> None:
    zip_shares = [CountyShare("13121", 0.6), CountyShare("13135", 0.4)]
    # Duluth lies in Gwinnett (13135): the place outweighs the ZIP's larger share elsewhere.
    choice = choose_county(zip_shares, {"13135": 1.0})
    assert choice.county_fips == "13135" and choice.method == ZIP_AND_PLACE
    assert choice.confidence > 0.9 and not choice.low_confidence


def test_a_place_split_across_counties_keeps_the_doubt() -> None:
    choice = choose_county([CountyShare("A", 0.5), CountyShare("B", 0.5)], {"A": 0.55, "B": 0.45})
    assert choice.county_fips == "A" and choice.low_confidence


def test_a_place_outside_the_zips_counties_is_ignored() -> None:
    choice = choose_county([CountyShare("A", 0.9), CountyShare("B", 0.1)], {"C": 1.0})
    assert choice.county_fips == "A" and choice.method == ZIP_SHARE


def test_an_unknown_zip_falls_back_to_the_place_and_nothing_known_is_not_located() -> None:
    assert choose_county([], {"09110": 1.0}).method == PLACE_ONLY
    nothing = choose_county([], {})
    assert (nothing.county_fips, nothing.confidence, nothing.method) == (None, None, NOT_LOCATED)
    assert not nothing.low_confidence


def test_a_note_always_marks_the_answer_for_checking() -> None:
    noted = with_note(choose_county([CountyShare("36061", 1.0)], {}), "ZIP code 10001 is in NY, but the address says WA")
    assert noted.low_confidence and noted.confidence == 1.0


@pytest.mark.parametrize(
    ("census", "typed"),
    [("St. Louis city", "SAINT LOUIS"), ("Houston city", "Houston"), ("Anchorage municipality", "ANCHORAGE"),
     ("Mount Vernon city", "Mt. Vernon"), ("Fort Worth city", "Ft Worth"), ("Winston-Salem city", "Winston Salem")],
)
def test_place_keys_match_census_and_postal_spellings(census: str, typed: str) -> None:
    assert place_key(census) == place_key(typed)


shares = st.lists(st.tuples(st.sampled_from("ABCDE"), st.floats(0, 1)), min_size=1, max_size=5, unique_by=lambda t: t[0])


@given(shares, st.dictionaries(st.sampled_from("ABCDEF"), st.floats(0, 1), max_size=4))
def test_the_choice_is_a_candidate_and_weights_add_up(zip_shares, place) -> None:  # noqa: ANN001
    choice = choose_county([CountyShare(c, s) for c, s in zip_shares], place)
    assert choice.county_fips in {c for c, _ in zip_shares}
    assert sum(c.share for c in choice.candidates) == pytest.approx(1.0)
    assert 0 < choice.confidence <= 1 and choice.confidence == max(c.share for c in choice.candidates)


def test_a_zip_and_a_city_of_another_state_are_each_half_believed() -> None:
    from domain.county_choice import disputed_by_place

    new_york_zip = choose_county([CountyShare("36061", 1.0)], {})
    disputed = disputed_by_place(new_york_zip, {"53033": 1.0}, "ZIP code 10001 is in NY, but the address says WA")
    assert disputed.county_fips == "36061" and disputed.confidence == pytest.approx(0.5) and disputed.low_confidence
    assert [(a.county_fips, a.share) for a in disputed.alternatives] == [("53033", pytest.approx(0.5))]

"""Address text format, normaliser, parser and peril scores: properties and examples."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.address_parser import UsaddressParser
from domain.address import (
    ADDRESS_UNKNOWN,
    EMPTY_ADDRESS,
    AddressError,
    building_key,
    format_address_text,
    normalize_street,
    parse_address_text,
)
from domain.perils import HAZARDS, PerilScores, data_dictionary, format_score

line_text = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=40).filter(
    lambda s: s.strip() and ":" not in s and "Year Built" not in s
)
detail_key = line_text.filter(lambda s: s.strip() != "Year Built")


@given(street=line_text, year=st.one_of(st.none(), st.integers(1800, 2030)), details=st.lists(st.tuples(detail_key, line_text), max_size=6, unique_by=lambda kv: kv[0].strip()))
def test_address_text_round_trips(street: str, year: int | None, details: list[tuple[str, str]]) -> None:
    parsed = parse_address_text(format_address_text(street, year, details))
    assert parsed.address == " ".join(street.split())
    expected = {" ".join(k.split()): " ".join(v.split()) for k, v in details}
    if year is not None:
        expected["Year Built"] = str(year)
    assert parsed.details == expected


def test_address_text_examples() -> None:
    assert parse_address_text("").address == ADDRESS_UNKNOWN
    text = "701 5th Ave Year Built: 1985\nTotal Space Available: 1,200\nParking: 319,400 sq ft"
    parsed = parse_address_text(text)
    assert parsed.address == "701 5th Ave"
    assert parsed.vacancies == 1200
    assert parse_address_text("1 Main St\nTotal Space Available: Unknown").vacancies is None


@given(st.text(max_size=120))
def test_normaliser_is_idempotent_and_never_crashes(text: str) -> None:
    once = normalize_street(text)
    assert normalize_street(once) == once


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (("701 5th Avenue", "98104"), ("701 5TH AVE # 2300", "98104-7016")),
        (("701 Fifth Ave, Suite 100", "98104"), ("701 5th ave.", "98104")),
        (("8707 16th Avenue Southwest", "98106"), ("8707 16TH AVE SW", "98106")),
    ],
)
def test_same_building_same_key(a: tuple[str, str], b: tuple[str, str]) -> None:
    assert building_key(*a) == building_key(*b) is not None


@given(st.text(max_size=200))
def test_parser_never_crashes(text: str) -> None:
    try:
        parsed = UsaddressParser().parse(text)
    except AddressError as error:
        assert error.message
    else:
        # A 5-digit ZIP code or a city locates it; a street read as a building has a key (#26, items 6-7).
        assert (len(parsed.zip5) == 5 or parsed.city) and (parsed.key.street or not parsed.street_read)


def test_parser_messages_say_what_is_missing() -> None:
    parser = UsaddressParser()
    with pytest.raises(AddressError, match=EMPTY_ADDRESS):
        parser.parse("  ")
    with pytest.raises(AddressError, match="Could not find a ZIP code or a city"):
        parser.parse("701 5th Ave")
    parsed = parser.parse("701 Fifth Avenue Suite 2300, Seattle WA 98104-7016")
    assert (parsed.key.street, parsed.zip5, parsed.unit) == ("701 5TH AVE", "98104", "Suite 2300")


@given(st.dictionaries(st.sampled_from([h.code for h in HAZARDS]), st.one_of(st.none(), st.floats(0, 100))))
def test_top3_are_the_highest_non_null_scores(scores: dict[str, float | None]) -> None:
    perils = PerilScores(scores=scores)
    top = perils.top3()
    present = sorted((v for v in scores.values() if v is not None), reverse=True)
    assert [score for _h, score in top] == present[:3]
    assert len(perils.top3_combined().splitlines()) == min(3, len(present))


def test_scores_fields_keep_not_applicable_as_none() -> None:
    perils = PerilScores(scores={"HRCN": 99.2, "AVLN": None}, total=99.6)
    fields = perils.fields()
    assert fields["AVLN_Score"] is None and fields["RFLD_Score"] is None
    assert fields["Total_Score"] == 99.6 and len(fields) == 19
    assert perils.top3_combined() == "Hurricane: 99.2"
    assert format_score(57.6) == "57.6" and format_score(100.0) == "100"


def test_data_dictionary_has_twenty_rows() -> None:
    rows = data_dictionary()
    assert len(rows) == 20 and rows[0][1] == "ZIP" and rows[-1][1] == "Total_Score"
    assert ("RFLD_Score" in [r[1] for r in rows]) and [r[0] for r in rows] == list(range(1, 21))


@pytest.mark.parametrize(
    "text",
    ["HWY 18 EAST, PINE RIDGE, SD 57770", "PO BOX 287, BETHEL, AK 99559", "7TH AND TAYLOR, VANDALIA, IL 62471",
     "CARR 2 KM 47.7, BAYAMON, PR 00961"],
)
def test_a_street_that_cannot_be_tagged_is_answered_for_its_zip_and_city(text: str) -> None:
    parsed = UsaddressParser().parse(text)
    street, city, state_zip = text.rsplit(", ", 2)
    assert parsed.street_read is False and parsed.street == street
    assert (parsed.city.upper(), parsed.state, parsed.zip5) == (city, state_zip[:2], state_zip[-5:])


states = st.sampled_from(["WA", "AK", "NY", "TX", "ME"])
zips = st.from_regex(r"\d{5}", fullmatch=True)


@given(st.text(max_size=60), st.text(max_size=30), states, zips)
def test_any_text_with_a_state_and_zip_is_answered_or_refused_clearly(street: str, city: str, state: str, zip5: str) -> None:
    try:
        parsed = UsaddressParser().parse(f"{street}, {city}, {state} {zip5}")
    except AddressError as error:
        assert error.message.endswith("Enter the full address: street, city, state, ZIP.")
    else:
        assert parsed.zip5 == zip5 and parsed.key.zip5 == zip5

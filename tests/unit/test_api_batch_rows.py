"""A public API batch's addresses read by the rules of an uploaded row (#26, item 9): a state's
name is its code, a 4-digit ZIP is a dropped leading zero only where the state's ZIP codes begin
with 0 (elsewhere the row is refused with its reason), and a program's own fields become columns
after address_index; and the listings' pages by offset."""

from __future__ import annotations

import csv
import io

import pytest

from application.pages import PageRequest, page_of
from domain.batch_input import (
    FIRST_ROW,
    SubmittedAddress,
    own_field_problem,
    read_batch_csv,
    state_code,
    submitted_csv,
    zip_problem,
)


@pytest.mark.parametrize(
    ("given", "code"),
    [("WA", "WA"), ("wa", "WA"), ("Washington", "WA"), (" new  york ", "NY"), ("District of Columbia", "DC"),
     ("Puerto Rico", "PR"), ("ZZ", None), ("Wash.", None), ("", None)],
)
def test_a_state_is_read_by_its_code_or_its_name(given: str, code: str | None) -> None:
    assert state_code(given) == code


@pytest.mark.parametrize(
    ("zip_code", "state", "refused"),
    [("9810", "Washington", True), ("7870", "TX", True), ("9810", "WA", True),
     ("2108", "MA", False), ("0601", "CT", False), ("0501", "NY", False), ("0098", "PR", False),
     ("9810", "ZZ", False),  # an unknown state: the lookup judges the ZIP, as for any row
     ("98104", "WA", False), ("981", "WA", False), ("", "WA", False)],
)
def test_a_four_digit_zip_is_refused_only_where_no_zip_code_begins_with_0(zip_code: str, state: str, refused: bool) -> None:
    problem = zip_problem(zip_code, state)
    assert (problem is not None) == refused
    if refused:
        assert f"ZIP code {zip_code} has 4 digits" in problem and "a digit is missing" in problem


def test_an_uploaded_row_and_a_submitted_address_get_the_same_verdict() -> None:
    [refused, repaired] = read_batch_csv(
        "a.csv", b"Street Address,City,State,Zip\n701 5th Ave,Seattle,Washington,9810\n1 Beacon St,Boston,MA,2108\n")
    assert refused.problem == SubmittedAddress("701 5th Ave", "Seattle", "Washington", "9810").problem
    assert refused.zip == "9810" and refused.zip_note is None  # not "repaired" into another state's ZIP
    assert repaired.problem is None and repaired.zip == "02108" and repaired.zip_note


def test_submitted_addresses_become_the_csv_an_upload_would_be_with_their_own_fields_as_columns() -> None:
    text = submitted_csv([
        SubmittedAddress("701 5th Ave", "Seattle", "Washington", "98104", (("policy_no", "P-1"), ("tiv", "1,000"))),
        SubmittedAddress("1 Beacon St", "Boston", "ma", "2108"),
        SubmittedAddress("2 Main St", "Austin", "TX", "78701", (("branch", "=SUM(A1)"), ("policy_no", "P-3"))),
    ])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["Street Address", "City", "State", "Zip", "Country", "address_index", "policy_no", "tiv", "branch"]
    assert [r["State"] for r in rows] == ["WA", "MA", "TX"]
    assert [(r["policy_no"], r["tiv"], r["branch"]) for r in rows] == [("P-1", "1,000", ""), ("", "", ""), ("P-3", "", "=SUM(A1)")]
    read = read_batch_csv("api-batch.csv", text.encode())
    assert [row.line for row in read] == [int(r["address_index"]) + FIRST_ROW for r in rows]
    assert read[0].extra == (("address_index", "0"), ("policy_no", "P-1"), ("tiv", "1,000"), ("branch", ""))


@pytest.mark.parametrize("name", ["Zip", "zip", "address_index", "Street Address", "COUNTRY", "", " policy", "policy "])
def test_an_own_field_may_not_take_a_columns_name_or_be_blank(name: str) -> None:
    assert own_field_problem(name) is not None


def test_an_own_field_may_have_any_other_name() -> None:
    assert own_field_problem("policy_no") is None and own_field_problem("Zip code (mailing)") is None


def test_a_page_says_where_the_next_one_starts_or_that_it_is_the_last() -> None:
    request = PageRequest(offset=4, limit=2)
    assert request.fetch == 3
    assert (page := page_of(["e", "f", "g"], request)).items == ["e", "f"] and page.next_offset == 6
    assert page_of(["e", "f"], request).next_offset is None
    assert page_of([], PageRequest(offset=100, limit=2)).next_offset is None

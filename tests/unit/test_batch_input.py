"""A corpus of malformed batch CSVs, each with its clear message; and the files that must load."""

from __future__ import annotations

import pytest

from domain.batch_input import MAX_ROWS, UploadError, read_batch_csv

HEADER = "Street Address,City,State,Zip,Country\n"
GOOD_ROW = "701 5th Ave,Seattle,WA,98104,US\n"

MALFORMED = [
    ("wrong extension", "addresses.xlsx", (HEADER + GOOD_ROW).encode(), "Only .csv files"),
    ("empty", "a.csv", b"", "The file is empty"),
    ("only whitespace", "a.csv", b"  \n\n  \n", "The file is empty"),
    ("binary", "a.csv", b"PK\x03\x04\x00\x00binary", "binary data"),
    ("no header, just data", "a.csv", GOOD_ROW.encode(), "Missing required column(s): Street Address, City, State, Zip"),
    ("missing Zip", "a.csv", b"Street Address,City,State\n701 5th Ave,Seattle,WA\n", "Missing required column(s): Zip"),
    ("missing City and State", "a.csv", b"Street Address,Zip\nx,98104\n", "City, State"),
    ("header only", "a.csv", HEADER.encode(), "no address rows"),
    ("header and blank lines", "a.csv", (HEADER + "\n,,,,\n\n").encode(), "no address rows"),
    ("ragged row, too few", "a.csv", (HEADER + GOOD_ROW + "1 Main St,Miami\n").encode(), "Line 3 has 2 values"),
    ("ragged row, too many", "a.csv", (HEADER + "1 Main St,Miami,FL,33130,US,extra\n").encode(), "Line 2 has 6 values"),
    ("empty header cells", "a.csv", b",,,\nx,y,z,w\n", "The first row must be a header"),
    ("unterminated quote", "a.csv", (HEADER + '"701 5th Ave,Seattle,WA,98104,US\n').encode(), "values but the header"),
    ("semicolon separated", "a.csv", b"Street Address;City;State;Zip\n701 5th Ave;Seattle;WA;98104\n", "Missing required column(s)"),
    ("too large", "a.csv", b"x" * (20 * 1024 * 1024 + 1), "larger than 20 MB"),
    ("too many rows", "a.csv", (HEADER + GOOD_ROW * (MAX_ROWS + 1)).encode(), "more than 100,000"),
]


@pytest.mark.parametrize(("case", "filename", "content", "message"), MALFORMED, ids=[c[0] for c in MALFORMED])
def test_malformed_files_get_a_clear_message(case: str, filename: str, content: bytes, message: str) -> None:
    with pytest.raises(UploadError) as raised:
        read_batch_csv(filename, content)
    assert message in raised.value.message, case


def test_a_nul_anywhere_in_the_file_is_refused_with_its_line() -> None:
    # Past the first 64 KiB, where a sniff of the start would not look.
    rows = GOOD_ROW * 3000
    content = (HEADER + rows + "1 Main St,Miami,FL,331\x0030,US\n" + GOOD_ROW).encode()
    assert content.index(b"\x00") > 65536
    with pytest.raises(UploadError) as raised:
        read_batch_csv("a.csv", content)
    assert "line 3,002 contains binary data (a NUL byte)" in raised.value.message
    assert not raised.value.too_large


def test_sizes_are_flagged_for_a_413() -> None:
    with pytest.raises(UploadError) as raised:
        read_batch_csv("a.csv", b"x" * (20 * 1024 * 1024 + 1))
    assert raised.value.too_large


def test_headers_match_ignoring_case_and_spaces_bom_and_latin1() -> None:
    content = "\ufeff  street address , CITY,state ,ZIP\n701 5th Ave,Seattle,WA,98104\n\n1 Café Way,Miami,FL,33130\n"
    rows = read_batch_csv("A.CSV", content.encode("utf-8"))
    assert [r.street for r in rows] == ["701 5th Ave", "1 Café Way"]
    assert rows[0].country == "US" and rows[1].line == 4
    latin = read_batch_csv("a.csv", content.replace("\ufeff", "").encode("latin-1"))
    assert latin[1].street == "1 Café Way"


def test_one_hundred_thousand_rows_are_accepted() -> None:
    rows = read_batch_csv("a.csv", (HEADER + GOOD_ROW * MAX_ROWS).encode())
    assert len(rows) == MAX_ROWS

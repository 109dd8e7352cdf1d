"""A corpus of malformed batch CSVs, each with its clear message; and the files that must load."""

from __future__ import annotations

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.batch_input import MAX_ROW_CHARS, BatchCsvReader, UploadCaps, UploadError, read_batch_csv

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
    ("too large", "a.csv", b"x" * (20 * 1024 * 1024 + 1), "larger than 20.0 MB"),
    ("too many rows", "a.csv", (HEADER + GOOD_ROW * (1000 + 1)).encode(), "more than 1,000 address rows"),
    ("a line without end", "a.csv", (HEADER + "x" * (MAX_ROW_CHARS + 1)).encode(), "without a line break"),
    ("a quote that never closes", "a.csv", (HEADER + '"x' + GOOD_ROW * 40_000).encode(), "field larger than field limit"),
]
CAPS = UploadCaps(max_rows=1000, max_bytes=20 * 1024 * 1024)


@pytest.mark.parametrize(("case", "filename", "content", "message"), MALFORMED, ids=[c[0] for c in MALFORMED])
def test_malformed_files_get_a_clear_message(case: str, filename: str, content: bytes, message: str) -> None:
    with pytest.raises(UploadError) as raised:
        read_batch_csv(filename, content, CAPS)
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


@pytest.mark.parametrize("control", ["\x1b", "\x07", "\x01", "\x08", "\x0b", "\x0c", "\x1f"])
def test_a_control_character_in_a_cell_is_refused_with_its_line(control: str) -> None:
    # ESC and BEL too: a cell is copied into every export, and on to whatever shows it.
    content = (HEADER.replace("Country", "Country,Note") + "701 5th Ave,Seattle,WA,98104,US,ok\n"
               + f"1 Main St,Miami,FL,33130,US,a{control}[31m\n").encode()
    with pytest.raises(UploadError) as raised:
        read_batch_csv("a.csv", content)
    assert raised.value.message == (
        f"Line 3 contains a control character (U+{ord(control):04X}). Remove it and try again."
    )


def test_tabs_and_line_breaks_in_a_quoted_cell_are_kept() -> None:
    content = (HEADER.replace("Country", "Country,Note") + '701 5th Ave,Seattle,WA,98104,US,"a\tb\r\nc"\n').encode()
    assert read_batch_csv("a.csv", content)[0].extra == (("Note", "a\tb\r\nc"),)


def test_sizes_are_flagged_for_a_413_with_the_cap() -> None:
    with pytest.raises(UploadError) as raised:
        read_batch_csv("a.csv", b"x" * 1001, UploadCaps(max_bytes=1000))
    assert raised.value.too_large and "larger than 1000 bytes" in raised.value.message
    with pytest.raises(UploadError) as raised:
        read_batch_csv("a.csv", (HEADER + GOOD_ROW * 3).encode(), UploadCaps(max_rows=2))
    assert raised.value.too_large and "more than 2 address rows" in raised.value.message


def test_headers_match_ignoring_case_and_spaces_bom_and_latin1() -> None:
    content = "\ufeff  street address , CITY,state ,ZIP\n701 5th Ave,Seattle,WA,98104\n\n1 Café Way,Miami,FL,33130\n"
    rows = read_batch_csv("A.CSV", content.encode("utf-8"))
    assert [r.street for r in rows] == ["701 5th Ave", "1 Café Way"]
    assert rows[0].country == "US" and rows[1].line == 4
    latin = read_batch_csv("a.csv", content.replace("\ufeff", "").encode("latin-1"))
    assert latin[1].street == "1 Café Way"


def test_exactly_the_cap_is_accepted() -> None:
    rows = read_batch_csv("a.csv", (HEADER + GOOD_ROW * 1000).encode(), CAPS)
    assert len(rows) == 1000


def read_in_pieces(content: bytes, cuts: list[int]) -> tuple[str, list]:
    """The file fed in the pieces `cuts` makes of it: its text as stored, and its rows."""
    reader = BatchCsvReader("a.csv")
    texts, rows = [], []
    bounds = [0, *sorted(cut % (len(content) + 1) for cut in cuts), len(content)]
    for start, end in zip(bounds, bounds[1:], strict=False):
        text, got = reader.feed(content[start:end])
        texts.append(text)
        rows.extend(reader.address(row) for row in got)
    text, got = reader.finish()
    texts.append(text)
    rows.extend(reader.address(row) for row in got)
    return "".join(texts), rows


CELL = st.text(alphabet=st.sampled_from('ab ,"\n\ré7'), max_size=6)


@settings(max_examples=80, deadline=None)
@given(
    cells=st.lists(st.tuples(CELL, CELL), min_size=1, max_size=12),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "latin-1"]),
    cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=8),
)
def test_any_cut_of_the_bytes_reads_as_the_whole_file(cells: list[tuple[str, str]], newline: str, encoding: str,
                                                       cuts: list[int]) -> None:
    """A stream may cut a file anywhere: in a UTF-8 character, a CRLF, a quoted value."""
    def quoted(value: str) -> str:
        return '"' + value.replace('"', '""') + '"'

    lines = ["Street Address,City,State,Zip,Notes"]
    lines += [f"{quoted('1 ' + street)},Seattle,WA,98104,{quoted(note)}" for street, note in cells]
    text = newline.join(lines) + newline
    content = text.encode(encoding)
    stored, rows = read_in_pieces(content, cuts)
    assert stored == text  # stored as it was sent, whatever its encoding (BOM dropped)
    assert rows == read_batch_csv("a.csv", content)
    assert [row.street for row in rows] == [("1 " + street).strip() for street, _ in cells]


def test_a_file_utf8_first_and_latin1_after_keeps_both() -> None:
    content = (HEADER + "1 Café Way,Miami,FL,33130,US\n").encode() + "2 Señor St,Miami,FL,33130,US\n".encode("latin-1")
    _, rows = read_in_pieces(content, [len(content) - 3])
    assert [row.street for row in rows] == ["1 Café Way", "2 Señor St"]

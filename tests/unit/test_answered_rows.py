"""A chunk's answered rows gathered into its result (application/answered_rows.py)."""

from __future__ import annotations

import json
import tracemalloc

import msgspec

from application.answered_rows import AnsweredRows
from domain.batch_input import AddressRow


def row(line: int, policy: str) -> AddressRow:
    return AddressRow(line=line, street=f"{line} Main St", city="Seattle", state="WA", zip="98101", country="US",
                      extra=(("Policy", policy), ("TIV", "1000")))


def answer(county: str) -> tuple[str, bytes]:
    return f"line of {county}\r\n", msgspec.json.encode({"county": county, "perils": {"ERQK": 99.5}})


def test_each_record_is_the_rows_own_part_then_its_answer_in_order() -> None:
    answered = AnsweredRows()
    shared = answer("Cañon County, ID")  # a repeated address shares its answer's bytes
    for line, policy in ((2, "P-1"), (3, "=cmd()"), (4, "P-3")):  # a formula stays text
        answered.add(row(line, policy), shared if line != 3 else answer("King County, WA"))

    result = answered.result()

    records = [json.loads(line) for line in result.detail.decode().splitlines()]
    assert [(r["row"], r["input"]["Policy"], r["county"]) for r in records] == [
        (2, "P-1", "Cañon County, ID"), (3, "'=cmd()", "King County, WA"), (4, "P-3", "Cañon County, ID")]
    assert result.lines == "line of Cañon County, ID\r\nline of King County, WA\r\nline of Cañon County, ID\r\n"
    assert (result.detail_columns, result.rows_failed, result.error) == (("Policy", "TIV"), 0, None)


def test_failed_rows_say_how_many_and_why() -> None:
    answered = AnsweredRows()
    answered.add(row(2, "P-1"), answer("King County, WA"))
    result = answered.result(rows_failed=answered.count, error="the lookup failed 3 times")
    assert (answered.count, result.rows_failed, result.failed) == (1, 1, True)


def test_a_chunks_records_are_held_once_not_as_a_list_and_then_their_join() -> None:
    # A detailed record is about 6 KB; the export line, a few hundred bytes.
    big = ("line\r\n", msgspec.json.encode({"county": "King County, WA", "perils": "x" * 6000}))
    rows = [row(line, f"P-{line}") for line in range(2, 3002)]
    tracemalloc.start()
    try:
        answered = AnsweredRows()
        for each in rows:
            answered.add(each, big)
        result = answered.result()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * len(result.detail)

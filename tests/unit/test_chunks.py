"""Chunk planning and reassembly: every row exactly once, in order, whatever the sizes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.batch_input import iter_batch_csv
from domain.chunks import in_input_order, plan_chunks, rows_of, split_csv

import pytest


@given(rows=st.integers(min_value=0, max_value=5000), size=st.integers(min_value=1, max_value=700))
def test_a_plan_covers_every_row_once_in_order(rows: int, size: int) -> None:
    plans = plan_chunks(rows, size)
    covered = [row for plan in plans for row in range(plan.first_row, plan.first_row + plan.row_count)]
    assert covered == list(range(rows))
    assert all(0 < plan.row_count <= size for plan in plans)
    assert [plan.index for plan in plans] == list(range(len(plans)))


CELL = st.text(alphabet=st.sampled_from("ab ,\"\n7"), max_size=6)


@settings(max_examples=60, deadline=None)
@given(
    records=st.lists(st.tuples(CELL, CELL), min_size=1, max_size=40),
    blank_every=st.integers(min_value=0, max_value=5),
    size=st.integers(min_value=1, max_value=12),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_split_chunks_give_back_every_row_of_the_file_once_in_order(
    records: list[tuple[str, str]], blank_every: int, size: int, newline: str
) -> None:
    def quoted(value: str) -> str:
        return '"' + value.replace('"', '""') + '"'

    lines = ["Street Address,City,State,Zip,Policy"]
    for number, (street, policy) in enumerate(records):
        if blank_every and number % blank_every == 0:
            lines.append("")  # blank lines are skipped wherever they fall
        lines.append(f"{quoted(str(number) + ' ' + street)},Seattle,WA,98104,{quoted(policy)}")
    text = newline.join(lines) + newline
    whole = list(iter_batch_csv("all.csv", text.encode()))

    chunks = list(split_csv("all.csv", text, size))
    rejoined = [row for chunk in chunks for row in rows_of(chunk.text, chunk.line_offset)]

    assert rejoined == whole  # same rows, same values, same file line numbers
    assert [chunk.plan for chunk in chunks] == plan_chunks(len(whole), size)


def test_reassembly_refuses_a_missing_or_repeated_chunk() -> None:
    plans = plan_chunks(5, 2)
    assert "".join(in_input_order((plan, f"{plan.index}") for plan in plans)) == "012"
    with pytest.raises(ValueError, match="expected row 2"):
        list(in_input_order([(plans[0], "a"), (plans[0], "a")]))
    with pytest.raises(ValueError, match="expected row 2"):
        list(in_input_order([(plans[0], "a"), (plans[2], "c")]))

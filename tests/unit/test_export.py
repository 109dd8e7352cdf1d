"""The export CSV: the formula-injection guard and the address grouping survive a round trip."""

from __future__ import annotations

import csv
import io

from hypothesis import given
from hypothesis import strategies as st

from domain.export import (
    EXPORT_COLUMNS,
    FORMULA_TRIGGERS,
    export_header,
    export_rows,
    group_rows,
    result_rows,
    rows_csv,
    safe_cell,
    to_csv,
)

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@given(text)
def test_no_cell_starts_with_a_formula_trigger(value: str) -> None:
    cell = safe_cell(value)
    assert not str(cell).startswith(FORMULA_TRIGGERS)
    assert str(cell).endswith(value) and len(str(cell)) - len(value) in (0, 1)


def test_numbers_stay_numbers() -> None:
    assert safe_cell(-122.33) == -122.33 and safe_cell("-122") == "'-122" and safe_cell("=1+1") == "'=1+1"


occupant = st.fixed_dictionaries({"name": text, "vicinity": text, "types": st.lists(text.filter(lambda t: "," not in t), max_size=3),
                                  "business_status": st.sampled_from(["OPERATIONAL", "CLOSED_PERMANENTLY", "NA"]),
                                  "naics_code": st.sampled_from(["518210", "N/A"])})
result = st.fixed_dictionaries({
    "address": text.filter(lambda t: t.strip() != "").map(lambda t: "A " + t),  # every group has an address
    "occupants": st.lists(occupant, max_size=4),
    "Total_Score": st.one_of(st.none(), st.floats(0, 100, allow_nan=False)),
    "Top3_Scores_Combined": text,
})


@given(st.lists(result, max_size=6))
def test_export_then_regroup_gives_back_the_groups(results: list[dict]) -> None:
    parsed = list(csv.DictReader(io.StringIO(to_csv(export_rows(results)))))
    assert list(parsed[0]) == list(EXPORT_COLUMNS) if parsed else True
    groups, dropped = group_rows(parsed)
    assert dropped == 0
    assert [g["address"] for g in groups] == [safe_cell(r["address"]) for r in results]
    assert [len(g["rows"]) for g in groups] == [max(1, len(r["occupants"])) for r in results]


def test_rows_before_any_group_are_dropped_and_counted() -> None:
    groups, dropped = group_rows([{"address": "", "name": "x"}, {"address": "1 Main St", "name": "a"}, {"address": "", "name": "b"}])
    assert dropped == 1 and len(groups) == 1 and len(groups[0]["rows"]) == 2


@given(st.lists(result, max_size=6))
def test_an_export_written_answer_by_answer_is_the_export_written_at_once(results: list[dict]) -> None:
    # A batch job keeps each answer as its lines and joins them at the end.
    assert export_header() + "".join(rows_csv(result_rows(r)) for r in results) == to_csv(export_rows(results))

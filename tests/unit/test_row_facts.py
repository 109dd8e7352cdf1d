"""A batch row's facts (domain/row_facts.py): every field of today's detailed record, detailed
columns and SPEC CSV rows made again from the facts and their score rows, for any answer."""

from __future__ import annotations

from dataclasses import replace

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.detailed_export import ANSWER_COLUMN_NAMES, _answer_record, answer_fields
from domain.export import result_rows
from domain.lookup_result import not_located
from domain.row_facts import (
    ANSWER_FACT_FIELDS, COUNTY, TRACT, answer_facts, answer_record_of, detailed_fields_of, facts_of, score_key,
    score_rows, scores_of, spec_rows_of,
)
from tests.support.result_dataset import answers, sample_answer


def _rows_by_level(result) -> tuple[dict | None, dict | None]:  # noqa: ANN001
    rows = {row["level"]: row for row in score_rows(result)}
    return rows.get(COUNTY), rows.get(TRACT)


def _json(value: object) -> object:
    return msgspec.json.decode(msgspec.json.encode(value))


@settings(max_examples=150, deadline=None)
@given(answers())
def test_the_facts_and_score_rows_give_back_every_field_of_the_detailed_record(result) -> None:  # noqa: ANN001
    facts = answer_facts(result)
    county, tract = _rows_by_level(result)
    assert detailed_fields_of(facts, county, tract) == answer_fields(result)
    assert set(detailed_fields_of(facts, county, tract)) == set(ANSWER_COLUMN_NAMES) - {"row"}
    assert _json(answer_record_of(facts, county, tract)) == _json(_answer_record(result))
    assert spec_rows_of(facts, county) == result_rows(result)


@settings(max_examples=50, deadline=None)
@given(answers())
def test_a_facts_row_has_every_field_once_and_a_score_row_per_set_of_scores(result) -> None:  # noqa: ANN001
    row = facts_of(7, ["a", None], result)
    assert list(row)[:3] == ["row", "input_0", "input_1"] and set(list(row)[3:]) == set(ANSWER_FACT_FIELDS)
    assert len(row) == 3 + len(ANSWER_FACT_FIELDS)
    levels = [score_key(s)[0] for s in score_rows(result)]
    assert levels == ([COUNTY] if result.perils is not None else []) + ([TRACT] if result.tract_perils else [])
    assert row["scored"] is (result.perils is not None) and row["tract_scored"] is (result.tract_perils is not None)
    for score in score_rows(result):
        geoid = row["county_fips"] if score["level"] == COUNTY else row["tract_geoid"]
        version = row["nri_version"] if score["level"] == COUNTY else row["tract_nri_version"]
        assert score_key(score) == (score["level"], geoid, version)
        source = result.perils if score["level"] == COUNTY else result.tract_perils.scores
        assert scores_of(score).fields() == source.fields()


def test_the_users_values_are_kept_as_they_came_never_neutralised() -> None:
    row = facts_of(2, [("TIV", "-2+3"), ("Note", "=HYPERLINK(1)"), ("Empty", "")], sample_answer())
    assert (row["row"], row["input_0"], row["input_1"], row["input_2"]) == (2, "-2+3", "=HYPERLINK(1)", "")
    assert facts_of(2, ["-2+3", None], sample_answer())["input_1"] is None


def test_unknown_is_none_never_zero() -> None:
    unread = not_located("nowhere", "could not read a street and 5-digit ZIP", "2026-11-28T10:00:00+00:00", "s")
    facts = answer_facts(unread)
    for name in ("lat", "lng", "county_confidence", "year_built", "floors", "gross_floor_area_sqft",
                 "parking_area_sqft", "occupant_count", "tract_notes", "tract_note", "cache_max_age_hours"):
        assert facts[name] is None, name
    assert (facts["scored"], facts["tract_scored"], facts["status"]) == (False, False, "not located")
    assert score_rows(unread) == []
    # Occupants known and none: 0; occupants not covered: unknown.
    answered = sample_answer()
    assert answer_facts(answered)["occupant_count"] == 1
    assert answer_facts(replace(answered, occupants=()))["occupant_count"] is None


def test_a_score_row_keeps_none_for_a_hazard_without_score() -> None:
    county, _ = _rows_by_level(sample_answer())
    assert county is not None
    assert county["ERQK_Score"] == 99.2 and county["AVLN_Score"] is None and county["AVLN_Rating"] is None
    assert (county["Total_Score"], county["top_3"], county["top3_combined"]) == (99.1, "Earthquake 99.2", "Earthquake: 99.2")


@given(st.lists(answers(), min_size=1, max_size=5))
@settings(max_examples=30, deadline=None)
def test_rows_of_the_same_county_and_release_share_one_score_row(results: list) -> None:  # noqa: ANN001
    keyed: dict = {}
    for result in results:
        for row in score_rows(result):
            assert keyed.setdefault(score_key(row), row) == row

"""The export CSV: the formula-injection guard and the address grouping survive a round trip."""

from __future__ import annotations

from domain.address import BuildingKey
from domain.lookup_result import Location, LookupResult, Provenance
from domain.occupancy import GeoPoint, Occupant, ParsedAddress
from domain.perils import HAZARDS, PerilScores

import csv
import io
from dataclasses import replace

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from domain.detailed_export import ScoreTexts, answer_record, neutralised, neutralised_json
from domain.export import (
    EXPORT_COLUMNS,
    FORMULA_TRIGGERS,
    export_header,
    export_rows,
    group_rows,
    client_rows,
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
    assert export_header() + "".join(rows_csv(client_rows(r)) for r in results) == to_csv(export_rows(results))


def _answer(scores: PerilScores | None, point: GeoPoint | None, occupants: tuple[Occupant, ...] = ()) -> LookupResult:
    address = ParsedAddress("1 Calle Luna", "San Juan", "PR", "00901", None, BuildingKey("1 CALLE LUNA", "00901"))
    return LookupResult(
        search_id="s1", query="1 Calle Luna, San Juan, PR 00901", address=address,
        location=Location("zip", "72127", "San Juan", "PR", 1.0, False, point=point),
        perils=scores, building=None, occupants=occupants,
        provenance=Provenance("1.20.0", "embedded", "registry", "NRI", None, "2026-11-23T10:00:00+00:00"),
    )


def test_unknown_scores_and_places_stay_empty_never_zero() -> None:
    """Puerto Rico's municipios have no NRI scores: the export says nothing, not 0."""
    unscored = PerilScores(scores={h.code: None for h in HAZARDS}, total=None)
    [row] = result_rows(_answer(unscored, None))
    assert row["Total_Score"] is None and row["lat"] is None and row["lng"] is None
    assert row["name"] == "NA" and row["Top3_Scores_Combined"] == ""
    parsed = next(csv.DictReader(io.StringIO(to_csv([row]))))
    assert parsed["Total_Score"] == "" and parsed["lat"] == "" and parsed["lng"] == ""


def test_an_occupant_without_coordinates_gets_the_answers_point() -> None:
    centre = GeoPoint(18.4655, -66.1057, "zip_centroid")
    shop = Occupant(name="Shop", vicinity="1 Calle Luna")
    placed = Occupant(name="Bank", vicinity="1 Calle Luna", lat=18.47, lng=-66.1)
    rows = result_rows(_answer(PerilScores(scores={}, total=41.5), centre, (shop, placed)))
    assert [(r["lat"], r["lng"]) for r in rows] == [(18.4655, -66.1057), (18.47, -66.1)]
    assert rows[0]["Total_Score"] == 41.5 and rows[1]["address"] == ""


# JSON-like values whose text often starts with a formula trigger, in keys, values, lists and tuples.
trigger_text = st.one_of(text, st.builds(lambda t, rest: t + rest, st.sampled_from(FORMULA_TRIGGERS), text))
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False), trigger_text)
json_like = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(trigger_text, inner, max_size=4)),
    max_leaves=25,
)


@given(st.dictionaries(trigger_text, json_like, max_size=6))
def test_neutralised_json_is_the_neutralised_record_encoded(record: dict) -> None:
    """The batch's fast path (encode, copy only when a trigger may be there) writes exactly what
    neutralising the whole record first would."""
    assert neutralised_json(record, msgspec.json.encode) == msgspec.json.encode(neutralised(record))


def test_neutralised_json_neutralises_each_trigger_where_it_is() -> None:
    record = {"=key": "=1+1", "notes": ["ok", "\tTab", "\rReturn"], "deep": {"at": "@SUM(A1)"}, "n": -3,
              "kept": ("=in a tuple",), "quoted": 'say "-1"'}
    assert msgspec.json.decode(neutralised_json(record, msgspec.json.encode)) == {
        "=key": "'=1+1", "notes": ["ok", "'\tTab", "'\rReturn"], "deep": {"at": "'@SUM(A1)"}, "n": -3,
        "kept": ["=in a tuple"], "quoted": 'say "-1"'}


ratings = st.one_of(st.none(), st.sampled_from(["Very High", "Relatively Low", "=HYPERLINK()", "-bad"]))
peril_scores = st.one_of(st.none(), st.builds(
    PerilScores,
    scores=st.fixed_dictionaries({h.code: st.one_of(st.none(), st.floats(0, 100, allow_nan=False)) for h in HAZARDS}),
    ratings=st.fixed_dictionaries({h.code: ratings for h in HAZARDS}),
    total=st.one_of(st.none(), st.floats(0, 100, allow_nan=False)),
    total_rating=ratings,
))


@given(st.lists(st.tuples(peril_scores, st.sampled_from(["1 Calle Luna", "=1+1 Calle Luna", "+Calle"])), max_size=6))
def test_a_batch_record_built_from_shared_score_parts_is_the_record(answers: list) -> None:
    """ScoreTexts encodes each set of scores once for the rows that share it; what it gives must
    decode to exactly answer_record's (neutralised) record, for any scores, repeated or not."""
    texts = ScoreTexts(msgspec.json.encode, capacity=2)  # small: its clearing is exercised too
    for scores, street in answers + answers:
        answer = _answer(scores, GeoPoint(18.4, -66.1, "zip_centroid"))
        answer = replace(answer, query=street, address=replace(answer.address, street=street))
        assert msgspec.json.decode(texts.record_json(answer)) == msgspec.json.decode(msgspec.json.encode(answer_record(answer)))
        assert texts.top3_combined(scores) == (scores.top3_combined() if scores else "")

"""Census-tract scores beside the county's (application/lookup.py on in-memory ports): where the
tract comes from, which release is shown, the note when releases differ, and each edge's copy."""

from __future__ import annotations

import msgspec
import pytest

from adapters.db.result_codec import decode_result, encode_result
from application.ports.accounts import AccessClaims
from application.ports.lookup import TractScores
from domain.accounts import Role
from domain.answer_record import receipt_record
from domain.detailed_export import ANSWER_COLUMN_NAMES, answer_fields
from domain.lookup_result import LookupResult
from domain.occupancy import Building, GeoPoint, ParsedAddress
from domain.perils import PerilScores
from entrypoints.http.presenters import spec_json
from entrypoints.http.v1_schema import risk_assessment
from tests.fakes import LookupWorld, in_memory_lookup

ANN = AccessClaims("ann")
ADDRESS = "4800 Cordova St, Anchorage, AK 99503"  # county 02020 in tests/fakes.py, NRI 1.20.0
V119, V120 = "1.19.0 (March 2023)", "1.20.0 (December 2025)"


def tract(geoid: str, version: str, total: float) -> TractScores:
    scores = PerilScores(scores={"ERQK": total, "AVLN": None}, ratings={"ERQK": "Very High", "AVLN": "Not Applicable"},
                         total=total, total_rating="Relatively High")
    return TractScores(geoid, geoid[:5], scores, version)


class DictTracts:
    name = "fake NRI tracts"

    def __init__(self, *loaded: TractScores) -> None:
        self._loaded = loaded

    async def for_tract(self, tract_geoid: str, prefer_version: str | None) -> TractScores | None:
        versions = [t for t in self._loaded if t.tract_geoid == tract_geoid]
        same = [t for t in versions if prefer_version and t.nri_version and t.nri_version.startswith(prefer_version)]
        return (same or versions or [None])[0]


class OneBuilding:
    name = "fake building records"

    def __init__(self, tract_geoid: str | None) -> None:
        self._tract = tract_geoid

    async def building_at(self, key) -> Building | None:  # noqa: ANN001
        return Building(address="4800 Cordova St", year_built=1980, tract_geoid=self._tract)


class TractGeocoder:
    name = "fake census"

    def __init__(self, tract_geoid: str) -> None:
        self._tract = tract_geoid

    async def geocode(self, address: ParsedAddress) -> GeoPoint | None:
        return GeoPoint(61.19, -149.87, "census_exact", county_fips="02020", tract_geoid=self._tract)


def world(**providers: object) -> LookupWorld:
    built = in_memory_lookup(**providers)  # type: ignore[arg-type]
    built.users.update(ann=Role.USER)
    return built


async def test_a_building_records_tract_brings_its_scores_with_the_release_note() -> None:
    result = await world(tracts=DictTracts(tract("02020000100", V119, 61.5)), buildings=OneBuilding("02020000100")).service.look_up(ANN, ADDRESS)
    tract_scores = result.tract_perils
    assert tract_scores is not None and tract_scores.tract_from == "building record"
    assert tract_scores.scores.total == 61.5 and result.perils.total == 31.2  # the county's stay the primary
    assert any("NRI 1.19.0 (March 2023)" in n and "NRI 1.20.0 (December 2025)" in n for n in tract_scores.notes)
    receipt = receipt_record(result)
    assert receipt["geography_level"] == "county"
    assert receipt["score_geographies"] == [
        {"geography_level": "county", "geoid": "02020", "nri_version": "1.20.0"},
        {"geography_level": "tract", "geoid": "02020000100", "nri_version": V119},
    ]


async def test_the_tract_is_shown_from_the_county_release_when_both_are_loaded() -> None:
    tracts = DictTracts(tract("02020000100", V119, 61.5), tract("02020000100", V120, 58.0))
    result = await world(tracts=tracts, geocoder=TractGeocoder("02020000100")).service.look_up(ANN, ADDRESS)
    assert result.tract_perils.nri_version == V120 and result.tract_perils.tract_from == "geocoder"
    assert not any("different releases" in n for n in result.tract_perils.notes)


async def test_an_unloaded_tract_gives_no_tract_scores_but_keeps_its_geoid() -> None:
    result = await world(tracts=DictTracts(), geocoder=TractGeocoder("02020000200")).service.look_up(ANN, ADDRESS)
    assert result.tract_perils is None and result.location.tract_geoid == "02020000200"
    assert receipt_record(result)["score_geographies"] == [{"geography_level": "county", "geoid": "02020", "nri_version": "1.20.0"}]


async def test_a_tract_of_another_county_is_left_out_and_said_so() -> None:
    tracts = DictTracts(tract("02122000100", V120, 70.0))
    result = await world(tracts=tracts, buildings=OneBuilding("02122000100")).service.look_up(ANN, ADDRESS)
    assert result.tract_perils is None and result.location.low_confidence
    assert any("02122000100" in n and "left out" in n for n in result.location.notes)


@pytest.fixture
async def with_tract() -> LookupResult:
    tracts = DictTracts(tract("02020000100", V119, 61.5))
    return await world(tracts=tracts, buildings=OneBuilding("02020000100")).service.look_up(ANN, ADDRESS)


async def test_the_detailed_export_carries_tract_columns_empty_when_unknown(with_tract: LookupResult) -> None:
    fields = answer_fields(with_tract)
    assert {"tract_Total_Score", "tract_ERQK_Score", "tract_nri_version", "tract_note"} <= set(ANSWER_COLUMN_NAMES)
    assert (fields["tract_Total_Score"], fields["tract_ERQK_Score"], fields["tract_nri_version"]) == (61.5, 61.5, V119)
    assert fields["tract_AVLN_Score"] is None and "different releases" in fields["tract_note"]
    without = answer_fields(await world().service.look_up(ANN, ADDRESS))
    assert all(without[name] is None for name in ANSWER_COLUMN_NAMES if name.startswith("tract_"))


async def test_the_web_and_v1_answers_carry_the_tract_beside_the_county(with_tract: LookupResult) -> None:
    web = spec_json(with_tract)
    assert web["Total_Score"] == 31.2 and web["tract"]["Total_Score"] == 61.5
    assert web["tract"]["geography_level"] == "tract" and web["tract"]["nri_version"] == V119
    v1 = msgspec.to_builtins(risk_assessment(with_tract))
    assert v1["total_score"] == 31.2 and v1["tract"]["total_score"] == 61.5 and v1["tract"]["scores"]["AVLN"] is None
    assert [g["geography_level"] for g in v1["provenance"]["score_geographies"]] == ["county", "tract"]
    assert msgspec.to_builtins(risk_assessment(await world().service.look_up(ANN, ADDRESS)))["tract"] is None


async def test_stored_answers_read_back_with_and_without_tract_scores(with_tract: LookupResult) -> None:
    assert decode_result(encode_result(with_tract)) == with_tract
    old = msgspec.json.decode(encode_result(with_tract))
    old.pop("tract_perils")
    old["provenance"].pop("tract_perils")
    decoded = decode_result(msgspec.json.encode(old).decode())
    assert isinstance(decoded, LookupResult) and decoded.tract_perils is None

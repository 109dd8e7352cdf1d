"""The portfolio summary of a finished batch over HTTP, on SQLite and PostgreSQL: the figures of
a small real batch, the value column, the chosen peril, owner scoping and clear 4xx answers."""

from __future__ import annotations

from datetime import UTC, datetime

from httpx import AsyncClient

from application.ports.batch import ExportFile
from entrypoints.container import Container
from tests.api.test_detailed_export import _finished_export
from tests.conftest import sign_up_and_log_in
from tests.support.result_dataset import write_dataset
from tests.unit.test_portfolio import TRACT_BOOK, V119, V120


async def test_the_summary_of_a_finished_batch(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "portfolio@example.com")
    name = await _finished_export(client, container, user["headers"])

    answer = await client.get(f"/api/exports/{name}/portfolio", params={"value_column": "insured_value"},
                              headers=user["headers"])
    assert answer.status_code == 200, answer.text
    body = answer.json()
    head = body["headline"]
    # Seattle twice, San Juan, Allston, and one row that could not be read.
    assert head["rows"] == 5 and head["not_located"] == 1 and head["located"] == 4
    assert head["located_by_match_level"]["building"] == 2 and head["with_building_record"] == 2
    assert head["low_confidence"] >= 1 and head["with_occupants"] >= 2
    composite = body["distributions"][0]
    assert composite["peril"] == "composite" and len(body["distributions"]) == 19
    # Puerto Rico has no NRI scores and the unread row none: unknown, not in the histogram.
    assert composite["unknown"] == 2 and sum(composite["bins"]) == composite["scored"] == 3
    counties = {c["county_fips"]: c for c in body["counties"]}
    assert counties["53033"]["locations"] == 2 and counties["53033"]["value"] == 5_000_000
    assert counties["53033"]["county_name"] and counties["53033"]["top_hazards"]
    assert counties["72127"]["composite_score"] is None
    value = body["value"]
    assert value["column"] == "insured_value" and value["total"] == 5_000_400 and value["blank"] == 1
    assert [r["row"] for r in body["riskiest"]][:2] in ([2, 6], [4, 2])
    assert all(r["score"] is not None for r in body["riskiest"]) and len(body["riskiest"]) == 3
    assert body["value_columns"] == ["policy_no", "insured_value"]
    # Both Seattle rows' most common occupants are banks; no occupant source covers San Juan and
    # Allston (unknown, not none); the unread row is not located.
    assert [(s["sector"], s["name"], s["locations"]) for s in body["sectors"]] == [
        ("52", "Finance and Insurance", 2), ("not covered", None, 2), ("none", None, 1)
    ]

    quake = await client.get(f"/api/exports/{name}/portfolio", params={"peril": "ERQK"}, headers=user["headers"])
    assert quake.json()["ranked_by"] == "ERQK" and quake.json()["value"] is None
    # No census tract of this book is loaded: no tract summary, and no tract score invented in the top list.
    assert body["tracts"] is None and all(r["tract_score"] is None for r in body["riskiest"])


async def test_the_summary_carries_tract_scores_by_release_beside_the_countys(
    client: AsyncClient, container: Container,
) -> None:
    ann = await sign_up_and_log_in(client, "tract-portfolio@example.com")
    bob = await sign_up_and_log_in(client, "bob-tract-portfolio@example.com")
    name = "tracts_export_20261125_120000_000001.csv"
    written = await write_dataset(container.file_store(), ["tiv"], TRACT_BOOK, chunk_rows=2,
                                  user_id=ann["uid"], export_id="tract-export", job_id="tract-job")
    await container.batch_store().add_export(ExportFile(
        id="tract-export", user_id=ann["uid"], name=name, exported_at=datetime.now(UTC),
        manifest_key=written.manifest_key, size_bytes=written.size_bytes, detail_columns=("tiv",),
    ))

    answer = await client.get(f"/api/exports/{name}/portfolio", headers=ann["headers"])
    assert answer.status_code == 200, answer.text
    tracts = answer.json()["tracts"]
    assert tracts["locations"] == 3 and tracts["by_version"] == {V119: 2, V120: 1}
    assert tracts["county_versions"] == {V120: 3} and tracts["other_release"] == 2
    composite = tracts["distributions"][0]
    counts = (composite["peril"], composite["high"], composite["county_high"], composite["unknown"])
    assert counts == ("composite", 1, 2, 1)
    top = {r["row"]: r for r in answer.json()["riskiest"]}
    assert (top[2]["tract_score"], top[2]["tract_nri_version"], top[2]["nri_version"]) == (99.0, V119, "1.20.0")
    assert top[6]["tract_score"] is None
    assert (await client.get(f"/api/exports/{name}/portfolio", headers=bob["headers"])).status_code == 404


async def test_the_summary_is_owner_scoped_and_says_what_is_wrong(client: AsyncClient, container: Container) -> None:
    ann = await sign_up_and_log_in(client, "ann-portfolio@example.com")
    bob = await sign_up_and_log_in(client, "bob-portfolio@example.com")
    name = await _finished_export(client, container, ann["headers"])

    assert (await client.get(f"/api/exports/{name}/portfolio")).status_code == 401
    assert (await client.get(f"/api/exports/{name}/portfolio", headers=bob["headers"])).status_code == 404
    assert (await client.get("/api/exports/..%2Fx.csv/portfolio", headers=ann["headers"])).status_code == 404
    bad_peril = await client.get(f"/api/exports/{name}/portfolio", params={"peril": "XXXX"}, headers=ann["headers"])
    assert bad_peril.status_code == 400 and "composite" in bad_peril.json()["error"]
    bad_column = await client.get(f"/api/exports/{name}/portfolio", params={"value_column": "Zip"}, headers=ann["headers"])
    assert bad_column.status_code == 400 and "insured_value" in bad_column.json()["error"]
    stored = await client.post("/api/export", json={"data": [{"address": "1 Main St", "occupants": []}]},
                               headers=ann["headers"])
    client_name = stored.json()["file_path"].split("/", 1)[1]
    none = await client.get(f"/api/exports/{client_name}/portfolio", headers=ann["headers"])
    assert none.status_code == 404 and "no detailed version" in none.json()["error"]


async def test_the_summary_is_documented(client: AsyncClient) -> None:
    schema = (await client.get("/schema/openapi.json")).json()
    operation = schema["paths"]["/api/exports/{filename}/portfolio"]["get"]
    assert "PortfolioBody" in str(operation["responses"]["200"])
    assert {"headline", "distributions", "counties", "riskiest", "sectors", "tracts"} <= set(
        schema["components"]["schemas"]["PortfolioBody"]["properties"]
    )

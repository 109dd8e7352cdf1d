"""#26 items 5-7 over HTTP on the real data, on SQLite and PostgreSQL: the point given lies in the
county chosen; unreadable streets and rows without a ZIP code follow the single lookup's rule with
a message; an address typed without a ZIP code is answered from its city (and its building)."""

from __future__ import annotations

import csv
import io

from httpx import AsyncClient

from entrypoints.container import Container
from tests.api.test_public_api import create_key
from tests.conftest import sign_up_and_log_in


async def _look_up(client: AsyncClient, headers: dict, address: str):  # noqa: ANN202
    return await client.get("/api/nearby-search", params={"address": address}, headers=headers)


async def test_fairbanks_gets_a_point_in_its_borough_not_the_zips_simplemaps_centroid(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "fairbanks@example.com")
    response = await _look_up(client, user["headers"], "800 Cushman St, Fairbanks, AK 99701")
    assert response.status_code == 200, response.text
    receipt = response.json()["result"]["receipt"]
    assert receipt["county_fips"] == "02090"
    # SimpleMaps' centroid of ZIP 99701 (67.25, -149.88) lies in Yukon-Koyukuk (02290): not given;
    # GeoNames' point of the ZIP lies in Fairbanks North Star, the borough chosen.
    assert receipt["geocode_match"] == "zip_centroid" and round(receipt["lat"], 2) == 64.84 and round(receipt["lng"], 2) == -147.72


async def test_addresses_without_a_zip_code_are_answered_from_their_city_and_building(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "nozip@example.com")
    for typed in ("1201 3rd Ave Seattle", "1201 thrid avenu, seatle wa"):
        response = await _look_up(client, user["headers"], typed)
        assert response.status_code == 200, (typed, response.text)
        receipt = response.json()["result"]["receipt"]
        assert receipt["county_fips"] == "53033" and receipt["geocode_match"] == "building", typed
    refused = await _look_up(client, user["headers"], "Main St, Springfield")
    assert refused.status_code == 400 and refused.json()["code"] == "ambiguous_place"
    assert "Springfield, IL" in refused.json()["error"] and "Springfield, MA" in refused.json()["error"]
    stats = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    assert stats["current_month_searches"] == 2  # the refusal cost nothing


async def test_the_address_search_lists_the_places_a_city_without_a_state_names(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = {"X-API-Key": (await create_key(client, ann))["key"]}
    found = await client.get("/api/v1/search/address", params={"query": "Main St, Springfield", "limit": 10}, headers=key)
    assert found.status_code == 200, found.text
    candidates = found.json()["candidates"]
    assert len(candidates) == 10 and {c["address"] for c in candidates} >= {"Main St, Springfield, IL"}
    illinois = next(c for c in candidates if c["address"] == "Main St, Springfield, IL")
    assert illinois["location"]["county_fips"] == "17167"
    risk = await client.get(f"/api/v1/data/risk/{illinois['address_id']}", headers=key)
    assert risk.status_code == 200, risk.text
    nowhere = await client.get("/api/v1/search/address", params={"query": "1 Main St, Qwxyzville"}, headers=key)
    assert nowhere.status_code == 404 and nowhere.json()["code"] == "address_not_found"


BATCH = (
    "Street Address,City,State,Zip,Country\n"
    "#1 MEDICAL PARK DRIVE,BENTON,AR,72015,US\n"
    "1201 3rd Ave,Seattle,WA,,US\n"
    ",Seattle,WA,,US\n"
    "CARR 2 KM 47.7,BAYAMON,PR,00961,US\n"
    "701 5th Ave,Seattle,WA,98104,US\n"
    "1 Main St,,,,US\n"
)


async def test_a_batch_reads_rows_by_the_single_lookups_rule_with_a_message_on_every_row_not_plain(
    client: AsyncClient, container: Container
) -> None:
    user = await sign_up_and_log_in(client, "rows@example.com")
    upload = await client.post("/api/upload-csv", files={"file": ("rows.csv", BATCH.encode(), "text/csv")},
                               headers=user["headers"])
    started = await client.post("/api/batch-jobs", json={"file_id": upload.json()["file_id"]}, headers=user["headers"])
    assert started.status_code == 202, started.text
    await container.job_queue().drain()
    job = (await client.get(f"/api/batch-jobs/{started.json()['job']['id']}", headers=user["headers"])).json()["job"]
    export = await client.get(f"/api/exports/{job['export_filename']}/rows", headers=user["headers"])
    assert export.status_code == 200, export.text
    rows = {r["row"]: r for r in export.json()["rows"]}
    benton, seattle_street, seattle, bayamon, columbia, nothing = (rows[n] for n in range(2, 8))
    assert benton["status"] == "answered" and benton["county_fips"] == "05125"
    assert seattle_street["county_fips"] == "53033" and seattle_street["match_level"] == "building"
    assert "No ZIP code was given" in seattle_street["message"]
    assert seattle["county_fips"] == "53033" and seattle["status"] == "answered at ZIP level" and "street could not be read" in seattle["message"]
    assert bayamon["county_fips"] == "72021" and "street could not be read" in bayamon["message"]
    assert nothing["status"] == "not located" and "neither a 5-digit ZIP code nor a city" in nothing["message"]
    for row in rows.values():
        plain = row["status"] == "answered" and row["low_confidence"] in (False, "no") and row["match_level"] != "none"
        assert plain or row["message"], row
    assert not columbia["message"]

"""The single property lookup on the real data of shared/data, over HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io

from httpx import AsyncClient

from domain.perils import HAZARDS
from entrypoints.container import Container
from tests.conftest import DATA_DIR, sign_up_and_log_in

SEATTLE = "701 5th Ave, Seattle, WA 98104"


def nri_row(county_fips: str) -> dict[str, str]:
    with open(DATA_DIR / "nri_counties_dec2025_scores.csv", newline="") as handle:
        return next(row for row in csv.DictReader(handle) if row["STCOFIPS"] == county_fips)


async def _look_up(client: AsyncClient, headers: dict, address: str):  # noqa: ANN202
    return await client.get("/api/nearby-search", params={"address": address}, headers=headers)


async def _stats(client: AsyncClient, headers: dict) -> dict:
    return (await client.get("/api/auth/get-search-stats", headers=headers)).json()["stats"]


async def test_seattle_golden_lookup(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "golden@example.com")
    response = await _look_up(client, user["headers"], SEATTLE)
    assert response.status_code == 200, response.text
    body = response.json()
    occupants = body["data"]
    assert len(occupants) >= 20
    assert sum(1 for o in occupants if o["naics_code"] not in ("N/A", None)) >= 20
    assert any(o["naics_title"] for o in occupants)
    result = body["result"]
    # Columbia Center, built 1985 (Seattle 2016 benchmarking).
    assert result["address"].splitlines()[0].endswith("Year Built: 1985")
    assert "Floors: 76" in result["address"]
    assert "Total Space Available: Unknown" in result["address"]

    king = nri_row("53033")
    for hazard in HAZARDS:
        expected = king[f"{hazard.nri_code}_RISKS"]
        actual = result["perils"][hazard.field_name]
        assert actual == (float(expected) if expected else None), hazard.code
    assert result["Total_Score"] == float(king["RISK_SCORE"])
    receipt = result["receipt"]
    assert receipt["county_fips"] == "53033" and receipt["county_name"] == "King County"
    assert receipt["nri_version"].startswith("1.20")
    assert receipt["geocode_match"] == "building" and receipt["geography_level"] == "county"
    assert len(result["Top3_Scores_Combined"].splitlines()) == 3


async def test_miami_has_hurricane_in_top3_and_null_avalanche(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "miami@example.com")
    result = (await _look_up(client, user["headers"], "100 Biscayne Blvd, Miami, FL 33130")).json()["result"]
    assert "Hurricane" in result["Top3_Scores_Combined"]
    # Avalanche is 'Not Applicable' in Miami-Dade: null, never 0.
    assert result["perils"]["AVLN_Score"] is None
    assert result["ratings"]["AVLN"] == "Not Applicable"
    # The ZIP code's point, in Miami-Dade, the county chosen (#26, item 5).
    assert result["receipt"]["geocode_match"] == "zip_centroid" and result["receipt"]["county_fips"] == "12086"


async def test_rejected_input_is_not_charged(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "reject@example.com")
    empty = await _look_up(client, user["headers"], "   ")
    assert empty.status_code == 400 and empty.json()["error"] == "Please enter an address for single search"
    no_place = await _look_up(client, user["headers"], "701 5th Ave")  # neither a ZIP code nor a city
    assert no_place.status_code == 400 and "ZIP code or a city" in no_place.json()["error"]
    assert (await _stats(client, user["headers"]))["current_month_searches"] == 0


async def test_quota_stops_a_regular_user_at_the_limit(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "quota@example.com")
    limit = container.settings().monthly_search_limit
    for _ in range(limit):
        assert (await _look_up(client, user["headers"], "100 Biscayne Blvd, Miami, FL 33130")).status_code == 200
    over = await _look_up(client, user["headers"], "100 Biscayne Blvd, Miami, FL 33130")
    assert over.status_code == 429
    assert "search limit reached" in over.json()["error"]
    stats = await _stats(client, user["headers"])
    assert stats["current_month_searches"] == limit and stats["remaining_searches"] == 0
    assert stats["total_searches"] == limit and stats["last_search_date"] is not None


async def test_admins_are_unlimited(client: AsyncClient, container: Container) -> None:
    from domain.accounts import Role

    user = await sign_up_and_log_in(client, "boss@example.com")
    await container.accounts().set_role("boss@example.com", Role.ADMIN)
    # The role travels in the access token, so the new one applies from the next token on.
    token = (await client.post("/api/auth/refresh")).json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    for _ in range(container.settings().monthly_search_limit + 2):
        assert (await _look_up(client, headers, "100 Biscayne Blvd, Miami, FL 33130")).status_code == 200


async def test_recent_searches_results_and_navigation_are_owner_scoped(client: AsyncClient) -> None:
    alice = await sign_up_and_log_in(client, "alice@example.com")
    bob = await sign_up_and_log_in(client, "bob@example.com")
    first = (await _look_up(client, alice["headers"], SEATTLE)).json()["search_id"]
    second = (await _look_up(client, alice["headers"], "100 Biscayne Blvd, Miami, FL 33130")).json()["search_id"]

    recent = (await client.get("/api/recent-searches", headers=alice["headers"])).json()["searches"]
    assert [s["search_id"] for s in recent] == [second, first]
    assert recent[1]["address"] == SEATTLE and recent[1]["total_results"] >= 20
    assert recent[1]["filtered_results"][0]["naics_code"]
    assert recent[1]["result_data"]["Total_Score"] > 0
    assert (await client.get("/api/recent-searches", headers=bob["headers"])).json()["searches"] == []

    stored = (await client.get(f"/api/search-results/{second}", headers=alice["headers"])).json()
    assert stored["previous_id"] == first and stored["next_id"] is None
    older = (await client.get(f"/api/search-results/{first}", headers=alice["headers"])).json()
    assert older["previous_id"] is None and older["next_id"] == second

    assert (await client.get(f"/api/search-results/{first}", headers=bob["headers"])).status_code == 404
    assert (await client.get(f"/api/search-results/{first}/export", headers=bob["headers"])).status_code == 404
    assert (await client.get(f"/api/search-results/{first}")).status_code == 401


async def test_export_of_one_result_is_grouped_csv(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "export@example.com")
    search_id = (await _look_up(client, user["headers"], SEATTLE)).json()["search_id"]
    response = await client.get(f"/api/search-results/{search_id}/export", headers=user["headers"])
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert list(rows[0]) == [
        "address", "name", "vicinity", "types", "lat", "lng", "business_status",
        "Total_Score", "Top3_Scores_Combined", "naics_code",
    ]
    assert rows[0]["address"].startswith("701 5th Ave") and all(r["address"] == "" for r in rows[1:])
    assert len(rows) >= 20


async def test_the_county_follows_the_zips_addresses_and_the_city_named(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "anchorage@example.com")
    result = (await _look_up(client, user["headers"], "4800 Cordova St, Anchorage, AK 99503")).json()["result"]
    location = result["location"]
    # Not Bethel Census Area, whose rural part of the ZIP is larger in area.
    assert location["county_fips"] == "02020" and result["receipt"]["county_fips"] == "02020"
    assert location["method"] in ("zip", "zip_and_place") and location["confidence"] >= 0.8
    assert location["low_confidence"] is False


async def test_a_state_and_zip_that_disagree_are_told_and_marked(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "mismatch@example.com")
    result = (await _look_up(client, user["headers"], "701 5th Ave, Seattle, WA 10001")).json()["result"]
    location = result["location"]
    assert location["low_confidence"] is True and location["confidence"] == 0.5
    assert any("10001 is in NY, but the address says WA" in note for note in location["notes"])
    # The county of the city and state named (Seattle, King County WA) is the alternative.
    assert [a["county_fips"] for a in location["alternatives"]] == ["53033"]


async def test_a_multi_county_zip_lists_its_alternatives_with_their_scores(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "duluth@example.com")
    result = (await _look_up(client, user["headers"], "3620 Howell Ferry Rd, Duluth, GA 30097")).json()["result"]
    location = result["location"]
    assert location["county_fips"] == "13135"  # Gwinnett, where Duluth is
    assert location["alternatives"], location
    for other in location["alternatives"]:
        assert other["county_fips"] != "13135" and 0 <= other["share"] < location["confidence"]
        assert other["county_name"] and other["Total_Score"] is not None


async def test_an_untaggable_street_is_answered_for_its_zip_and_said_so(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "pineridge@example.com")
    response = await _look_up(client, user["headers"], "HWY 18 EAST, PINE RIDGE, SD 57770")
    assert response.status_code == 200, response.text
    location = response.json()["result"]["location"]
    assert location["county_fips"] == "46102"  # Oglala Lakota County
    assert location["low_confidence"] is True
    assert any("for the ZIP code and city, not for a building" in note for note in location["notes"])


async def test_with_the_census_geocoder_the_county_and_tract_come_from_its_geographies(
    client: AsyncClient, container: Container
) -> None:
    import json

    import httpx

    from adapters.providers.census_geocoder import CensusGeocoder
    from tests.integration.test_lookup_providers import FIXTURES

    recorded = json.loads((FIXTURES / "census_geographies_match.json").read_text())
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=recorded))
    container.geocoder.override(CensusGeocoder(httpx.AsyncClient(transport=transport), fallback=container.geocoder()))
    user = await sign_up_and_log_in(client, "census@example.com")
    result = (await _look_up(client, user["headers"], SEATTLE)).json()["result"]
    location = result["location"]
    assert (location["method"], location["county_fips"], location["confidence"]) == ("geocoder", "53033", 1.0)
    assert location["tract_geoid"] == "53033008100"
    assert result["receipt"]["county_fips"] == "53033"


async def test_the_receipt_names_each_dataset_with_its_version_and_date(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "receipt@example.com")
    receipt = (await _look_up(client, user["headers"], SEATTLE)).json()["result"]["receipt"]
    datasets = {d["dataset"]: d for d in receipt["datasets"]}
    assert datasets["nri_counties"]["as_of"] == "2025-12" and "v1.20" in datasets["nri_counties"]["version"]
    assert datasets["businesses"]["as_of"] == "2026-08-02" and datasets["buildings"]["as_of"] == "2016"


async def test_a_search_stored_before_answers_were_typed_still_shows(client: AsyncClient, container: Container) -> None:
    from datetime import UTC, datetime

    from application.ports.lookup import StoredSearch

    user = await sign_up_and_log_in(client, "legacy@example.com")
    legacy = (await _look_up(client, user["headers"], SEATTLE)).json()["result"]
    for key in ("location",):
        legacy.pop(key)
    legacy["receipt"].pop("datasets")
    legacy["search_id"] = "legacy-1"
    await container.search_store().add(
        StoredSearch(id="legacy-1", user_id=user["uid"], kind="single", address=SEATTLE, occupant_count=len(legacy["occupants"]),
                     result=legacy, created_at=datetime.now(UTC))
    )
    shown = (await client.get("/api/search-results/legacy-1", headers=user["headers"])).json()["search"]
    assert shown["result_data"]["address"] == legacy["address"] and shown["result_data"]["location"] is None
    assert shown["filtered_results"] == legacy["occupants"]


async def test_a_zip_missing_from_the_current_crosswalk_is_answered_and_said_so(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "retired@example.com")
    location = (await _look_up(client, user["headers"], "100 Main St, Burton, WA 98013")).json()["result"]["location"]
    assert location["county_fips"] == "53033" and location["low_confidence"] is True
    assert any("98013 is not in USPS's current ZIP-county crosswalk" in note for note in location["notes"])


async def test_nothing_unknown_is_made_up_in_a_single_answer_or_its_export(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "puerto-rico@example.com")
    result = (await _look_up(client, user["headers"], "1 Calle Luna, San Juan, PR 00901")).json()["result"]
    # NRI does not score Puerto Rico: unknown, never 0.
    assert result["location"]["county_fips"] == "72127"
    assert result["Total_Score"] is None and all(v is None for v in result["perils"].values())
    assert result["occupants"] == [] and result["naics_code"] == "N/A"
    exported = await client.get(f"/api/search-results/{result['search_id']}/export", headers=user["headers"])
    [row] = list(csv.DictReader(io.StringIO(exported.text)))
    assert row["Total_Score"] == "" and row["name"] == "NA"
    # A point in the municipio chosen, never 0,0.
    assert float(row["lat"]) > 17 and float(row["lng"]) < -65
    assert result["receipt"]["geocode_match"] in ("zip_centroid", "place")


async def test_connecticut_is_scored_by_its_planning_region(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "hartford@example.com")
    result = (await _look_up(client, user["headers"], "100 Pearl St, Hartford, CT 06103")).json()["result"]
    # NRI v1.20 scores Connecticut by planning region: Capitol, not the legacy Hartford County 09003.
    assert result["location"]["county_fips"] == "09110" and result["Total_Score"] is not None


async def test_an_unknown_zip_with_no_known_place_is_refused_and_not_charged(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "nowhere@example.com")
    response = await _look_up(client, user["headers"], "1 Nowhere Rd, Atlantis, ZZ 00000")
    assert response.status_code == 404 and "nothing was charged" in response.json()["error"]
    assert "00000 is not a ZIP code we know" in response.json()["error"]
    assert (await _stats(client, user["headers"]))["current_month_searches"] == 0


def _tract_row(tract_geoid: str) -> dict[str, str]:
    import gzip

    with gzip.open(DATA_DIR / "nri_tracts_v119_mar2023_7areas.csv.gz", "rt", newline="") as handle:
        return next(row for row in csv.DictReader(handle) if row["TRACTFIPS"] == tract_geoid)


async def test_a_census_tract_in_a_loaded_area_shows_its_scores_beside_the_countys(
    client: AsyncClient, container: Container
) -> None:
    import copy
    import json

    import httpx

    from adapters.providers.census_geocoder import CensusGeocoder
    from tests.integration.test_lookup_providers import FIXTURES

    # The recorded Census answer's shape, pointed at Baltimore city tract 101 (loaded by `data load`).
    recorded = json.loads((FIXTURES / "census_geographies_match.json").read_text())
    baltimore = copy.deepcopy(recorded)
    match = baltimore["result"]["addressMatches"][0]
    match["coordinates"] = {"x": -76.6153, "y": 39.2925}
    match["geographies"]["Counties"][0].update(GEOID="24510", BASENAME="Baltimore", NAME="Baltimore city", STATE="24", COUNTY="510")
    match["geographies"]["Census Tracts"][0].update(GEOID="24510010100", BASENAME="101", NAME="Census Tract 101", STATE="24", COUNTY="510", TRACT="010100")
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=baltimore))
    container.geocoder.override(CensusGeocoder(httpx.AsyncClient(transport=transport), fallback=container.geocoder()))
    user = await sign_up_and_log_in(client, "tract@example.com")
    response = await _look_up(client, user["headers"], "100 N Charles St, Baltimore, MD 21201")
    assert response.status_code == 200, response.text
    result = response.json()["result"]

    county, tract = nri_row("24510"), _tract_row("24510010100")
    assert result["Total_Score"] == float(county["RISK_SCORE"])  # the county's stay the primary scores
    shown = result["tract"]
    assert (shown["geography_level"], shown["tract_geoid"], shown["tract_from"]) == ("tract", "24510010100", "geocoder")
    assert shown["Total_Score"] == float(tract["RISK_SCORE"]) and shown["ratings"]["Total"] == tract["RISK_RATNG"]
    assert shown["perils"]["RFLD_Score"] == float(tract["RFLD_RISKS"])
    assert shown["nri_version"] == "1.19.0 (March 2023)"
    assert any("1.19.0 (March 2023)" in note and "1.20.0 (December 2025)" in note for note in shown["notes"])
    receipt = result["receipt"]
    assert receipt["geography_level"] == "county"
    assert {(g["geography_level"], g["geoid"], g["nri_version"]) for g in receipt["score_geographies"]} == {
        ("county", "24510", county["NRI_VER"]),
        ("tract", "24510010100", "1.19.0 (March 2023)"),
    }
    datasets = {d["dataset"]: d for d in receipt["datasets"]}
    assert datasets["nri_tracts:v119_mar2023_7areas"]["as_of"] == "2023-03"


async def test_occupants_are_unknown_where_no_source_covers_the_address_and_zero_only_where_one_does(
    client: AsyncClient,
) -> None:
    user = await sign_up_and_log_in(client, "coverage@example.com")
    miami = (await _look_up(client, user["headers"], "100 Biscayne Blvd, Miami, FL 33130")).json()["result"]
    assert miami["total_results"] is None and miami["occupants"] == []
    coverage = miami["occupant_coverage"]
    assert coverage["covered"] is False and coverage["photos"] is False
    assert "Seattle, WA" in coverage["covers"] and "San Francisco, CA" in coverage["covers"]

    # A street in a Seattle ZIP with no business registered at it: covered, and none found.
    empty = (await _look_up(client, user["headers"], "1 Nonesuch Pl, Seattle, WA 98104")).json()["result"]
    assert empty["occupant_coverage"]["covered"] is True and empty["total_results"] == 0

    seattle = (await _look_up(client, user["headers"], SEATTLE)).json()["result"]
    assert seattle["occupant_coverage"]["covered"] is True and seattle["total_results"] >= 20

    recent = (await client.get("/api/recent-searches", headers=user["headers"])).json()["searches"]
    assert [s["total_results"] for s in recent][1:] == [0, None]


async def test_counties_that_share_a_name_read_with_their_legal_type(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "names@example.com")
    city = (await _look_up(client, user["headers"], "100 Holliday St, Baltimore, MD 21202")).json()["result"]
    county = (await _look_up(client, user["headers"], "400 Washington Ave, Towson, MD 21204")).json()["result"]
    assert (city["location"]["county_fips"], city["location"]["county_name"]) == ("24510", "Baltimore city")
    assert (county["location"]["county_fips"], county["location"]["county_name"]) == ("24005", "Baltimore County")
    hartford = (await _look_up(client, user["headers"], "550 Main St, Hartford, CT 06103")).json()["result"]
    assert hartford["receipt"]["county_name"] == "Capitol Planning Region"
    st_louis = (await _look_up(client, user["headers"], "1200 Market St, St. Louis, MO 63103")).json()["result"]
    assert st_louis["location"]["county_name"] == "St. Louis city"
    assert all(a["county_name"] != "St. Louis" for a in st_louis["location"]["alternatives"])


async def test_fema_keeps_not_applicable_insufficient_data_and_no_rating_apart(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "three-kinds@example.com")
    miami = (await _look_up(client, user["headers"], "100 Biscayne Blvd, Miami, FL 33130")).json()["result"]
    ratings, perils = miami["ratings"], miami["perils"]
    assert (ratings["TSUN"], perils["TSUN_Score"]) == ("Insufficient Data", None)  # no estimate
    assert (ratings["AVLN"], perils["AVLN_Score"]) == ("Not Applicable", None)  # no avalanche there
    assert (ratings["WNTW"], perils["WNTW_Score"]) == ("No Rating", 0.0)  # a score of 0, rated none

"""The export viewer's rows over HTTP, on SQLite and PostgreSQL: a real batch's rows in export
order, queried from its dataset (never a download of the whole export), the filters and what they
can be set to, sorting by a score, the user's own columns, paging, owner scoping and clear 4xx answers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from httpx import AsyncClient

from application.ports.batch import ExportFile
from application.batch_files import write_bytes
from application.result_files import export_keys
from entrypoints.container import Container
from tests.api.test_detailed_export import _finished_export
from tests.conftest import sign_up_and_log_in


async def _rows(client: AsyncClient, name: str, headers: dict, **params: object) -> dict:
    answer = await client.get(f"/api/exports/{name}/rows", params=params, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_the_rows_of_a_finished_batch_filtered_and_paged(
    client: AsyncClient, container: Container, monkeypatch: pytest.MonkeyPatch,
) -> None:
    user = await sign_up_and_log_in(client, "rows@example.com")
    name = await _finished_export(client, container, user["headers"])
    export = await container.batch_store().export(user["uid"], name)
    files, keys_read = container.file_store(), []
    read, read_range = files.read, files.read_range

    def counted_read(key: str, *args: object, **kwargs: object):  # noqa: ANN202
        keys_read.append(key)
        return read(key, *args, **kwargs)

    async def counted_range(key: str, *args: object) -> bytes:
        keys_read.append(key)
        return await read_range(key, *args)

    monkeypatch.setattr(files, "read", counted_read)
    monkeypatch.setattr(files, "read_range", counted_range)

    whole = await _rows(client, name, user["headers"])
    # The first open reads the export's manifest through the store; DuckDB reads the chunks' files in
    # place (the local store). Nothing else: no download of the detailed export, no index.
    assert keys_read == [export.manifest_key]
    assert whole["columns"] == ["policy_no", "Street Address", "City", "State", "Zip", "Country", "insured_value"]
    assert [r["values"][0] for r in whole["rows"]] == ["P-1", '=HYPERLINK("http://evil.example")', "P-3", "P-4", "P-1"]
    assert whole["rows"][1]["values"][4] == "00901" and whole["sort"] is None
    assert (whole["export"], whole["total_rows"], whole["total_matching"]) == (name, 5, 5)
    assert [r["index"] for r in whole["rows"]] == [0, 1, 2, 3, 4] and [r["row"] for r in whole["rows"]] == [2, 3, 4, 5, 6]
    seattle, san_juan, allston, unread, repeat = whole["rows"]
    assert seattle["address"].startswith("701 5th Ave") and seattle["county_fips"] == "53033"
    assert seattle["match_level"] == "building" and seattle["total_score"] is not None and seattle["rating"]
    assert seattle["occupant_count"] >= 20 and seattle["low_confidence"] is False and seattle["top_3"]
    # Puerto Rico has no NRI scores: unknown, never 0.
    assert san_juan["county_fips"] == "72127" and san_juan["total_score"] is None
    assert san_juan["rating"] == "Insufficient Data"  # NRI's own word, kept as a rating of its own
    assert allston["low_confidence"] is True and "02134" in allston["message"]
    assert unread["status"] == "not located" and unread["county_fips"] is None and unread["match_level"] == "none"
    assert repeat == {**seattle, "index": 4, "row": 6, "values": repeat["values"]}

    filters = whole["filters"]
    assert [c["value"] for c in filters["match_levels"]][0] == "building" and filters["match_levels"][-1]["value"] == "none"
    counties = {c["value"]: c for c in filters["counties"]}
    assert counties["53033"]["rows"] == 2 and counties["53033"]["label"].endswith(", WA")
    assert counties["not located"] == {"value": "not located", "label": "Not located", "rows": 1}
    assert filters["counties"][-1]["value"] == "not located"
    assert {c["value"]: c["rows"] for c in filters["ratings"]}["no rating"] == 1
    assert sum(c["rows"] for c in filters["ratings"]) == sum(c["rows"] for c in filters["match_levels"]) == 5

    king = await _rows(client, name, user["headers"], county="53033")
    assert king["total_matching"] == 2 and [r["index"] for r in king["rows"]] == [0, 4] and king["total_rows"] == 5
    unrated = await _rows(client, name, user["headers"], rating="no rating")
    assert [r["index"] for r in unrated["rows"]] == [3]
    ratings = [c["value"] for c in filters["ratings"]]
    assert ratings.index(seattle["rating"]) < ratings.index("Insufficient Data") < ratings.index("no rating")
    both = await _rows(client, name, user["headers"], county="53033", match_level="none")
    assert both["total_matching"] == 0 and both["rows"] == []
    seattle_rating = await _rows(client, name, user["headers"], rating=seattle["rating"], county="53033", match_level="building")
    assert [r["index"] for r in seattle_rating["rows"]] == [0, 4]

    states = {c["value"]: c["rows"] for c in filters["states"]}
    assert states == {"WA": 2, "PR": 1, "MA": 1, "not located": 1}
    assert {c["value"]: c["rows"] for c in filters["statuses"]}["not located"] == 1
    assert {c["value"]: c["rows"] for c in filters["low_confidence"]} == {"yes": 1, "no": 4}
    assert [r["index"] for r in (await _rows(client, name, user["headers"], state="WA"))["rows"]] == [0, 4]
    assert [r["index"] for r in (await _rows(client, name, user["headers"], low_confidence="yes"))["rows"]] == [2]
    assert [r["index"] for r in (await _rows(client, name, user["headers"], status="not located"))["rows"]] == [3]
    assert [r["index"] for r in (await _rows(client, name, user["headers"], search="5TH ave"))["rows"]] == [0, 4]
    # Sorted by a score, unknown last (San Juan has none; the unread row is not located).
    by_quake = await _rows(client, name, user["headers"], sort="ERQK_Score", order="desc")
    quakes = [r["sort_score"] for r in by_quake["rows"]]
    known = [q for q in quakes if q is not None]
    assert known == sorted(known, reverse=True) and quakes[len(known):] == [None] * (5 - len(known)) and by_quake["sort"] == "ERQK_Score"
    assert [r["index"] for r in by_quake["rows"]][-2:] == [1, 3] and by_quake["order"] == "desc"

    pages = [await _rows(client, name, user["headers"], offset=offset, limit=2) for offset in (0, 2, 4, 6)]
    assert [[r["index"] for r in page["rows"]] for page in pages] == [[0, 1], [2, 3], [4], []]
    assert all(page["total_matching"] == 5 and page["limit"] == 2 for page in pages)
    second = await _rows(client, name, user["headers"], county="53033", offset=1, limit=1)
    assert [r["index"] for r in second["rows"]] == [4] and second["offset"] == 1


async def test_bad_parameters_say_what_is_allowed(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "rows-bad@example.com")
    name = await _finished_export(client, container, user["headers"])

    async def refused(**params: object) -> str:
        answer = await client.get(f"/api/exports/{name}/rows", params=params, headers=user["headers"])
        assert answer.status_code == 400, (params, answer.text)
        return answer.json()["error"]

    assert "limit must be from 1 to 500" in await refused(limit=501)
    assert "limit must be from 1 to 500" in await refused(limit=0)
    assert "offset must be 0 or more" in await refused(offset=-1)
    assert "offset" in await refused(offset="ten")
    county = await refused(county="99999")
    assert "county must be one of the values in this export" in county and "53033" in county and "not located" in county
    level = await refused(match_level="rooftop")
    assert "match_level must be one of" in level and "building" in level
    assert "rating must be one of" in await refused(rating="Extreme")
    assert "state must be one of" in await refused(state="ZZ")
    assert "low_confidence must be one of the values in this export: yes, no" in await refused(low_confidence="maybe")
    assert "sort must be one of: Total_Score, AVLN_Score" in await refused(sort="risk_rating")
    assert "order" in await refused(sort="Total_Score", order="sideways")


async def test_rows_are_the_owners_only_and_need_a_detailed_export(client: AsyncClient, container: Container) -> None:
    ann = await sign_up_and_log_in(client, "ann-rows@example.com")
    bob = await sign_up_and_log_in(client, "bob-rows@example.com")
    name = await _finished_export(client, container, ann["headers"])
    assert (await client.get(f"/api/exports/{name}/rows", headers=bob["headers"])).status_code == 404
    assert (await client.get("/api/exports/missing_export.csv/rows", headers=ann["headers"])).status_code == 404
    assert (await client.get(f"/api/exports/{name}/rows")).status_code == 401

    client_rows = "client-supplied_export_20261125_120000_000001.csv"
    csv_key = export_keys(ann["uid"], "client-rows").csv
    await write_bytes(container.file_store(), csv_key, b"address\n1 Main St\n")
    await container.batch_store().add_export(ExportFile(
        id="client-rows", user_id=ann["uid"], name=client_rows, exported_at=datetime.now(UTC), source="client",
        csv_key=csv_key,
    ))
    answer = await client.get(f"/api/exports/{client_rows}/rows", headers=ann["headers"])
    assert answer.status_code == 404 and "no detailed version" in answer.json()["error"]

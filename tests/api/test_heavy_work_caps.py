"""Each user's heavy work at once is capped, in every server process (the throttle counters live
in the database or Redis): a third detailed download or legacy search while two run gets 429
with Retry-After, and a place is given back when its work ends, however it ends."""

from __future__ import annotations

from httpx import AsyncClient

from application.heavy_work import PER_USER
from entrypoints.container import Container
from tests.api.test_detailed_export import _finished_export
from tests.conftest import sign_up_and_log_in

ROWS = "Street Address,City,State,Zip,Country\n701 5th Ave,Seattle,WA,98104,US\n1 Harvard Ave,Allston,MA,02134,US\n"


async def _held_elsewhere(container: Container, user_id: str, kind: str, count: int = PER_USER):  # noqa: ANN202
    """`count` places taken, as downloads or searches running in other requests or processes would."""
    heavy = container.batch()._heavy  # noqa: SLF001 - the service's own cap, as the routes meet it
    return [await heavy.begin(user_id, kind) for _ in range(count)]


async def test_a_download_beyond_the_cap_waits_and_a_finished_one_gives_its_place_back(
    client: AsyncClient, container: Container,
) -> None:
    user = await sign_up_and_log_in(client, "downloads@example.com")
    name = await _finished_export(client, container, user["headers"], ROWS)
    url = f"/api/exports/{name}/detailed"

    ends = await _held_elsewhere(container, user["uid"], "download")
    refused = await client.get(url, params={"format": "xlsx"}, headers=user["headers"])
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_running"
    assert int(refused.headers["retry-after"]) >= 1 and "Wait for one to finish" in refused.json()["error"]

    await ends[0]()  # one of them ends
    for fmt in ("xlsx", "csv", "jsonl"):  # each gives its place back once sent
        assert (await client.get(url, params={"format": fmt}, headers=user["headers"])).status_code == 200
    other = await sign_up_and_log_in(client, "someone-else@example.com")
    await _held_elsewhere(container, other["uid"], "download")  # another user's cap is their own
    assert (await client.get(url, params={"format": "csv"}, headers=user["headers"])).status_code == 200


async def test_a_legacy_search_beyond_the_cap_waits_and_is_not_charged(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "searches@example.com")
    upload = await client.post("/api/upload-csv", files={"file": ("book.csv", ROWS.encode(), "text/csv")},
                               headers=user["headers"])
    file_id = upload.json()["file_id"]
    used = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    ends = await _held_elsewhere(container, user["uid"], "search")
    refused = await client.post("/api/search", json={"file_id": file_id}, headers=user["headers"])
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"] == used  # not charged

    await ends[1]()
    for _ in range(2):  # a search gives its place back when its last row is sent
        searched = await client.post("/api/search", json={"file_id": file_id}, headers=user["headers"])
        assert searched.status_code == 200 and len(searched.json()["data"]) == 2
    assert (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"] != used

"""What a single lookup counts (#29: the rate-limit count rides on the lookup's one write), on
SQLite and PostgreSQL: every request that gets past reading its address counts against the rate
limit, located or not, charged or refused by its quota; only located ones are charged and stored."""

from __future__ import annotations

import pytest
from httpx import AsyncClient

from tests.conftest import sign_up_and_log_in

SEATTLE = "701 5th Ave, Seattle, WA 98104"
NOWHERE = "1 Nowhere Rd, Atlantis, ZZ 00000"


async def _look_up(client: AsyncClient, headers: dict, address: str):  # noqa: ANN202
    return await client.get("/api/nearby-search", params={"address": address}, headers=headers)


@pytest.mark.parametrize("container_settings", [{"rate_limit_per_minute": 5, "monthly_search_limit": 1}])
async def test_located_unlocated_and_over_quota_lookups_all_count_against_the_rate_limit(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "counted@example.com")
    assert (await _look_up(client, user["headers"], NOWHERE)).status_code == 404  # 1: not charged
    assert (await _look_up(client, user["headers"], SEATTLE)).status_code == 200  # 2: charged
    for _ in range(3):  # 3 to 5: refused by the quota
        over = await _look_up(client, user["headers"], SEATTLE)
        assert over.status_code == 429 and "search limit reached" in over.json()["error"]
    limited = await _look_up(client, user["headers"], SEATTLE)  # 6: the window is full
    assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
    assert int(limited.headers["retry-after"]) >= 1
    stats = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    assert stats["current_month_searches"] == 1
    recent = (await client.get("/api/recent-searches", headers=user["headers"])).json()["searches"]
    assert len(recent) == 1  # only the charged lookup is stored


@pytest.mark.parametrize("container_settings", [{"rate_limit_per_minute": 3}])
async def test_a_full_window_refuses_before_any_provider_and_stores_nothing(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "window@example.com")
    for _ in range(3):
        assert (await _look_up(client, user["headers"], SEATTLE)).status_code == 200
    for address in (SEATTLE, NOWHERE):
        limited = await _look_up(client, user["headers"], address)
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
    stats = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    assert stats["current_month_searches"] == 3

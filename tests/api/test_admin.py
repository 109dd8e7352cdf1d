"""The admin API (SPEC §7) and the system settings it saves and the product enforces, on
SQLite and PostgreSQL."""

from __future__ import annotations

import json

from datetime import UTC, datetime, timedelta

from dependency_injector import providers
from httpx import AsyncClient

from application.rate_limit import RequestRateLimit
from entrypoints.container import Container
from tests.conftest import sign_up_admin, sign_up_and_log_in
from tests.fakes import FakeClock

SEATTLE = "701 5th Ave, Seattle, WA 98104"


async def _look_up(client: AsyncClient, headers: dict, address: str = SEATTLE):  # noqa: ANN202
    return await client.get("/api/nearby-search", params={"address": address}, headers=headers)


async def _save_settings(client: AsyncClient, admin: dict, **values: object):  # noqa: ANN202
    current = (await client.get("/api/admin/settings", headers=admin["headers"])).json()["settings"]
    return await client.put("/api/admin/settings", json={**current, **values}, headers=admin["headers"])


async def test_users_are_listed_newest_first_with_their_search_statistics(client: AsyncClient, container: Container) -> None:
    admin = await sign_up_admin(client, container, "boss@example.com")
    ann = await sign_up_and_log_in(client, "ann@example.com")
    assert (await _look_up(client, ann["headers"])).status_code == 200

    users = (await client.get("/api/admin/list-users", headers=admin["headers"])).json()["users"]
    assert [u["email"] for u in users] == ["ann@example.com", "boss@example.com"]
    assert {u["role"] for u in users} == {"user", "admin"}
    assert set(users[0]) == {"uid", "name", "email", "role", "picture", "created_at"}

    info = (await client.get(f"/api/admin/user-info/{ann['uid']}", headers=admin["headers"])).json()["user"]
    assert info["email"] == "ann@example.com" and info["name"] is None
    stats = info["search_stats"]
    assert stats["current_month_searches"] == 1 and stats["total_searches"] == 1
    assert stats["search_limit"] == 10 and stats["remaining_searches"] == 9
    assert stats["last_search_date"] is not None

    missing = await client.get("/api/admin/user-info/no-such-user", headers=admin["headers"])
    assert missing.status_code == 404


async def test_role_changes_take_effect_at_once_and_the_last_admin_stays(client: AsyncClient, container: Container) -> None:
    admin = await sign_up_admin(client, container, "boss@example.com")
    bob = await sign_up_and_log_in(client, "bob@example.com")

    # The only admin cannot demote themselves...
    alone = await client.post("/api/admin/update-user-role", json={"uid": admin["uid"], "role": "user"}, headers=admin["headers"])
    assert alone.status_code == 409 and "only administrator" in alone.json()["error"]

    promoted = await client.post("/api/admin/update-user-role", json={"uid": bob["uid"], "role": "admin"}, headers=admin["headers"])
    assert promoted.status_code == 200 and promoted.json()["user"]["role"] == "admin"
    # ...and Bob's token, issued while he was a regular user, works on admin routes now: the role is read from the database.
    assert (await client.get("/api/admin/search-stats", headers=bob["headers"])).status_code == 200

    # With a second admin, demoting oneself is allowed, and the old token loses admin rights immediately.
    demoted = await client.post("/api/admin/update-user-role", json={"uid": admin["uid"], "role": "user"}, headers=admin["headers"])
    assert demoted.status_code == 200 and demoted.json()["user"]["role"] == "user"
    assert (await client.get("/api/admin/list-users", headers=admin["headers"])).status_code == 403

    bad_role = await client.post("/api/admin/update-user-role", json={"uid": admin["uid"], "role": "root"}, headers=bob["headers"])
    assert bad_role.status_code == 400
    unknown = await client.post("/api/admin/update-user-role", json={"uid": "nobody", "role": "admin"}, headers=bob["headers"])
    assert unknown.status_code == 404


async def test_system_statistics_count_users_searches_and_near_limit_users(client: AsyncClient, container: Container) -> None:
    admin = await sign_up_admin(client, container, "boss@example.com")
    assert (await _save_settings(client, admin, monthly_search_limit=5)).status_code == 200  # near the limit at 4
    heavy = await sign_up_and_log_in(client, "heavy@example.com")
    light = await sign_up_and_log_in(client, "light@example.com")
    for _ in range(4):
        assert (await _look_up(client, heavy["headers"])).status_code == 200
    assert (await _look_up(client, light["headers"])).status_code == 200
    for _ in range(5):  # an admin's searches count as searches, never as near-limit
        assert (await _look_up(client, admin["headers"])).status_code == 200

    stats = (await client.get("/api/admin/search-stats", headers=admin["headers"])).json()["stats"]
    assert stats == {
        "total_users": 3,
        "admin_users": 1,
        "regular_users": 2,
        "total_searches": 10,
        "month_searches": 10,
        "day_searches": 10,
        "near_limit_users": 1,
        "api_requests_today": 0,
        "api_callers_today": 0,
    }


async def test_searches_of_earlier_days_and_months_are_split_out(client: AsyncClient, container: Container) -> None:
    clock = FakeClock(datetime(2026, 3, 31, 23, 0, tzinfo=UTC))
    container.clock.override(clock)
    admin = await sign_up_admin(client, container, "boss@example.com")
    assert (await _look_up(client, admin["headers"])).status_code == 200  # 31 March
    clock.advance(timedelta(hours=2))  # 1 April, 01:00
    assert (await _look_up(client, admin["headers"])).status_code == 200
    clock.advance(timedelta(days=1))  # 2 April
    assert (await _look_up(client, admin["headers"])).status_code == 200
    stats = (await client.get("/api/admin/search-stats", headers=admin["headers"])).json()["stats"]
    assert (stats["total_searches"], stats["month_searches"], stats["day_searches"]) == (3, 2, 1)


async def test_settings_are_validated_saved_and_the_monthly_limit_is_enforced(client: AsyncClient, container: Container) -> None:
    admin = await sign_up_admin(client, container, "boss@example.com")
    defaults = (await client.get("/api/admin/settings", headers=admin["headers"])).json()["settings"]
    assert defaults == {
        "monthly_search_limit": 10, "rate_limiting": True, "search_caching": True, "monthly_batch_row_limit": 10_000,
        "require_admin_mfa": False,
    }

    for bad in (0, 101, "ten", 2.5, True):
        response = await _save_settings(client, admin, monthly_search_limit=bad)
        assert response.status_code == 400, bad
    for bad in ("many", 2.5, False, 0, 1_000_001):
        response = await _save_settings(client, admin, monthly_batch_row_limit=bad)
        assert response.status_code == 400, bad
    assert "batch row allowance must be a whole number from 1 to 1,000,000" in response.json()["error"]
    assert (await client.get("/api/admin/settings", headers=admin["headers"])).json()["settings"] == defaults

    saved = await _save_settings(client, admin, monthly_search_limit=3, search_caching=False)
    assert saved.json()["settings"] == {**defaults, "monthly_search_limit": 3, "search_caching": False}
    # An older client that sends only SPEC's three settings keeps the saved allowance.
    spec_only = await client.put(
        "/api/admin/settings", json={"monthly_search_limit": 3, "rate_limiting": True, "search_caching": False},
        headers=admin["headers"],
    )
    assert spec_only.json()["settings"]["monthly_batch_row_limit"] == 10_000

    user = await sign_up_and_log_in(client, "capped@example.com")
    for _ in range(3):
        assert (await _look_up(client, user["headers"])).status_code == 200
    fourth = await _look_up(client, user["headers"])
    assert fourth.status_code == 429
    assert "search limit reached" in fourth.json()["error"] and "3 searches/month" in fourth.json()["error"]
    stats = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    assert (stats["search_limit"], stats["remaining_searches"]) == (3, 0)


async def test_rate_limiting_is_switched_by_the_setting(client: AsyncClient, container: Container) -> None:
    container.request_rate_limit.override(
        providers.Singleton(
            RequestRateLimit, settings=container.system_settings, window=container.request_window, per_minute=3
        )
    )
    admin = await sign_up_admin(client, container, "boss@example.com")
    for _ in range(3):
        assert (await _look_up(client, admin["headers"])).status_code == 200
    limited = await _look_up(client, admin["headers"])
    assert limited.status_code == 429 and limited.json()["error"].startswith("Too many requests")

    assert (await _save_settings(client, admin, rate_limiting=False)).status_code == 200
    assert (await _look_up(client, admin["headers"])).status_code == 200


class CountingPlaces:
    """The real registry provider, counting how often the lookup calls it."""

    def __init__(self, inner) -> None:  # noqa: ANN001
        self._inner = inner
        self.name = inner.name
        self.calls = 0

    async def occupants_at(self, address, point):  # noqa: ANN001, ANN201
        self.calls += 1
        return await self._inner.occupants_at(address, point)

    async def coverage(self, address, point):  # noqa: ANN001, ANN201
        return await self._inner.coverage(address, point)


async def test_search_caching_answers_a_repeat_from_storage_for_24_hours(client: AsyncClient, container: Container) -> None:
    clock = FakeClock(datetime.now(UTC))
    container.clock.override(clock)
    places = CountingPlaces(container.places())
    container.places.override(places)
    admin = await sign_up_admin(client, container, "boss@example.com")
    ann = await sign_up_and_log_in(client, "ann@example.com")

    first = (await _look_up(client, admin["headers"])).json()["result"]
    assert places.calls == 1 and first["receipt"]["from_cache"] is False
    # Ann types the same building differently: served from the stored answer, under her own search id.
    clock.advance(timedelta(hours=23))
    repeat = (await _look_up(client, ann["headers"], "701 Fifth Avenue Suite 300, Seattle, WA 98104")).json()["result"]
    assert places.calls == 1
    assert repeat["receipt"]["from_cache"] is True and set(repeat) == set(first)
    assert repeat["search_id"] != first["search_id"] and repeat["occupants"] == first["occupants"]
    stored = await client.get(f"/api/search-results/{repeat['search_id']}", headers=ann["headers"])
    assert stored.status_code == 200
    stats = (await client.get("/api/auth/get-search-stats", headers=ann["headers"])).json()["stats"]
    assert stats["current_month_searches"] == 1  # a cached answer still counts

    clock.advance(timedelta(hours=2))  # 25 hours after the first answer: providers again
    assert (await _look_up(client, ann["headers"])).json()["result"]["receipt"]["from_cache"] is False
    assert places.calls == 2

    assert (await _save_settings(client, admin, search_caching=False)).status_code == 200
    await _look_up(client, ann["headers"])
    assert places.calls == 3


async def test_a_cached_answer_carries_nothing_of_the_first_asker(client: AsyncClient, container: Container) -> None:
    clock = FakeClock(datetime.now(UTC))
    container.clock.override(clock)
    ann = await sign_up_and_log_in(client, "ann@example.com")
    bob = await sign_up_and_log_in(client, "bob@example.com")
    anns = (await _look_up(client, ann["headers"], "701 5th Ave, Flood Zone Ae Do Not Insure, WA 98104")).json()["result"]
    clock.advance(timedelta(hours=3))
    bobs = (await _look_up(client, bob["headers"], "701 5th Avenue, Seattle, WA 98104")).json()["result"]

    assert bobs["receipt"]["from_cache"] is True and bobs["occupants"] == anns["occupants"]
    text = json.dumps(bobs)
    assert "Flood Zone" not in text and "Do Not Insure" not in text
    assert anns["timestamp"] not in text and anns["receipt"]["scored_at"] not in text and anns["search_id"] not in text
    assert bobs["query"] == "701 5th Avenue, Seattle, WA 98104"
    assert bobs["address"].splitlines()[0].startswith("701 5th Avenue, Seattle")
    # The building facts are the provider's, the same for both.
    assert bobs["address"].splitlines()[1:] == anns["address"].splitlines()[1:]
    assert "Year Built: 1985" in bobs["address"].splitlines()[0]

"""Two tabs refresh one session at once, through the whole app, on SQLite and PostgreSQL: both get a
session of the same family, and a replay after the reuse window still ends the family."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from dependency_injector import providers
from sqlalchemy import delete, select

from adapters.db.account_tables import RefreshTokenRow, UserRow
from adapters.security.passwords import Argon2PasswordHasher
from entrypoints.container import Container, build_container
from entrypoints.http.app import create_app
from tests.conftest import STRONG_PASSWORD, settings_for_tests
from tests.fakes import FakeClock


@pytest.fixture
async def world(migrated_database_url: str) -> AsyncIterator[tuple[Container, httpx.AsyncClient, FakeClock]]:
    # Real commits on the app's own engine and pool: the rolled-back test transaction would serialise everything.
    container = build_container(settings_for_tests(migrated_database_url))
    container.password_hasher.override(Argon2PasswordHasher(time_cost=1, memory_cost_kib=1024))
    clock = FakeClock()
    container.clock.override(providers.Object(clock))
    transport = httpx.ASGITransport(app=create_app(container))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver.local") as client:
        yield container, client, clock
    container.search_store().close()
    await container.engine().dispose()


async def _signed_in(container: Container, client: httpx.AsyncClient) -> tuple[str, str]:
    """(user id, refresh cookie) of a new account, signed in with 'Remember me'."""
    email = f"{uuid.uuid4().hex}@example.com"
    user = await container.accounts().create_user(email, STRONG_PASSWORD)
    response = await client.post("/api/auth/login", json={"email": email, "password": STRONG_PASSWORD, "remember_me": True})
    assert response.status_code == 200, response.text
    client.cookies.clear()
    return user.id, response.cookies["ps_refresh"]


async def _refresh(client: httpx.AsyncClient, cookie: str) -> httpx.Response:
    return await client.post("/api/auth/refresh", headers={"Cookie": f"ps_refresh={cookie}"})


async def test_two_refreshes_at_once_both_succeed_in_one_family(world) -> None:  # noqa: ANN001
    container, client, clock = world
    user_id, cookie = await _signed_in(container, client)
    try:
        tab_a, tab_b = await asyncio.gather(_refresh(client, cookie), _refresh(client, cookie))

        assert (tab_a.status_code, tab_b.status_code) == (200, 200), (tab_a.text, tab_b.text)
        new_cookies = [tab_a.cookies["ps_refresh"], tab_b.cookies["ps_refresh"]]
        async with container.engine().connect() as connection:
            families = set((await connection.scalars(
                select(RefreshTokenRow.family_id).where(RefreshTokenRow.user_id == user_id))).all())
        assert len(families) == 1
        for tab_cookie in new_cookies:  # neither tab was signed out
            assert (await _refresh(client, tab_cookie)).status_code == 200

        clock.advance(container.account_policy().refresh_reuse_window + timedelta(seconds=1))
        assert (await _refresh(client, cookie)).status_code == 401  # a stolen copy, replayed late
        assert (await _refresh(client, new_cookies[0])).status_code == 401  # the family has ended
    finally:
        async with container.engine().begin() as connection:
            await connection.execute(delete(UserRow).where(UserRow.id == user_id))

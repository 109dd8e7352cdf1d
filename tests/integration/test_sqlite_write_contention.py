"""Concurrent writers on the embedded SQLite default, through the whole app on a real database file.

The shared rolled-back connection of the other API tests serialises everything; these build the
container on a fresh migrated file with its own engine and pool, as `perilscope serve` does."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from dependency_injector import providers
from sqlalchemy import func, select

from adapters.db import writer as writer_module
from adapters.db.account_tables import OutboxMailRow, PasswordResetRow
from adapters.db.engine import SQLITE_BUSY_TIMEOUT_MS, create_engine
from adapters.security.passwords import Argon2PasswordHasher
from application.ports.lookup import StoredSearch
from entrypoints.container import Container, build_container
from entrypoints.http.app import create_app
from entrypoints.migrate import upgrade_to_head
from tests.conftest import STRONG_PASSWORD, settings_for_tests

EMAIL = "contended@example.com"


@pytest.fixture
def database_path(tmp_path: Path) -> Path:
    return tmp_path / "contended.db"


@pytest.fixture
def busy_timeout_ms() -> int:
    """SQLite's wait for another process's writer; a test that outwaits it shortens it."""
    return SQLITE_BUSY_TIMEOUT_MS


@pytest.fixture
async def file_container(database_path: Path, busy_timeout_ms: int) -> AsyncIterator[Container]:
    url = f"sqlite+aiosqlite:///{database_path}"
    await asyncio.to_thread(upgrade_to_head, url)
    container = build_container(settings_for_tests(url))
    container.engine.override(providers.Singleton(create_engine, url, sqlite_busy_timeout_ms=busy_timeout_ms))
    container.password_hasher.override(Argon2PasswordHasher(time_cost=1, memory_cost_kib=1024))
    yield container
    container.search_store().close()
    await container.engine().dispose()


@pytest.fixture
async def app_client(file_container: Container) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(file_container))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver.local") as client:
        yield client


async def _sign_up(client: httpx.AsyncClient) -> tuple[str, str]:
    """(user id, refresh cookie) of a new account, signed in."""
    response = await client.post("/api/auth/signup", json={"email": EMAIL, "password": STRONG_PASSWORD})
    assert response.status_code == 201, response.text
    response = await client.post("/api/auth/login", json={"email": EMAIL, "password": STRONG_PASSWORD})
    assert response.status_code == 200, response.text
    return response.json()["user"]["uid"], response.cookies["ps_refresh"]


async def test_twenty_concurrent_refreshes_of_one_token_all_answer_within_the_reuse_window(
    app_client: httpx.AsyncClient,
) -> None:
    _, cookie = await _sign_up(app_client)
    app_client.cookies.clear()

    responses = await asyncio.gather(
        *(app_client.post("/api/auth/refresh", headers={"Cookie": f"ps_refresh={cookie}"}) for _ in range(20))
    )

    # Every writer waits its turn (no 500, no 503), and each gets a session of the family: tabs
    # refreshing at once are not taken for a stolen copy (tests/integration/test_refresh_races.py).
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200] * 20, [r.text for r in responses if r.status_code != 200]


async def test_overlapping_forgot_password_requests_all_answer_and_all_mails_are_kept(
    app_client: httpx.AsyncClient, file_container: Container
) -> None:
    await _sign_up(app_client)

    responses = await asyncio.gather(
        *(app_client.post("/forgot-password", json={"email": EMAIL}) for _ in range(20))
    )

    # No 500: the per-address throttle (application/throttles.py) answers the 11th and later with
    # 429, and only three reset mails an hour go to one account; every write still lands.
    statuses = [response.status_code for response in responses]
    assert sorted(statuses) == [200] * 10 + [429] * 10, [r.text for r in responses]
    async with file_container.session_factory()() as session:
        assert await session.scalar(select(func.count()).select_from(PasswordResetRow)) == 3
        subjects = (await session.scalars(select(OutboxMailRow.subject))).all()
    assert sorted(subjects) == ["Reset your PerilScope password"] * 3 + ["Welcome to PerilScope"]


def _other_process_writing(path: Path) -> sqlite3.Connection:
    """A write transaction held outside this process's writer, as a second `perilscope serve`
    worker or the CLI holds one: SQLite locks the file per connection, so its own connection
    here behaves as another process's does."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("BEGIN IMMEDIATE")
    return connection


async def test_a_write_waits_for_another_processs_writer_to_finish(
    app_client: httpx.AsyncClient, database_path: Path
) -> None:
    await _sign_up(app_client)
    other = _other_process_writing(database_path)

    async def other_commits_later() -> None:
        for _ in range(20):  # the loop keeps running while the request waits
            await asyncio.sleep(0.005)
        other.execute("COMMIT")

    response, _ = await asyncio.gather(
        app_client.post("/forgot-password", json={"email": EMAIL}), other_commits_later()
    )

    assert response.status_code == 200, response.text


@pytest.mark.parametrize("busy_timeout_ms", [100])
async def test_a_write_that_outwaits_the_busy_timeout_is_a_503_with_a_message(
    app_client: httpx.AsyncClient, database_path: Path
) -> None:
    await _sign_up(app_client)
    other = _other_process_writing(database_path)
    try:
        response = await app_client.post("/forgot-password", json={"email": EMAIL})
    finally:
        other.execute("ROLLBACK")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error" and body["request_id"]
    assert body["error"] == writer_module.BUSY_MESSAGE


async def test_a_write_that_outwaits_this_processs_queue_is_a_503(
    app_client: httpx.AsyncClient, file_container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, cookie = await _sign_up(app_client)
    app_client.cookies.clear()
    monkeypatch.setattr(writer_module, "TURN_WAIT_SECONDS", 0.05)

    holding, done = asyncio.Event(), asyncio.Event()

    async def a_long_write_of_this_process() -> None:
        async with file_container.writer().turn():
            holding.set()
            await done.wait()

    long_write = asyncio.create_task(a_long_write_of_this_process())
    await holding.wait()
    response = await app_client.post("/api/auth/refresh", headers={"Cookie": f"ps_refresh={cookie}"})
    done.set()
    await long_write

    assert response.status_code == 503
    assert response.json()["error"] == writer_module.BUSY_MESSAGE
    # The refused refresh changed nothing: the token still works.
    response = await app_client.post("/api/auth/refresh", headers={"Cookie": f"ps_refresh={cookie}"})
    assert response.status_code == 200


async def test_the_lookup_write_waits_for_another_process_off_the_event_loop(
    app_client: httpx.AsyncClient, file_container: Container, database_path: Path
) -> None:
    user_id, _ = await _sign_up(app_client)
    store = file_container.search_store()
    search = StoredSearch(
        id=str(uuid.uuid4()), user_id=user_id, kind="single", address="701 5th Ave, Seattle, WA 98104",
        occupant_count=0, result=None, created_at=datetime.now(UTC),
    )
    other = _other_process_writing(database_path)
    ticks = 0

    async def other_commits_after_the_loop_ran() -> None:
        nonlocal ticks
        for ticks in range(1, 21):  # cannot happen if the charge waited on the loop's thread
            await asyncio.sleep(0.005)
        other.execute("COMMIT")

    granted, _ = await asyncio.gather(store.add_charged(search, "2026-11", limit=None), other_commits_after_the_loop_ran())

    assert granted is True and ticks == 20
    assert await store.used(user_id, "2026-11") == 1


async def test_a_write_begun_inside_another_of_the_same_task_fails_at_once(file_container: Container) -> None:
    writer = file_container.writer()
    async with writer.turn():
        with pytest.raises(RuntimeError, match="inside another"):
            async with writer.session():
                pass
    # The turn is free again afterwards.
    async with writer.session() as session:
        assert await session.scalar(select(func.count()).select_from(PasswordResetRow)) == 0

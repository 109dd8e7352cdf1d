"""Shared fixtures: a throwaway database per run on SQLite and on the real PostgreSQL,
built by Alembic, and per-test isolation by a transaction that is rolled back."""

from __future__ import annotations

import asyncio
import atexit
import os
import secrets
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import httpx
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from domain.accounts import Role
from dependency_injector import providers

from adapters.db.engine import create_engine, create_session_factory
from adapters.db.search_repositories import SqlSearchStore
from entrypoints.container import Container, build_container
from entrypoints.http.app import create_app
from entrypoints.migrate import upgrade_to_head
from entrypoints.settings import Settings

POSTGRES_ADMIN_URL = os.environ.get("PERILSCOPE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
IN_CI = os.environ.get("CI", "").lower() == "true"
BACKENDS = ["sqlite", "postgresql"]


def _unavailable(reason: str) -> None:
    """Outside CI a missing service skips its tests; under CI=true it fails them."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: required, not skipped)")
    pytest.skip(reason)


async def _postgres(sql: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(POSTGRES_ADMIN_URL, timeout=5)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


@contextmanager
def throwaway_database(backend: str, directory: Path) -> Iterator[str]:
    """URL of a new database built by `alembic upgrade head` with the reference data loaded,
    dropped afterwards; a SQLite file in `directory` or a database on the local PostgreSQL."""
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{directory / 'perilscope.db'}"
        upgrade_to_head(url)
        asyncio.run(_load_reference_data(url))
        yield url
        return
    name = f"perilscope_test_{uuid.uuid4().hex[:12]}"
    try:
        asyncio.run(_postgres(f'CREATE DATABASE "{name}"'))
    except (OSError, Exception) as error:  # noqa: BLE001 - connection refused, auth, timeout
        _unavailable(f"PostgreSQL at {POSTGRES_ADMIN_URL} is unavailable: {error}")
    url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    try:
        upgrade_to_head(url)
        asyncio.run(_load_reference_data(url))
        yield url
    finally:
        asyncio.run(_postgres(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


TEST_REDIS_URL = os.environ.get("PERILSCOPE_TEST_REDIS", "redis://127.0.0.1:6379/15")


async def connect_test_redis():  # noqa: ANN201
    """A client of the test Redis (a database of its own), or a skip (a failure under CI=true)."""
    from adapters.security.redis_throttle import redis_client

    redis = redis_client(TEST_REDIS_URL)
    try:
        await redis.ping()
    except Exception as error:  # noqa: BLE001
        await redis.aclose()
        _unavailable(f"Redis at {TEST_REDIS_URL} is unavailable: {error}")
    return redis


@pytest.fixture(scope="session", params=BACKENDS)
def migrated_database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a database built by `alembic upgrade head`, new for this test run."""
    with throwaway_database(request.param, tmp_path_factory.mktemp("db")) as url:
        yield url


DATA_DIR = Settings.from_env().data_dir


async def _load_reference_data(url: str) -> None:
    """The real public data of shared/data, as `perilscope data load` loads it."""
    from adapters.reference_data.loader import load_all

    engine = create_engine(url)
    try:
        await load_all(engine, DATA_DIR)
    finally:
        await engine.dispose()


# Random per run, as a server without PERILSCOPE_SECRET_KEY makes its own (entrypoints/secret_store.py).
TEST_SECRET = secrets.token_urlsafe(48)


# Files the tests store (uploads, chunk inputs, exports) live under one temporary directory, each
# set of settings in a folder of its own, removed when the run ends: never in the project's var/.
TEST_FILES_ROOT = Path(tempfile.mkdtemp(prefix="perilscope-test-files-"))
atexit.register(shutil.rmtree, TEST_FILES_ROOT, ignore_errors=True)


def settings_for_tests(database_url: str, **overrides: object) -> Settings:
    values = {
        "environment": "test",
        "database_url": database_url,
        "base_url": "http://testserver.local",
        "secret_key": TEST_SECRET,
        "files_dir": Path(tempfile.mkdtemp(dir=TEST_FILES_ROOT)),
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
async def engine(migrated_database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(migrated_database_url)
    yield engine
    await engine.dispose()


@pytest.fixture
async def connection(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """One connection in an outer transaction; whatever a test commits is undone after it."""
    async with engine.connect() as connection:
        transaction = await connection.begin()
        try:
            yield connection
        finally:
            await transaction.rollback()


@pytest.fixture(scope="session")
def reference_index(engine: AsyncEngine):  # noqa: ANN201
    """Loaded once per database: the reference tables do not change during a run."""
    from adapters.reference_data.memory_index import ReferenceIndex

    return ReferenceIndex(create_session_factory(engine))


@pytest.fixture
def container_settings() -> dict[str, object]:
    """Settings of the test's container beyond the defaults: a test parametrizes this name to change them."""
    return {}


@pytest.fixture
def container(
    migrated_database_url: str, engine: AsyncEngine, connection: AsyncConnection, reference_index,
    container_settings: dict[str, object], tmp_path: Path,
) -> Container:  # noqa: ANN001
    settings = {"files_dir": tmp_path / "files", **container_settings}
    container = build_container(settings_for_tests(migrated_database_url, **settings))
    container.reference_index.override(reference_index)
    container.engine.override(engine)
    container.session_factory.override(create_session_factory(connection))
    # Everything a test writes stays in its rolled-back transaction, so the SQLite store's own
    # loop-thread connection is tested on its own (tests/integration/test_sqlite_loop_store.py).
    container.search_store.override(
        providers.Singleton(SqlSearchStore, sessions=container.session_factory, writer=container.writer)
    )
    # A cheap argon2 cost keeps the suite fast; the production parameters are tested on their own.
    from adapters.security.passwords import Argon2PasswordHasher

    container.password_hasher.override(Argon2PasswordHasher(time_cost=1, memory_cost_kib=1024))
    return container


@pytest.fixture
async def client(container: Container) -> AsyncIterator[httpx.AsyncClient]:
    # httpx's ASGI transport runs the app on the test's own event loop, which the
    # shared asyncpg connection needs (Litestar's test client uses another thread).
    app = create_app(container)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver.local") as client:
        yield client


STRONG_PASSWORD = "Str0ng!pass"


async def sign_up_and_log_in(client: httpx.AsyncClient, email: str, password: str = STRONG_PASSWORD) -> dict:
    """Returns {'uid', 'token', 'headers'} for a new user."""
    response = await client.post("/api/auth/signup", json={"email": email, "password": password})
    assert response.status_code == 201, response.text
    response = await client.post("/api/auth/login", json={"email": email, "password": password})
    assert response.status_code == 200, response.text
    body = response.json()
    return {
        "uid": body["user"]["uid"],
        "token": body["access_token"],
        "headers": {"Authorization": f"Bearer {body['access_token']}"},
    }


async def sign_up_admin(client: httpx.AsyncClient, container: Container, email: str) -> dict:
    """A new administrator, signed in after the promotion so the token carries the role."""
    await sign_up_and_log_in(client, email)
    await container.accounts().set_role(email, Role.ADMIN)
    response = await client.post("/api/auth/login", json={"email": email, "password": STRONG_PASSWORD})
    body = response.json()
    return {"uid": body["user"]["uid"], "headers": {"Authorization": f"Bearer {body['access_token']}"}}

"""Shared fixtures: a throwaway database per test process on SQLite and on the real PostgreSQL,
copied from a template that Alembic built and the reference data filled once per run, and
per-test isolation by a transaction that is rolled back.

The suite runs in parallel (pytest-xdist, `make test-python`): each worker process has its own
databases, its own Redis database number, free ports and temporary folders; the templates are
built by whichever worker needs one first, under a file lock, and dropped when the run ends."""

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
from filelock import FileLock
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

# One id for the whole run: set by the first process (the xdist controller, or pytest alone) when
# it loads this file, and inherited by the worker processes it starts.
RUN_ID = os.environ.setdefault("PERILSCOPE_TEST_RUN_ID", uuid.uuid4().hex[:12])
# "gw0", "gw1", ... under xdist; a run without it is worker 0.
WORKER_INDEX = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
TEMPLATES_DIR = Path(tempfile.gettempdir()) / f"perilscope-test-templates-{RUN_ID}"


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


def _postgres_url(name: str) -> str:
    return f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"


def _template_postgres_name() -> str:
    return f"perilscope_template_{RUN_ID}"


def _built_template(backend: str) -> Path | str:
    """The run's template database of `backend` (a SQLite file, or a PostgreSQL database name):
    `alembic upgrade head` and the reference data, built once, by the first process to ask."""
    TEMPLATES_DIR.mkdir(exist_ok=True)
    built = TEMPLATES_DIR / f"{backend}.built"
    template: Path | str = TEMPLATES_DIR / "template.db" if backend == "sqlite" else _template_postgres_name()
    with FileLock(TEMPLATES_DIR / f"{backend}.lock"):
        if not built.exists():
            url = f"sqlite+aiosqlite:///{template}" if backend == "sqlite" else _postgres_url(str(template))
            if backend == "postgresql":
                asyncio.run(_postgres(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)'))
                asyncio.run(_postgres(f'CREATE DATABASE "{template}"'))
            upgrade_to_head(url)
            asyncio.run(_load_reference_data(url))
            built.touch()
    return template


def drop_templates() -> None:
    """Remove the run's templates (called once, by the process that started the run)."""
    if not TEMPLATES_DIR.exists():
        return
    if (TEMPLATES_DIR / "postgresql.built").exists():
        try:
            asyncio.run(_postgres(f'DROP DATABASE IF EXISTS "{_template_postgres_name()}" WITH (FORCE)'))
        except Exception:  # noqa: BLE001 - PostgreSQL gone since: nothing more to drop
            pass
    shutil.rmtree(TEMPLATES_DIR, ignore_errors=True)


@pytest.hookimpl(trylast=True)  # after pytest has grouped the tests by their database
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that start processes and servers (tests/integration) first: in a parallel run
    they are the long ones, and a long test started last would leave one worker running it alone."""
    items.sort(key=lambda item: "tests/integration/" not in item.nodeid)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # the controller, or pytest without xdist
        drop_templates()


@contextmanager
def throwaway_database(backend: str, directory: Path) -> Iterator[str]:
    """URL of a new database with every migration applied and the reference data loaded, copied
    from the run's template and dropped afterwards; a SQLite file in `directory` or a database on
    the local PostgreSQL."""
    if backend == "sqlite":
        database = directory / "perilscope.db"
        shutil.copyfile(_built_template("sqlite"), database)
        yield f"sqlite+aiosqlite:///{database}"
        return
    name = f"perilscope_test_{uuid.uuid4().hex[:12]}"
    try:
        asyncio.run(_postgres("SELECT 1"))
    except (OSError, Exception) as error:  # noqa: BLE001 - connection refused, auth, timeout
        _unavailable(f"PostgreSQL at {POSTGRES_ADMIN_URL} is unavailable: {error}")
    template = _built_template("postgresql")
    # A template is copied only while nobody is connected to it: the lock keeps copies one at a time.
    with FileLock(TEMPLATES_DIR / "postgresql.lock"):
        asyncio.run(_postgres(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    try:
        yield _postgres_url(name)
    finally:
        asyncio.run(_postgres(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


# A Redis database number of each worker's own (15, 14, ...), away from anything else on this Redis.
TEST_REDIS_URL = os.environ.get("PERILSCOPE_TEST_REDIS", f"redis://127.0.0.1:6379/{15 - WORKER_INDEX % 12}")


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
    """URL of a database with every migration and the reference data, new for this test process."""
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

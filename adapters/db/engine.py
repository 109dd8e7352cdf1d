"""Engine and session factory for SQLite (embedded default) and PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import Engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

SQLITE_BUSY_TIMEOUT_MS = 5000


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def create_engine(url: str, **kwargs) -> AsyncEngine:  # noqa: ANN003
    if not is_sqlite(url):
        return create_async_engine(url, pool_pre_ping=True, **kwargs)
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, **kwargs)
    configure_sqlite(engine.sync_engine)
    return engine


def configure_sqlite(engine: Engine) -> None:
    """WAL, foreign keys and SQLAlchemy-issued BEGIN on every connection of this engine."""

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection, _record) -> None:  # noqa: ANN001
        # Let SQLAlchemy, not the driver, issue BEGIN: needed for SAVEPOINTs to work.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection) -> None:  # noqa: ANN001
        connection.exec_driver_sql("BEGIN")


class _NoLock:
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


def write_lock_for(bind: AsyncEngine | AsyncConnection):  # noqa: ANN201
    """SQLite takes one writer at a time; queueing writers here instead of in its busy
    handler (which sleeps and retries) keeps the slowest requests from waiting seconds."""
    if bind.dialect.name == "sqlite":
        return asyncio.Lock()
    return _NoLock()


def create_session_factory(bind: AsyncEngine | AsyncConnection) -> async_sessionmaker[AsyncSession]:
    """Bound to an engine in the app; to one connection inside a test transaction, where
    every commit becomes a SAVEPOINT release and the test's rollback undoes it all."""
    if isinstance(bind, AsyncConnection):
        return async_sessionmaker(bind, expire_on_commit=False, join_transaction_mode="create_savepoint")
    return async_sessionmaker(bind, expire_on_commit=False)


def upsert_insert(dialect_name: str, table):  # noqa: ANN001, ANN201
    """An INSERT with ON CONFLICT support in that dialect (SQLite or PostgreSQL)."""
    return (postgresql if dialect_name == "postgresql" else sqlite).insert(table)

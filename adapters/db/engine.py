"""Engine and session factory for SQLite (embedded default) and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

SQLITE_BUSY_TIMEOUT_MS = 5000
# Execution option of a connection whose transactions write: see configure_sqlite.
BEGIN_IMMEDIATE = "perilscope_begin_immediate"


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def create_engine(url: str, sqlite_busy_timeout_ms: int = SQLITE_BUSY_TIMEOUT_MS, **kwargs) -> AsyncEngine:  # noqa: ANN003
    if not is_sqlite(url):
        return create_async_engine(url, pool_pre_ping=True, **kwargs)
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url, connect_args={"timeout": sqlite_busy_timeout_ms / 1000}, **kwargs)
    configure_sqlite(engine.sync_engine, busy_timeout_ms=sqlite_busy_timeout_ms)
    return engine


def configure_sqlite(engine: Engine, busy_timeout_ms: int = SQLITE_BUSY_TIMEOUT_MS) -> None:
    """WAL, foreign keys, how long to wait for another writer, and SQLAlchemy-issued BEGIN
    on every connection of this engine."""

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection, _record) -> None:  # noqa: ANN001
        # Let SQLAlchemy, not the driver, issue BEGIN: needed for SAVEPOINTs to work.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection) -> None:  # noqa: ANN001
        # A write transaction takes SQLite's write lock up front, waiting for it in the busy
        # handler. A deferred one that read first cannot wait: once another writer has committed
        # since its read, its first write fails at once with "database is locked".
        immediate = connection.get_execution_options().get(BEGIN_IMMEDIATE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def create_session_factory(bind: AsyncEngine | AsyncConnection) -> async_sessionmaker[AsyncSession]:
    """Bound to an engine in the app; to one connection inside a test transaction, where
    every commit becomes a SAVEPOINT release and the test's rollback undoes it all."""
    if isinstance(bind, AsyncConnection):
        return async_sessionmaker(bind, expire_on_commit=False, join_transaction_mode="create_savepoint")
    return async_sessionmaker(bind, expire_on_commit=False)


def upsert_insert(dialect_name: str, table):  # noqa: ANN001, ANN201
    """An INSERT with ON CONFLICT support in that dialect (SQLite or PostgreSQL)."""
    return (postgresql if dialect_name == "postgresql" else sqlite).insert(table)

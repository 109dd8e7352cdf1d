"""Alembic environment: runs migrations over the app's own async engine (SQLite or PostgreSQL)."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from adapters.db.engine import create_engine, is_sqlite
from adapters.db.tables import metadata

config = context.config


def database_url() -> str:
    url = config.attributes.get("database_url") or config.get_main_option("sqlalchemy.url")
    if url:
        return url
    from entrypoints.settings import Settings

    return Settings.from_env().database_url


def run_with(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=is_sqlite(database_url()),  # SQLite alters tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_online() -> None:
    engine = create_engine(database_url())
    async with engine.connect() as connection:
        await connection.run_sync(run_with)
        await connection.commit()
    await engine.dispose()


if context.is_offline_mode():
    context.configure(url=database_url(), target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_with(connection)
    else:
        asyncio.run(run_online())

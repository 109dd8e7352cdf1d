"""PostgreSQL's pool without a ping on every checkout (#29): connections the server dropped (a
restart, an idle timeout) fail once, are invalidated with every older one, and the pool goes on
with new ones; and connections are recycled before an idle timeout would drop them."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from adapters.db.engine import POOL_RECYCLE_SECONDS, create_engine, is_sqlite


async def test_dropped_connections_fail_once_then_the_pool_reconnects(migrated_database_url: str) -> None:
    if is_sqlite(migrated_database_url):
        pytest.skip("PostgreSQL's pool")
    engine = create_engine(migrated_database_url, pool_size=3)
    other = create_engine(migrated_database_url)
    try:
        assert engine.pool._recycle == POOL_RECYCLE_SECONDS and not engine.pool._pre_ping
        async with engine.connect() as first, engine.connect() as second:  # two pooled connections
            mine = {await first.scalar(text("SELECT pg_backend_pid()")), await second.scalar(text("SELECT pg_backend_pid()"))}
        async with other.connect() as connection:
            for pid in mine:
                await connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        with pytest.raises(DBAPIError) as failed:
            async with engine.connect() as connection:
                await connection.scalar(text("SELECT 1"))
        assert failed.value.connection_invalidated
        # The other dropped connection was invalidated with it: every later checkout works.
        for _ in range(3):
            async with engine.connect() as connection:
                assert await connection.scalar(text("SELECT 1")) == 1
    finally:
        await engine.dispose()
        await other.dispose()

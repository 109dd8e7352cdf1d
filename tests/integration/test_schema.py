"""Alembic builds the schema (never create_all), and the models agree with the migrations."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.ext.asyncio import AsyncEngine

from adapters.db.tables import metadata


async def test_models_and_migrations_agree(engine: AsyncEngine) -> None:
    def diff(sync_connection):  # noqa: ANN001, ANN202
        context = MigrationContext.configure(sync_connection, opts={"compare_type": True})
        return compare_metadata(context, metadata)

    async with engine.connect() as connection:
        differences = await connection.run_sync(diff)
    assert differences == []

"""Runs Alembic programmatically, for the CLI and the tests."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from entrypoints.settings import PROJECT_ROOT


def alembic_config(database_url: str) -> Config:
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.attributes["database_url"] = database_url
    return config


def upgrade_to_head(database_url: str) -> None:
    command.upgrade(alembic_config(database_url), "head")

"""The `perilscope` command: serve, migrate, manage users, read the mail outbox."""

from __future__ import annotations

import asyncio
import getpass
import os
import sys

import click

from application.errors import ApplicationError
from domain.accounts import Role
from entrypoints.container import Container, build_container


def _container() -> Container:
    return build_container()


def _run(coroutine):  # noqa: ANN001, ANN202
    try:
        return asyncio.run(coroutine)
    except ApplicationError as error:
        raise click.ClickException(error.message) from error


@click.group()
def main() -> None:
    """PerilScope: property risk and occupancy lookups."""


@main.command()
@click.option("--host", default=lambda: os.environ.get("HOST", "127.0.0.1"), show_default="127.0.0.1")
@click.option("--port", default=lambda: int(os.environ.get("PORT", "8000")), type=int, show_default="8000")
def serve(host: str, port: int) -> None:
    """Serve the API and the web app."""
    import uvicorn

    uvicorn.run("entrypoints.asgi:app", host=host, port=port, log_config=None, access_log=False)


@main.group()
def db() -> None:
    """Database schema."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply every Alembic migration to DATABASE_URL."""
    from entrypoints.migrate import upgrade_to_head

    upgrade_to_head(_container().settings().database_url)
    click.echo("database is at the latest migration")


@main.group()
def users() -> None:
    """User accounts."""


@users.command("create-admin")
@click.argument("email")
@click.option("--password", envvar="PERILSCOPE_ADMIN_PASSWORD", help="Asked for when not given.")
def create_admin(email: str, password: str | None) -> None:
    """Create an administrator account (the first admin comes from here)."""
    if password is None:
        if not sys.stdin.isatty():
            raise click.ClickException("give --password or PERILSCOPE_ADMIN_PASSWORD when not on a terminal")
        password = getpass.getpass("Password: ")
    user = _run(_container().accounts().create_admin(email, password))
    click.echo(f"created administrator {user.email} ({user.id})")


@users.command("set-role")
@click.argument("email")
@click.argument("role", type=click.Choice([r.value for r in Role]))
def set_role(email: str, role: str) -> None:
    """Make an existing user an admin, or a regular user again."""
    user = _run(_container().accounts().set_role(email, Role(role)))
    click.echo(f"{user.email} is now {user.role.value}")


@main.group()
def mail() -> None:
    """Outgoing mail."""


@mail.command("outbox")
@click.option("--limit", default=10, show_default=True)
def outbox(limit: int) -> None:
    """Show the newest messages the outbox mailer stored."""
    from adapters.mail.outbox import OutboxMailer

    container = _container()
    mailer = OutboxMailer(container.session_factory(), container.clock())
    rows = _run(mailer.recent(limit))
    if not rows:
        click.echo("the outbox is empty")
    for row in rows:
        click.echo(f"--- #{row.id} {row.created_at:%Y-%m-%d %H:%M:%S} to {row.to_address}\nSubject: {row.subject}\n\n{row.body}")


if __name__ == "__main__":
    main()

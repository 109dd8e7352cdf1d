"""The `perilscope` command: serve, migrate, manage users, read the mail outbox."""

from __future__ import annotations

import asyncio
import getpass
import os
import sys
from pathlib import Path

import click

from application.errors import ApplicationError
from application.mfa import change_notice
from domain.accounts import Role, User
from entrypoints.container import Container, build_container
from entrypoints.export_commands import exports


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

    # Links in mails (password reset) point where this server answers, unless a public base URL
    # (a proxy, https) is configured.
    os.environ.setdefault("PERILSCOPE_BASE_URL", f"http://{host}:{port}")

    uvicorn.run("entrypoints.asgi:app", host=host, port=port, log_config=None, access_log=False)


@main.command()
@click.option("--workers", default=1, show_default=True, help="Worker processes.")
@click.option("--concurrency", default=1, show_default=True,
              help="Chunks each worker process runs at once (a chunk is mostly CPU: one per core is the most useful).")
def worker(workers: int, concurrency: int) -> None:
    """Run batch chunks from the Taskiq queue on Redis (PERILSCOPE_JOB_QUEUE=taskiq, REDIS_URL)."""
    # Each process serves its metrics on the first free port of PERILSCOPE_WORKER_METRICS_PORT's N.
    os.environ["PERILSCOPE_WORKER_PROCESSES"] = str(workers)
    os.execv(
        str(Path(sys.executable).parent / "taskiq"),
        ["taskiq", "worker", "entrypoints.worker:broker", "--workers", str(workers), "--no-configure-logging",
         # Bounded: a process takes no more tasks than it runs, so idle workers get the rest.
         "--max-async-tasks", str(concurrency), "--max-prefetch", "0"],
    )


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


@users.command("reset-mfa")
@click.argument("email")
def reset_mfa(email: str) -> None:
    """Turn off someone's two-factor sign-in after they lost their phone and recovery codes
    (check who they are first); they sign in with the password and set it up again."""
    container = _container()

    async def reset_and_tell() -> User:
        user = await container.mfa().reset(email)
        await container.mailer().send(change_notice(user.email, turned_on=False))
        return user

    user = _run(reset_and_tell())
    click.echo(f"two-factor sign-in is off for {user.email}; they can set it up again on Settings")


@main.group()
def data() -> None:
    """Reference data: NRI scores, ZIP to county, NAICS, businesses, buildings."""


def _data_dir() -> Path:
    return _container().settings().data_dir


@data.command("load")
@click.option("--if-changed", is_flag=True, help="Skip datasets whose files are unchanged since the last load.")
def data_load(if_changed: bool) -> None:
    """Load every dataset from PERILSCOPE_DATA_DIR (idempotent)."""
    from adapters.reference_data.loader import load_all
    from adapters.reference_data.readers import DataFileError

    container = _container()
    try:
        reports = _run(_with_engine(container, lambda engine: load_all(engine, _data_dir(), if_changed)))
    except DataFileError as error:
        raise click.ClickException(str(error)) from error
    for report in reports:
        _echo_report(report)


def _echo_report(report) -> None:  # noqa: ANN001 - a loader.LoadReport
    state = "unchanged" if report.skipped else f"loaded in {report.seconds:.2f}s"
    click.echo(f"{report.dataset:14} {report.rows:>7,} rows  {state}  ({report.version})")


@data.command("status")
def data_status() -> None:
    """What is loaded: dataset, version, rows and when; census tracts per NRI release."""
    from adapters.reference_data.loader import dataset_status, tract_counts

    async def both(engine):  # noqa: ANN001, ANN202
        return await dataset_status(engine), await tract_counts(engine)

    rows, tracts = _run(_with_engine(_container(), both))
    if not rows:
        click.echo("nothing loaded yet: run `perilscope data load`")
    for row in rows:
        click.echo(f"{row.dataset:14} {row.row_count:>7,} rows  {row.version}  loaded {row.loaded_at:%Y-%m-%d %H:%M} UTC  from {row.source_file}")
    for release, count in tracts:
        click.echo(f"census tracts  {count:>7,} tracts of NRI {release}")


@data.command("import-nri-tracts")
@click.argument("csv_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--nri-version", help="The NRI release, e.g. 'March 2023', when the file has no NRI_VER column and its name says none.")
def import_nri_tracts(csv_file: Path, nri_version: str | None) -> None:
    """Load FEMA's NRI census-tract table (NRI_Table_CensusTracts*.csv, full or trimmed, v1.19
    RFLD_* or v1.20 IFLD_*, .csv or .csv.gz); importing it again replaces its tracts."""
    from adapters.reference_data import loader
    from adapters.reference_data.readers import DataFileError

    try:
        report = _run(_with_engine(_container(), lambda engine: loader.import_nri_tracts(engine, csv_file, nri_version)))
    except DataFileError as error:
        raise click.ClickException(str(error)) from error
    click.echo(f"imported {report.rows:,} census tracts of {report.version} from {csv_file.name}")


@data.command("import-businesses")
@click.argument("csv_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def import_businesses(csv_file: Path) -> None:
    """Add a city's businesses from a CSV with columns name, street_address, city, state, zip
    (optional naics_code, status, lat, lng, legal_name, source_record_id)."""
    _import(csv_file, "business")


@data.command("import-buildings")
@click.argument("csv_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def import_buildings(csv_file: Path) -> None:
    """Add building records from a CSV with columns address, city, state, zip (optional year_built,
    property_type, floors, buildings, gfa_total, gfa_parking, largest_use, all_uses, parcel,
    neighborhood, lat, lng, property_name, source_record_id)."""
    _import(csv_file, "building")


def _import(csv_file: Path, table: str) -> None:
    from adapters.reference_data.loader import import_file
    from adapters.reference_data.readers import DataFileError

    try:
        report = _run(_with_engine(_container(), lambda engine: import_file(engine, table, csv_file)))
    except DataFileError as error:
        raise click.ClickException(str(error)) from error
    click.echo(f"imported {report.rows:,} rows into {table} from {csv_file.name}")


async def _with_engine(container: Container, work):  # noqa: ANN001, ANN202
    engine = container.engine()
    try:
        return await work(engine)
    finally:
        await engine.dispose()


@main.group()
def uploads() -> None:
    """Uploaded batch files."""


@uploads.command("purge")
def uploads_purge() -> None:
    """Delete uploads no job needs: used by a finished job, or unused for PERILSCOPE_UPLOAD_RETENTION_HOURS."""
    container = _container()
    purged = _run(_with_engine(container, lambda _engine: container.batch().purge_uploads()))
    click.echo(f"purged {purged} upload(s)")


@main.group()
def mail() -> None:
    """Outgoing mail."""


@mail.command("outbox")
@click.option("--limit", default=10, show_default=True)
def outbox(limit: int) -> None:
    """Show the newest messages the outbox mailer stored."""
    from adapters.mail.outbox import OutboxMailer

    container = _container()
    mailer = OutboxMailer(container.session_factory(), container.writer(), container.clock())
    rows = _run(mailer.recent(limit))
    if not rows:
        click.echo("the outbox is empty")
    for row in rows:
        click.echo(f"--- #{row.id} {row.created_at:%Y-%m-%d %H:%M:%S} to {row.to_address}\nSubject: {row.subject}\n\n{row.body}")


main.add_command(exports)


if __name__ == "__main__":
    main()

"""`perilscope exports ...`: the one-off conversion of exports made before issue #27 into the
columnar dataset (adapters/results/legacy_exports.py). `make migrate` runs it after `db upgrade`;
once every export is converted it finds nothing to do and says so."""

from __future__ import annotations

import asyncio

import click


@click.group()
def exports() -> None:
    """Batch exports kept in the file store."""


@exports.command("convert")
def convert() -> None:
    """Convert every export made before the columnar dataset (detailed JSON Lines, in files or in
    the database) into its Parquet chunks and manifest, then delete the old files. Idempotent:
    run it again and it changes nothing; cut short, it takes up where it stopped."""
    from adapters.results.legacy_exports import LegacyExportConverter
    from entrypoints.container import build_container

    container = build_container()

    async def run():  # noqa: ANN202
        converter = LegacyExportConverter(container.session_factory(), container.writer(), container.file_store(),
                                          chunk_rows=container.settings().batch_chunk_rows)
        try:
            return await converter.convert_all()
        finally:
            await container.engine().dispose()

    report = asyncio.run(run())
    for name in report.skipped:
        click.echo(f"not converted, its detailed records are missing from the file store: {name}", err=True)
    if not report.converted and not report.csv_moved:
        click.echo("no export to convert")
        return
    if report.converted:
        click.echo(f"converted {report.converted} export(s), {report.rows:,} rows: "
                   f"{report.bytes_before / 1e6:.1f} MB stored before, {report.bytes_after / 1e6:.1f} MB now")
    if report.occupants_not_matched:
        click.echo(f"  {report.occupants_not_matched:,} row(s) whose occupants their SPEC CSV did not give: kept without")
    if report.csv_moved:
        click.echo(f"moved {report.csv_moved} CSV-only export(s) from the database into the file store")

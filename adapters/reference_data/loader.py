"""Loads datasets into their tables with Core bulk inserts, one transaction per dataset:
delete then insert, so a load is idempotent and a failed one leaves the old data."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import delete, func, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adapters.db.base import Base
from adapters.db.reference_tables import DatasetLoadRow, NriTractRow
from adapters.reference_data.nri_tracts import read_nri_tracts
from adapters.reference_data.readers import (
    EMBEDDED_DATASETS,
    DataFileError,
    Dataset,
    Rows,
    read_generic_buildings,
    read_generic_businesses,
)

CHUNK_ROWS = 5000


@dataclass(frozen=True, slots=True)
class LoadReport:
    dataset: str
    version: str
    rows: int
    seconds: float
    skipped: bool = False


def missing_files(data_dir: Path, datasets: tuple[Dataset, ...] = EMBEDDED_DATASETS) -> list[str]:
    return [name for dataset in datasets for name in dataset.files if not (data_dir / name).is_file()]


def _fingerprint(paths: list[Path]) -> str:
    return ";".join(f"{p.name}:{p.stat().st_size}:{int(p.stat().st_mtime)}" for p in paths)


async def load_all(engine: AsyncEngine, data_dir: Path, only_if_changed: bool = False) -> list[LoadReport]:
    if not data_dir.is_dir():
        raise DataFileError(f"the data directory {data_dir} does not exist (set PERILSCOPE_DATA_DIR)")
    absent = missing_files(data_dir)
    if absent:
        raise DataFileError(f"missing in {data_dir}: {', '.join(absent)}")
    reports = []
    for dataset in EMBEDDED_DATASETS:
        paths = [data_dir / name for name in dataset.files]
        reports.append(await load_dataset(engine, dataset, paths, only_if_changed=only_if_changed))
    for path in tract_files(data_dir):
        reports.append(await import_nri_tracts(engine, path, only_if_changed=only_if_changed))
    return reports


TRACT_FILE_PATTERN = "nri_tracts_*.csv*"


def tract_files(data_dir: Path) -> list[Path]:
    """The NRI census-tract tables in the data directory; test fixtures (`*fixture*`) are formats
    to test the reader with, not data to answer with."""
    return sorted(p for p in data_dir.glob(TRACT_FILE_PATTERN) if p.is_file() and "fixture" not in p.name)


def tract_dataset_name(path: Path) -> str:
    stem = path.name.split(".")[0]
    return f"nri_tracts:{stem.removeprefix('nri_tracts_')}"[:60]


async def import_nri_tracts(
    engine: AsyncEngine, path: Path, nri_version: str | None = None, only_if_changed: bool = False
) -> LoadReport:
    """One FEMA tract file: its tracts of its release replace the same tracts of that release
    (so several state files of one release add up, and importing a file again adds nothing)."""
    name, fingerprint = tract_dataset_name(path), _fingerprint([path])
    if only_if_changed and (loaded := await _loaded(engine, name)) is not None and loaded.source_fingerprint == fingerprint:
        return LoadReport(name, loaded.version or "", loaded.row_count, 0.0, skipped=True)
    started = time.perf_counter()
    table = read_nri_tracts(path, nri_version)
    release, shown = table.release.label, table.release.display
    geoids = [str(row["tract_geoid"]) for row in table.rows]
    tracts = NriTractRow.__table__
    async with engine.begin() as connection:
        of_release = tracts.c.nri_version == release
        await connection.execute(delete(tracts).where(of_release, tracts.c.source == path.name))
        for start in range(0, len(geoids), DELETE_CHUNK):
            await connection.execute(delete(tracts).where(of_release, tracts.c.tract_geoid.in_(geoids[start : start + DELETE_CHUNK])))
        await _insert_chunks(connection, tracts, table.rows)
        await _record_load(connection, name, shown, len(table.rows), [path], fingerprint, started)
    return LoadReport(name, shown, len(table.rows), round(time.perf_counter() - started, 3))


DELETE_CHUNK = 500  # SQLite allows 999 bound parameters per statement


async def _loaded(engine: AsyncEngine, dataset: str):  # noqa: ANN202
    async with engine.connect() as connection:
        return (await connection.execute(select(DatasetLoadRow).where(DatasetLoadRow.dataset == dataset))).first()


async def tract_counts(engine: AsyncEngine) -> list[tuple[str, int]]:
    """Tracts loaded per NRI release."""
    async with engine.connect() as connection:
        query = select(NriTractRow.nri_version, func.count()).group_by(NriTractRow.nri_version).order_by(NriTractRow.nri_version)
        return [(row[0], row[1]) for row in (await connection.execute(query)).all()]


async def import_file(engine: AsyncEngine, table: str, path: Path) -> LoadReport:
    """A city's own file in the generic column set; importing the same file again replaces its rows."""
    read = read_generic_businesses if table == "business" else read_generic_buildings
    dataset = Dataset(f"import:{table}:{path.name}", table, (path.name,), read, f"import of {path.name}")
    return await load_dataset(engine, dataset, [path], only_source=f"import:{path.name}")


async def load_dataset(
    engine: AsyncEngine,
    dataset: Dataset,
    paths: list[Path],
    only_if_changed: bool = False,
    only_source: str | None = None,
) -> LoadReport:
    fingerprint = _fingerprint(paths)
    if only_if_changed:
        loaded = await _loaded(engine, dataset.name)
        if loaded is not None and loaded.source_fingerprint == fingerprint:
            return LoadReport(dataset.name, dataset.version, loaded.row_count, 0.0, skipped=True)
    started = time.perf_counter()
    rows: Rows = dataset.rows(paths)
    table = Base.metadata.tables[dataset.table]
    async with engine.begin() as connection:
        # A full dataset replaces its table; an import replaces only its own earlier rows.
        await connection.execute(delete(table).where(table.c.source == only_source) if only_source else delete(table))
        await _insert_chunks(connection, table, rows)
        await _record_load(connection, dataset.name, dataset.version, len(rows), paths, fingerprint, started)
    return LoadReport(dataset.name, dataset.version, len(rows), round(time.perf_counter() - started, 3))


async def _record_load(
    connection: AsyncConnection, dataset: str, version: str, rows: int, paths: list[Path], fingerprint: str, started: float
) -> None:
    await connection.execute(delete(DatasetLoadRow).where(DatasetLoadRow.dataset == dataset))
    await connection.execute(
        insert(DatasetLoadRow).values(
            dataset=dataset,
            version=version,
            row_count=rows,
            source_file=", ".join(str(p) for p in paths),
            source_fingerprint=fingerprint,
            loaded_at=datetime.now(UTC),
            seconds=round(time.perf_counter() - started, 3),
        )
    )


async def _insert_chunks(connection: AsyncConnection, table, rows: Rows) -> None:  # noqa: ANN001
    for start in range(0, len(rows), CHUNK_ROWS):
        await connection.execute(insert(table), rows[start : start + CHUNK_ROWS])


async def dataset_status(engine: AsyncEngine) -> list[DatasetLoadRow]:
    async with engine.connect() as connection:
        return list((await connection.execute(select(DatasetLoadRow).order_by(DatasetLoadRow.dataset))).all())

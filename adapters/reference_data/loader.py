"""Loads datasets into their tables with Core bulk inserts, one transaction per dataset:
delete then insert, so a load is idempotent and a failed one leaves the old data."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adapters.db.base import Base
from adapters.db.reference_tables import DatasetLoadRow
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
    return reports


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
        async with engine.connect() as connection:
            loaded = (
                await connection.execute(select(DatasetLoadRow).where(DatasetLoadRow.dataset == dataset.name))
            ).first()
        if loaded is not None and loaded.source_fingerprint == fingerprint:
            return LoadReport(dataset.name, dataset.version, loaded.row_count, 0.0, skipped=True)
    started = time.perf_counter()
    rows: Rows = [row for path in paths for row in dataset.read(path)]
    table = Base.metadata.tables[dataset.table]
    async with engine.begin() as connection:
        # A full dataset replaces its table; an import replaces only its own earlier rows.
        await connection.execute(delete(table).where(table.c.source == only_source) if only_source else delete(table))
        await _insert_chunks(connection, table, rows)
        await connection.execute(delete(DatasetLoadRow).where(DatasetLoadRow.dataset == dataset.name))
        seconds = time.perf_counter() - started
        await connection.execute(
            insert(DatasetLoadRow).values(
                dataset=dataset.name,
                version=dataset.version,
                row_count=len(rows),
                source_file=", ".join(str(p) for p in paths),
                source_fingerprint=fingerprint,
                loaded_at=datetime.now(UTC),
                seconds=round(seconds, 3),
            )
        )
    return LoadReport(dataset.name, dataset.version, len(rows), round(time.perf_counter() - started, 3))


async def _insert_chunks(connection: AsyncConnection, table, rows: Rows) -> None:  # noqa: ANN001
    for start in range(0, len(rows), CHUNK_ROWS):
        await connection.execute(insert(table), rows[start : start + CHUNK_ROWS])


async def dataset_status(engine: AsyncEngine) -> list[DatasetLoadRow]:
    async with engine.connect() as connection:
        return list((await connection.execute(select(DatasetLoadRow).order_by(DatasetLoadRow.dataset))).all())

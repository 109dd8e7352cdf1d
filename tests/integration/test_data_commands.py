"""`perilscope data ...` on a real SQLite database: load, idempotence, status, imports, missing data."""

from __future__ import annotations

import asyncio
import csv
import gzip
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from adapters.db.engine import create_engine
from adapters.db.reference_tables import BuildingRow, BusinessRow, NriCountyRow
from adapters.reference_data.loader import tract_files
from adapters.reference_data.readers import EMBEDDED_DATASETS
from entrypoints.cli import main
from entrypoints.migrate import upgrade_to_head
from tests.conftest import DATA_DIR


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'data.db'}"
    upgrade_to_head(url)
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("PERILSCOPE_DATA_DIR", str(DATA_DIR))
    return url


def _count(url: str, table) -> int:  # noqa: ANN001
    async def count() -> int:
        engine = create_engine(url)
        try:
            async with engine.connect() as connection:
                return await connection.scalar(select(func.count()).select_from(table))
        finally:
            await engine.dispose()

    return asyncio.run(count())


def test_load_is_idempotent_and_reports_status(database: str) -> None:
    runner = CliRunner()
    first = runner.invoke(main, ["data", "load"])
    assert first.exit_code == 0, first.output
    assert "nri_counties" in first.output and "3,232 rows" in first.output
    counts = (_count(database, NriCountyRow), _count(database, BusinessRow), _count(database, BuildingRow))
    assert counts == (3232, 9712, 3376)

    again = runner.invoke(main, ["data", "load"])
    assert again.exit_code == 0
    assert (_count(database, NriCountyRow), _count(database, BusinessRow), _count(database, BuildingRow)) == counts
    unchanged = runner.invoke(main, ["data", "load", "--if-changed"])
    assert unchanged.output.count("unchanged") == len(EMBEDDED_DATASETS) + len(tract_files(DATA_DIR))

    status = runner.invoke(main, ["data", "status"])
    assert "NRI v1.20.0 (December 2025)" in status.output and "41,636 rows" in status.output


def test_import_businesses_and_buildings_with_the_generic_columns(database: str, tmp_path: Path) -> None:
    businesses = tmp_path / "portland_businesses.csv"
    businesses.write_text(
        "Name,Street_Address,City,State,Zip,NAICS_Code,Status\n"
        "Rose City Bakery,100 SW Main Street Suite 4,Portland,OR,97204,311811,active\n"
        "Old Books,100 SW Main St,Portland,OR,97204,,closed\n"
    )
    buildings = tmp_path / "portland_buildings.csv"
    buildings.write_text("address,city,state,zip,year_built,floors\n100 SW Main Street,Portland,OR,97204,1921,5\n")
    runner = CliRunner()
    assert runner.invoke(main, ["data", "import-businesses", str(businesses)]).exit_code == 0
    result = runner.invoke(main, ["data", "import-buildings", str(buildings)])
    assert result.exit_code == 0 and "imported 1 rows into building" in result.output
    assert _count(database, BusinessRow) == 2
    # Importing the same file again replaces its rows instead of adding them twice.
    assert runner.invoke(main, ["data", "import-businesses", str(businesses)]).exit_code == 0
    assert _count(database, BusinessRow) == 2

    bad = tmp_path / "bad.csv"
    bad.write_text("title,street\nx,y\n")
    refused = runner.invoke(main, ["data", "import-businesses", str(bad)])
    assert refused.exit_code != 0 and "lacks the columns name" in refused.output


def test_a_missing_data_directory_is_named(database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERILSCOPE_DATA_DIR", str(tmp_path / "nowhere"))
    result = CliRunner().invoke(main, ["data", "load"])
    assert result.exit_code != 0 and "does not exist" in result.output
    partial = tmp_path / "partial"
    partial.mkdir()
    (partial / "naics_2022.csv").write_text((DATA_DIR / "naics_2022.csv").read_text())
    monkeypatch.setenv("PERILSCOPE_DATA_DIR", str(partial))
    result = CliRunner().invoke(main, ["data", "load"])
    assert result.exit_code != 0 and "nri_counties_dec2025_scores.csv" in result.output


def test_import_nri_tracts_twice_keeps_one_copy_and_status_names_the_release(database: str) -> None:
    from adapters.db.reference_tables import NriTractRow

    runner = CliRunner()
    fixture = DATA_DIR / "nri_tracts_v119_fixture_baltimore_full.csv.gz"
    first = runner.invoke(main, ["data", "import-nri-tracts", str(fixture)])
    assert first.exit_code == 0, first.output
    assert "imported 199 census tracts of NRI v1.19.0 (March 2023)" in first.output
    again = runner.invoke(main, ["data", "import-nri-tracts", str(fixture)])
    assert again.exit_code == 0 and _count(database, NriTractRow) == 199
    # Another release of tracts adds to the table instead of replacing the first one's.
    colorado = runner.invoke(main, ["data", "import-nri-tracts", str(DATA_DIR / "nri_tracts_v120_fixture_colorado_2tracts.csv")])
    assert colorado.exit_code == 0 and _count(database, NriTractRow) == 201
    status = runner.invoke(main, ["data", "status"])
    assert "199 tracts of NRI 1.19.0 (March 2023)" in status.output
    assert "2 tracts of NRI 1.20.0 (December 2025)" in status.output
    assert "nri_tracts:v119_fixture_baltimore_full" in status.output


def test_data_load_loads_the_tract_files_and_a_same_release_file_replaces_its_tracts(database: str) -> None:
    from adapters.db.reference_tables import NriTractRow

    runner = CliRunner()
    loaded = runner.invoke(main, ["data", "load"])
    assert loaded.exit_code == 0, loaded.output
    seven_areas = DATA_DIR / "nri_tracts_v119_mar2023_7areas.csv.gz"
    assert [p.name for p in tract_files(DATA_DIR)] == [seven_areas.name]  # fixtures are not data
    with gzip.open(seven_areas, "rt", newline="") as handle:
        in_file = sum(1 for _ in csv.DictReader(handle))
    assert _count(database, NriTractRow) == in_file
    # The full Baltimore file is the same release: its 199 tracts replace those of the 7-areas file.
    fixture = DATA_DIR / "nri_tracts_v119_fixture_baltimore_full.csv.gz"
    assert runner.invoke(main, ["data", "import-nri-tracts", str(fixture)]).exit_code == 0
    assert _count(database, NriTractRow) == in_file


def test_import_nri_tracts_refuses_what_is_not_a_tract_table(database: str, tmp_path: Path) -> None:
    runner = CliRunner()
    county = runner.invoke(main, ["data", "import-nri-tracts", str(DATA_DIR / "nri_counties_dec2025_scores.csv")])
    assert county.exit_code != 0 and "lacks the columns TRACTFIPS" in county.output
    damaged = tmp_path / "tracts.csv"
    lines = (DATA_DIR / "nri_tracts_v120_fixture_colorado_2tracts.csv").read_text().splitlines()
    damaged.write_text("\n".join([lines[0], lines[1].replace("08001007801", "8.00101E+09")]) + "\n")
    refused = runner.invoke(main, ["data", "import-nri-tracts", str(damaged)])
    assert refused.exit_code != 0 and "scientific notation" in refused.output


def test_a_building_records_census_tract_is_kept_with_its_leading_zero(database: str, tmp_path: Path) -> None:
    buildings = tmp_path / "anchorage_buildings.csv"
    buildings.write_text(
        "address,city,state,zip,tract_geoid\n"
        "4800 Cordova St,Anchorage,AK,99503,2020000100\n"  # a spreadsheet dropped the zero
        "4900 Cordova St,Anchorage,AK,99503,not a tract\n"
    )
    assert CliRunner().invoke(main, ["data", "import-buildings", str(buildings)]).exit_code == 0

    async def tracts() -> list[str | None]:
        engine = create_engine(database)
        try:
            async with engine.connect() as connection:
                return list((await connection.scalars(select(BuildingRow.tract_geoid).order_by(BuildingRow.address))).all())
        finally:
            await engine.dispose()

    assert asyncio.run(tracts()) == ["02020000100", None]

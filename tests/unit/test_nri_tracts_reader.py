"""FEMA's census-tract table read in the publisher's formats (adapters/reference_data/nri_tracts.py):
v1.19 and v1.20, full and trimmed, Excel-damaged codes, unknown cells, files that are not one."""

from __future__ import annotations

import csv
import gzip
from collections import Counter
from pathlib import Path

import pytest

from adapters.reference_data.nri_tracts import read_nri_tracts
from adapters.reference_data.readers import DataFileError
from domain.nri_release import parse_release, release_from_file_name, versions_differ_note
from domain.perils import HAZARDS
from tests.conftest import DATA_DIR

SEVEN_AREAS = DATA_DIR / "nri_tracts_v119_mar2023_7areas.csv.gz"
BALTIMORE_FULL = DATA_DIR / "nri_tracts_v119_fixture_baltimore_full.csv.gz"
COLORADO_V120 = DATA_DIR / "nri_tracts_v120_fixture_colorado_2tracts.csv"


def _raw(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def _write(path: Path, header: list[str], rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=header, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_the_seven_areas_file_gives_every_tract_of_each_state_with_its_release() -> None:
    table = read_nri_tracts(SEVEN_AREAS)
    _, raw = _raw(SEVEN_AREAS)
    assert table.release.label == "1.19.0 (March 2023)" and table.flood_columns == "RFLD"
    assert Counter(r["tract_geoid"][:2] for r in table.rows) == Counter(r["STATEFIPS"].zfill(2) for r in raw)
    assert len({r["tract_geoid"] for r in table.rows}) == len(raw)
    assert all(len(r["tract_geoid"]) == 11 and r["tract_geoid"].startswith(r["county_fips"]) for r in table.rows)


def test_the_full_467_column_v119_file_reads_its_scores_as_published() -> None:
    header, raw = _raw(BALTIMORE_FULL)
    table = read_nri_tracts(BALTIMORE_FULL)
    assert len(header) == 467 and len(table.rows) == len(raw) == 199
    first, published = table.rows[0], raw[0]
    assert first["tract_geoid"] == published["TRACTFIPS"] and first["county_fips"] == "24510"
    assert first["risk_score"] == float(published["RISK_SCORE"]) and first["risk_rating"] == published["RISK_RATNG"]
    assert first["rfld_score"] == float(published["RFLD_RISKS"])
    # Avalanche does not apply in Baltimore: blank, so unknown (None), never 0.
    assert published["AVLN_RISKS"] == "" and first["avln_score"] is None and first["avln_rating"] == "Not Applicable"


def test_v120_reads_inland_flooding_as_the_riverine_flood_peril() -> None:
    header, raw = _raw(COLORADO_V120)
    table = read_nri_tracts(COLORADO_V120)
    assert "IFLD_RISKS" in header and "RFLD_RISKS" not in header
    assert table.release.label == "1.20.0 (December 2025)" and table.flood_columns == "IFLD"
    assert [r["tract_geoid"] for r in table.rows] == ["08001007801", "08001007802"]
    assert table.rows[0]["rfld_score"] == float(raw[0]["IFLD_RISKS"])
    assert table.rows[0]["rfld_rating"] == raw[0]["IFLD_RISKR"]


def test_a_trimmed_file_without_nri_ver_takes_the_release_from_its_name_or_the_option(tmp_path: Path) -> None:
    header, raw = _raw(COLORADO_V120)
    kept = ["TRACTFIPS", "RISK_SCORE", "RISK_RATNG", *(f"{'IFLD' if h.code == 'RFLD' else h.code}_RISKS" for h in HAZARDS)]
    named = _write(tmp_path / "tracts_v120_colorado.csv", kept, raw)
    table = read_nri_tracts(named)
    assert table.release.number == "1.20.0" and len(table.rows) == 2
    assert table.rows[0]["rfld_rating"] is None  # a trimmed file without ratings: unknown, not made up
    unnamed = _write(tmp_path / "tracts.csv", kept, raw)
    with pytest.raises(DataFileError, match="--nri-version"):
        read_nri_tracts(unnamed)
    assert read_nri_tracts(unnamed, "December 2025").release.label == "1.20.0 (December 2025)"


def test_codes_that_lost_their_leading_zeros_in_excel_are_repaired(tmp_path: Path) -> None:
    header, raw = _raw(COLORADO_V120)
    damaged = [{**row, "STATEFIPS": "8", "STCOFIPS": "8001", "COUNTYFIPS": "1", "TRACT": "7801",
                "TRACTFIPS": row["TRACTFIPS"].lstrip("0") + ".0"} for row in raw]
    table = read_nri_tracts(_write(tmp_path / "colorado.csv", header, damaged))
    assert [(r["tract_geoid"], r["county_fips"]) for r in table.rows] == [("08001007801", "08001"), ("08001007802", "08001")]


def test_codes_in_scientific_notation_are_refused_with_the_line(tmp_path: Path) -> None:
    header, raw = _raw(COLORADO_V120)
    damaged = [raw[0], {**raw[1], "TRACTFIPS": "8.00101E+09"}]
    with pytest.raises(DataFileError, match=r"line 3: TRACTFIPS '8\.00101E\+09' is in scientific notation"):
        read_nri_tracts(_write(tmp_path / "colorado.csv", header, damaged))


def test_a_tract_whose_code_disagrees_with_its_state_is_refused(tmp_path: Path) -> None:
    header, raw = _raw(COLORADO_V120)
    with pytest.raises(DataFileError, match="does not start with its STATEFIPS"):
        read_nri_tracts(_write(tmp_path / "colorado.csv", header, [{**raw[0], "STATEFIPS": "09"}]))


def test_blank_scores_stay_unknown_and_zero_stays_zero(tmp_path: Path) -> None:
    header, raw = _raw(COLORADO_V120)
    row = {**raw[0], "HRCN_RISKS": "", "HRCN_RISKR": "Insufficient Data", "TRND_RISKS": "0.0", "TRND_RISKR": "No Rating"}
    [read] = read_nri_tracts(_write(tmp_path / "colorado.csv", header, [row])).rows
    assert read["hrcn_score"] is None and read["hrcn_rating"] == "Insufficient Data"
    assert read["trnd_score"] == 0.0 and read["trnd_rating"] == "No Rating"


def test_a_file_that_is_not_a_tract_table_names_the_missing_columns(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="is a county table, not a tract table: it lacks the columns TRACTFIPS"):
        read_nri_tracts(DATA_DIR / "nri_counties_dec2025_scores.csv")
    other = tmp_path / "people.csv"
    other.write_text("name,age\nAnn,40\n")
    with pytest.raises(DataFileError, match="not an NRI census-tract table: it lacks the columns TRACTFIPS, RISK_SCORE, RISK_RATNG, AVLN_RISKS"):
        read_nri_tracts(other)


def test_a_file_mixing_releases_is_refused(tmp_path: Path) -> None:
    header, raw = _raw(COLORADO_V120)
    mixed = [raw[0], {**raw[1], "NRI_VER": "March 2023"}]
    with pytest.raises(DataFileError, match="mixes NRI releases"):
        read_nri_tracts(_write(tmp_path / "colorado.csv", header, mixed))


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("1.20.0 (December 2025)", "1.20.0 (December 2025)"),
        ("March 2023", "1.19.0 (March 2023)"),
        ("Mar-23", "1.19.0 (March 2023)"),  # Excel's re-save of the v1.19 files
        ("25-Dec", "1.20.0 (December 2025)"),  # Excel's reading of "Dec-25" as a day
        ("NRI v1.19", "1.19.0 (March 2023)"),
    ],
)
def test_the_ways_files_write_a_release(text: str, label: str) -> None:
    assert parse_release(text).label == label


def test_release_from_a_file_name_and_the_note_on_mixed_releases() -> None:
    assert release_from_file_name("nri_tracts_v119_mar2023_7areas.csv.gz").label == "1.19.0 (March 2023)"
    assert release_from_file_name("NRI_Table_CensusTracts_Iowa.csv") is None
    assert versions_differ_note("1.20.0 (December 2025)", "1.20.0 (December 2025)") is None
    note = versions_differ_note("1.20.0 (December 2025)", "1.19.0 (March 2023)")
    assert note and "1.19.0 (March 2023)" in note and "1.20.0 (December 2025)" in note

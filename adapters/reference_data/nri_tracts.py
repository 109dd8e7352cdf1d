"""FEMA's NRI census-tract table (`NRI_Table_CensusTracts*.csv`) in the publisher's format: the
full 467 columns or any trimmed copy that keeps the identity, composite and per-hazard columns;
v1.19 with RFLD_* or v1.20 with IFLD_* (read as the product's RFLD, as the county reader does).

Files that went through Excel lose the leading zeros of their codes ("8001007801" for Colorado)
and may hold them as numbers ("8001007801.0"): both are repaired. Codes Excel turned into
scientific notation ("8.00101E+09") lost digits and cannot be repaired: refused, with the line."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from adapters.reference_data.readers import DataFileError, Rows, _csv, _number, _records
from domain.nri_release import NriRelease, parse_release, release_from_file_name
from domain.perils import HAZARDS

IDENTITY_COLUMNS = ("TRACTFIPS", "RISK_SCORE", "RISK_RATNG")
SCIENTIFIC = re.compile(r"^\s*[+-]?\d+(?:\.\d+)?[eE][+-]?\d+\s*$")
TRACT_DIGITS, COUNTY_DIGITS, STATE_DIGITS = 11, 5, 2


@dataclass(frozen=True, slots=True)
class TractTable:
    release: NriRelease
    rows: Rows  # nri_tract rows (adapters/db/reference_tables.py NriTractRow)
    flood_columns: str  # "RFLD" (v1.19 and before) or "IFLD" (v1.20)


def read_nri_tracts(path: Path, version: str | None = None) -> TractTable:
    """The rows of the file, with the release they are from: the file's NRI_VER column, else its
    name, else `version` (the command's --nri-version)."""
    frame = _csv(path)
    flood = _check_columns(frame, path)
    release = _release(frame, path, version)
    tracts, counties = _codes(frame, path)
    out = pd.DataFrame(
        {
            "tract_geoid": tracts,
            "nri_version": release.label,
            "county_fips": counties,
            "state": frame.get("STATEABBRV"),
            "county_name": frame.get("COUNTY"),
            "risk_score": _number(frame["RISK_SCORE"]),
            "risk_rating": frame["RISK_RATNG"],
            "source": path.name,
        }
    )
    for hazard in HAZARDS:
        prefix = flood if hazard.code == "RFLD" else hazard.code
        out[f"{hazard.code.lower()}_score"] = _number(frame[f"{prefix}_RISKS"])
        out[f"{hazard.code.lower()}_rating"] = frame.get(f"{prefix}_RISKR")
    duplicated = out["tract_geoid"][out["tract_geoid"].duplicated()]
    if len(duplicated):
        raise DataFileError(f"{path.name} lists tract {duplicated.iloc[0]} more than once")
    return TractTable(release, _records(out), flood)


def _check_columns(frame: pd.DataFrame, path: Path) -> str:
    """The flood prefix of the file (RFLD or IFLD); every missing column named at once."""
    flood = "IFLD" if "IFLD_RISKS" in frame.columns else "RFLD"
    hazard_columns = [f"{flood if h.code == 'RFLD' else h.code}_RISKS" for h in HAZARDS]
    has_tract = "TRACTFIPS" in frame.columns or {"STCOFIPS", "TRACT"} <= set(frame.columns)
    missing = [c for c in (*IDENTITY_COLUMNS, *hazard_columns) if c not in frame.columns]
    if has_tract and "TRACTFIPS" in missing:
        missing.remove("TRACTFIPS")
    if missing:
        what = "a county table, not a tract table" if not has_tract and "STCOFIPS" in frame.columns else "not an NRI census-tract table"
        raise DataFileError(
            f"{path.name} is {what}: it lacks the columns {', '.join(missing)} "
            "(FEMA's NRI_Table_CensusTracts file has TRACTFIPS, RISK_SCORE, RISK_RATNG and a {HAZ}_RISKS column per hazard)"
        )
    return flood


def _release(frame: pd.DataFrame, path: Path, version: str | None) -> NriRelease:
    if "NRI_VER" in frame.columns:
        named = frame["NRI_VER"].dropna().str.strip().unique().tolist()
        releases = {parse_release(text) for text in named}
        if None in releases:
            unreadable = next(text for text in named if parse_release(text) is None)
            raise DataFileError(f"{path.name}: NRI_VER reads {unreadable!r}, which names no NRI release; give --nri-version")
        if len(releases) > 1:
            raise DataFileError(f"{path.name} mixes NRI releases ({', '.join(sorted(named))}): import one release per file")
        if releases:
            return releases.pop()  # type: ignore[return-value]
    release = release_from_file_name(path.name) or parse_release(version)
    if release is None:
        raise DataFileError(
            f"{path.name} does not say which NRI release it is (no NRI_VER column, nothing in its name): "
            "give --nri-version, e.g. --nri-version 'March 2023'"
        )
    return release


def _codes(frame: pd.DataFrame, path: Path) -> tuple[pd.Series, pd.Series]:
    """11-digit tract and 5-digit county codes, repaired where Excel dropped leading zeros."""
    state = _code(frame, "STATEFIPS", STATE_DIGITS, path) if "STATEFIPS" in frame.columns else None
    if "TRACTFIPS" in frame.columns:
        tracts = _code(frame, "TRACTFIPS", TRACT_DIGITS, path)
    else:  # a trimmed file with the county and the 6-digit tract apart
        tracts = _code(frame, "STCOFIPS", COUNTY_DIGITS, path) + _code(frame, "TRACT", 6, path)
    counties = _code(frame, "STCOFIPS", COUNTY_DIGITS, path) if "STCOFIPS" in frame.columns else tracts.str[:COUNTY_DIGITS]
    _agree(path, tracts.str[:COUNTY_DIGITS] != counties, tracts, "TRACTFIPS", "does not start with its STCOFIPS", counties)
    if state is not None:
        _agree(path, tracts.str[:STATE_DIGITS] != state, tracts, "TRACTFIPS", "does not start with its STATEFIPS", state)
    return tracts, counties


def _code(frame: pd.DataFrame, column: str, digits: int, path: Path) -> pd.Series:
    values = frame[column].fillna("").str.strip()
    _refuse(path, column, values.str.match(SCIENTIFIC), values,
            "is in scientific notation: Excel turned the code into a number and lost digits. Export the table "
            "again with the FIPS columns as text (or take FEMA's original file)")
    values = values.str.replace(r"\.0+$", "", regex=True)  # Excel's "2013000100.0"
    _refuse(path, column, values == "", values, "is empty")
    _refuse(path, column, ~values.str.fullmatch(rf"\d{{1,{digits}}}"), values, f"is not a code of at most {digits} digits")
    return values.str.zfill(digits)


def _refuse(path: Path, column: str, bad: pd.Series, values: pd.Series, why: str) -> None:
    if bad.any():
        position = int(bad.to_numpy().nonzero()[0][0])
        # Line numbers as a spreadsheet shows them: the header is line 1.
        raise DataFileError(f"{path.name} line {position + 2}: {column} {values.iloc[position]!r} {why}")


def _agree(path: Path, bad: pd.Series, tracts: pd.Series, column: str, why: str, other: pd.Series) -> None:
    if bad.any():
        position = int(bad.to_numpy().nonzero()[0][0])
        raise DataFileError(f"{path.name} line {position + 2}: {column} {tracts.iloc[position]} {why} {other.iloc[position]}")

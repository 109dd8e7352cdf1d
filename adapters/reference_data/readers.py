"""Readers of the public data files into rows for our tables. Each accepts the
publisher's own column names, so a newer download loads with the same command."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
import unicodedata
from pathlib import Path

import pandas as pd

from adapters.reference_data.catalogue import EMBEDDED_CATALOGUE
from domain.address import building_key
from domain.county_choice import place_key
from domain.perils import HAZARDS

Rows = list[dict[str, object]]

# Operating status as the registries give it -> Google Places' business_status vocabulary.
STATUS_BY_SOURCE_VALUE = {
    "active": "OPERATIONAL",
    "open": "OPERATIONAL",
    "operational": "OPERATIONAL",
    "closed": "CLOSED_PERMANENTLY",
    "inactive": "CLOSED_PERMANENTLY",
    "closed_temporarily": "CLOSED_TEMPORARILY",
}


class DataFileError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class Dataset:
    name: str
    table: str
    files: tuple[str, ...]
    read: Callable[[Path], Rows]
    version: str
    as_of: str | None = None  # the date of the data itself (a release, a snapshot), not of loading it
    # A dataset whose first file is the table and the others describe it (names, say): read
    # together. Without it, each file is read into rows of its own.
    read_together: Callable[[list[Path]], Rows] | None = None

    def rows(self, paths: list[Path]) -> Rows:
        return self.read_together(paths) if self.read_together else [row for path in paths for row in self.read(path)]


def _csv(path: Path, **kwargs) -> pd.DataFrame:  # noqa: ANN003
    if not path.is_file():
        raise DataFileError(f"missing data file: {path}")
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""], **kwargs)
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


def _require(frame: pd.DataFrame, path: Path, columns: list[str]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataFileError(f"{path.name} lacks the columns {', '.join(missing)}")


def _records(frame: pd.DataFrame) -> Rows:
    """NaN/NA become None so the database gets NULL."""
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def _number(series: pd.Series) -> pd.Series:
    return pd.to_numeric(series.str.replace(",", "", regex=False), errors="coerce")


def _integer(series: pd.Series) -> pd.Series:
    return _number(series).round().astype("Int64")


def _keys(streets: pd.Series, zips: pd.Series) -> tuple[list[str | None], list[str | None]]:
    keys = [building_key(s or "", z or "") for s, z in zip(streets.tolist(), zips.tolist(), strict=True)]
    return [k.street if k else None for k in keys], [k.zip5 if k else None for k in keys]


def _status(series: pd.Series) -> pd.Series:
    normalized = series.fillna("").str.strip().str.lower().str.replace(" ", "_", regex=False)
    return normalized.map(STATUS_BY_SOURCE_VALUE).fillna("NA")


# --- NRI ---------------------------------------------------------------------------


def read_nri_counties(path: Path) -> Rows:
    """FEMA's NRI county table: STCOFIPS, RISK_SCORE, RISK_RATNG, {HAZ}_RISKS, {HAZ}_RISKR."""
    frame = _csv(path)
    _require(frame, path, ["STCOFIPS", "RISK_SCORE", "RISK_RATNG"])
    out = pd.DataFrame(
        {
            "county_fips": frame["STCOFIPS"].str.zfill(5),
            "state": frame.get("STATEABBRV"),
            "county_name": frame.get("COUNTY"),
            "risk_score": _number(frame["RISK_SCORE"]),
            "risk_rating": frame["RISK_RATNG"],
            "nri_version": frame.get("NRI_VER"),
        }
    )
    for hazard in HAZARDS:
        # v1.20 names inland flooding IFLD; older releases call it RFLD.
        prefix = next((p for p in (hazard.nri_code, hazard.code) if f"{p}_RISKS" in frame.columns), None)
        if prefix is None:
            raise DataFileError(f"{path.name} has no {hazard.nri_code}_RISKS column ({hazard.name})")
        out[f"{hazard.code.lower()}_score"] = _number(frame[f"{prefix}_RISKS"])
        out[f"{hazard.code.lower()}_rating"] = frame.get(f"{prefix}_RISKR")
    return _records(out)


# The legal type the Census puts after a county's name (FEMA's COUNTY column leaves it off, so
# "Baltimore" is both 24005 Baltimore County and 24510 Baltimore city); the longest first.
LEGAL_TYPES = ("City and Borough", "Census Area", "Planning Region", "Municipality", "Municipio", "Borough",
               "Parish", "County", "city")


def read_nri_counties_with_legal_names(paths: list[Path]) -> Rows:
    """FEMA's county table, each name completed with its legal type as the Census gives it
    ("Baltimore County", "Baltimore city", "Capitol Planning Region"): Census national places
    give the type of every county with a place in it, Connecticut's crosswalk its planning
    regions. A county neither names keeps FEMA's name (its FIPS code tells it apart)."""
    table, *name_files = paths
    rows = read_nri_counties(table)
    census_names: dict[str, str] = {}
    for path in name_files:
        census_names.update(_census_county_names(path))
    for row in rows:
        full = legal_name(str(row["county_name"] or ""), census_names.get(str(row["county_fips"]), ""))
        row["county_name"] = full or row["county_name"]
    return rows


def _census_county_names(path: Path) -> dict[str, str]:
    frame = _csv(path)
    if "planning_region_fips" in frame.columns:  # Connecticut's towns -> planning regions
        _require(frame, path, ["planning_region_fips", "planning_region_name"])
        return dict(zip(frame["planning_region_fips"].str.zfill(5), frame["planning_region_name"], strict=True))
    _require(frame, path, ["county_fips_2010", "county_fips_nri", "county_name"])
    # Only where the Census county is the NRI's (not Connecticut's legacy counties, nor Alaska's
    # split Valdez-Cordova): the name is then the same county's.
    same = frame[frame["county_fips_2010"] == frame["county_fips_nri"]]
    return dict(zip(same["county_fips_nri"].str.zfill(5), same["county_name"], strict=True))


def legal_name(fema_name: str, census_name: str) -> str | None:
    """FEMA's name with the Census' legal type after it, or None when the Census name gives none."""
    if not fema_name or not census_name:
        return None
    folded_fema, folded_census = _folded(fema_name), _folded(census_name)
    if folded_census.startswith(folded_fema + " "):
        return fema_name + census_name[len(fema_name):]
    if folded_census == folded_fema:
        return fema_name  # a name with no legal type: "District of Columbia", "Carson City"
    kind = next((t for t in LEGAL_TYPES if census_name.endswith(" " + t)), None)
    return f"{fema_name} {kind}" if kind else None


def _folded(name: str) -> str:
    """Lower case without accents: the Census writes "Dona Ana", FEMA "Doña Ana"."""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


# --- ZIP to county ---------------------------------------------------------------------


def read_zip_counties(path: Path) -> Rows:
    frame = _csv(path)
    _require(frame, path, ["zip", "county_fips", "lat", "lng"])
    out = pd.DataFrame(
        {
            "zip": frame["zip"].str.zfill(5),
            "city": frame.get("city"),
            "state": frame.get("state"),
            "county_fips": frame["county_fips"].str.zfill(5),
            "county_name": frame.get("county_name"),
            "lat": _number(frame["lat"]),
            "lng": _number(frame["lng"]),
            "county_weights": frame.get("county_weights"),
            "source": frame.get("source"),
        }
    ).drop_duplicates("zip")
    return _records(out)


def read_zip_points(path: Path) -> Rows:
    """GeoNames postal codes (`zip, county_fips, lat, lng`): each ZIP's point with the county
    GeoNames puts it in."""
    frame = _csv(path)
    _require(frame, path, ["zip", "county_fips", "lat", "lng"])
    out = pd.DataFrame(
        {
            "zip": frame["zip"].str.zfill(5),
            "source": "geonames",
            "county_fips": frame["county_fips"].str.zfill(5),
            "lat": _number(frame["lat"]),
            "lng": _number(frame["lng"]),
        }
    )
    return _records(out[out["lat"].notna() & out["lng"].notna()].drop_duplicates("zip"))


def read_hud_zip_county_shares(path: Path) -> Rows:
    """HUD-USPS ZIP–county crosswalk with ratios (`zip, county_fips, res_ratio, bus_ratio,
    tot_ratio`, optionally `county_fips_nri` for Connecticut's planning regions)."""
    frame = _csv(path)
    frame.columns = [c.lower() for c in frame.columns]
    _require(frame, path, ["zip", "county_fips", "tot_ratio"])
    county = frame["county_fips_nri"] if "county_fips_nri" in frame else frame["county_fips"]
    out = pd.DataFrame(
        {
            "zip": frame["zip"].str.zfill(5),
            "county_fips": county.str.zfill(5),
            "total_share": _number(frame["tot_ratio"]),
            "residential_share": _number(frame["res_ratio"]) if "res_ratio" in frame else None,
            "business_share": _number(frame["bus_ratio"]) if "bus_ratio" in frame else None,
            "preferred_city": frame.get("usps_zip_pref_city"),
            "preferred_state": frame.get("usps_zip_pref_state"),
        }
    )
    # Rows whose county could not be decided (a few Connecticut ZIPs, HUD's 99999) say nothing.
    out = out[out["county_fips"].notna() & (out["county_fips"] != "99999") & out["total_share"].notna()]
    return _records(out.drop_duplicates(["zip", "county_fips"]))


def _place_rows(frame: pd.DataFrame, source: str, share: pd.Series, points: pd.DataFrame | None = None) -> Rows:
    county = frame["county_fips_nri"] if "county_fips_nri" in frame else frame["county_fips"]
    out = pd.DataFrame(
        {
            "state": frame["state"],
            "place_key": frame["place_name"].fillna("").map(place_key),
            "place_name": frame["place_name"],
            "county_fips": county.str.zfill(5),
            "share": share,
            "source": source,
        }
    )
    # The place's point (in its county, as the source says) and its ZIPs, where the source has them;
    # every reader gives the columns, as one bulk insert takes its columns from the first row.
    out = out.join(points) if points is not None else out.assign(lat=None, lng=None, zips=None)
    return _records(out[out["county_fips"].notna() & (out["place_key"] != "")])


def read_geocorr_place_counties(path: Path) -> Rows:
    """Geocorr 2022 place → county with `share_of_place_pop` (the principal county table)."""
    frame = _csv(path)
    _require(frame, path, ["state", "place_name", "share_of_place_pop"])
    return _place_rows(frame, "geocorr2022", _number(frame["share_of_place_pop"]))


def read_census_place_counties(path: Path) -> Rows:
    """Census national_places.txt, split per county: towns and townships too; no population, so a
    place in n counties gives each 1/n."""
    frame = _csv(path)
    _require(frame, path, ["state", "place_name", "n_counties"])
    return _place_rows(frame, "census_places", 1.0 / _number(frame["n_counties"]))


def read_simplemaps_city_counties(path: Path) -> Rows:
    """SimpleMaps cities: one county per city (its point), one row per city × ZIP in the file."""
    frame = _csv(path).rename(columns={"city": "place_name"})
    _require(frame, path, ["state", "place_name", "county_fips"])
    city = ["state", "place_name", "county_fips"]
    zips = (
        frame.dropna(subset=["zip"]).groupby(city, sort=False)["zip"].agg(lambda z: "|".join(dict.fromkeys(z.str.zfill(5))))
        if "zip" in frame else None
    )
    frame = frame.drop_duplicates(city)
    points = pd.DataFrame(
        {
            "lat": _number(frame["lat"]) if "lat" in frame else None,
            "lng": _number(frame["lng"]) if "lng" in frame else None,
            "zips": [zips.get(tuple(key)) for key in frame[city].itertuples(index=False)] if zips is not None else None,
        },
        index=frame.index,
    )
    return _place_rows(frame, "simplemaps_cities", pd.Series(1.0, index=frame.index), points)


def read_place_counties(path: Path) -> Rows:
    by_name = {
        "place_county_geocorr2022": read_geocorr_place_counties,
        "place_county_census_national_places": read_census_place_counties,
        "city_zip_county_simplemaps": read_simplemaps_city_counties,
    }
    stem = path.name.split(".")[0]
    if stem not in by_name:
        raise DataFileError(f"{path.name} is not a place → county table this loader knows")
    return by_name[stem](path)


# --- NAICS ----------------------------------------------------------------------------------


def read_naics(path: Path) -> Rows:
    frame = _csv(path)
    _require(frame, path, ["code", "title", "level"])
    return _records(pd.DataFrame({"code": frame["code"], "title": frame["title"], "level": _integer(frame["level"])}))


# --- businesses ---------------------------------------------------------------------------

# The generic column set of `perilscope data import-businesses`, documented in the README.
GENERIC_BUSINESS_COLUMNS = ["name", "street_address", "city", "state", "zip"]
OPTIONAL_BUSINESS_COLUMNS = ["naics_code", "status", "lat", "lng", "legal_name", "source_record_id"]


def _business_rows(source: str, frame: pd.DataFrame) -> Rows:
    streets, zips = _keys(frame["street_address"].fillna(""), frame["zip"].fillna(""))
    naics = frame.get("naics_code")
    naics = naics.where(naics.fillna("").str.fullmatch(r"\d{6}"), None) if naics is not None else None
    out = pd.DataFrame(
        {
            "source": source,
            "source_record_id": frame.get("source_record_id"),
            "name": frame["name"].fillna("NA"),
            "legal_name": frame.get("legal_name"),
            "naics_code": naics,
            "street_address": frame["street_address"],
            "city": frame.get("city"),
            "state": frame.get("state"),
            "zip": frame["zip"].str[:5],
            "building_street": streets,
            "building_zip": zips,
            "operating_status": _status(frame["status"]) if "status" in frame else "NA",
            "lat": _number(frame["lat"]) if "lat" in frame else None,
            "lng": _number(frame["lng"]) if "lng" in frame else None,
        }
    )
    return _records(out)


def read_city_business_registry(path: Path) -> Rows:
    """Seattle's and DataSF's extracts: business_name, street_address, zip, naics_code, operating_status."""
    frame = _csv(path)
    _require(frame, path, ["business_name", "street_address", "zip", "operating_status"])
    frame = frame.rename(columns={"business_name": "name", "operating_status": "status"})
    source = str(frame["source"].iloc[0]) if "source" in frame and len(frame) else path.stem
    return _business_rows(source, frame)


def read_generic_businesses(path: Path) -> Rows:
    frame = _csv(path)
    frame.columns = [c.lower() for c in frame.columns]
    _require(frame, path, GENERIC_BUSINESS_COLUMNS)
    return _business_rows(f"import:{path.name}", frame)


# --- buildings ---------------------------------------------------------------------------

GENERIC_BUILDING_COLUMNS = ["address", "city", "state", "zip"]
OPTIONAL_BUILDING_COLUMNS = [
    "year_built", "property_type", "floors", "buildings", "gfa_total", "gfa_parking",
    "largest_use", "all_uses", "parcel", "neighborhood", "lat", "lng", "property_name", "source_record_id",
    "tract_geoid",
]
SEATTLE_BUILDING_COLUMNS = {
    "OSEBuildingID": "source_record_id", "PropertyName": "property_name", "Address": "address", "City": "city",
    "State": "state", "ZipCode": "zip", "TaxParcelIdentificationNumber": "parcel", "Neighborhood": "neighborhood",
    "Latitude": "lat", "Longitude": "lng", "YearBuilt": "year_built", "PrimaryPropertyType": "property_type",
    "NumberofFloors": "floors", "NumberofBuildings": "buildings", "PropertyGFATotal": "gfa_total",
    "PropertyGFAParking": "gfa_parking", "LargestPropertyUseType": "largest_use",
    "ListOfAllPropertyUseTypes": "all_uses",
}


def _building_rows(source: str, frame: pd.DataFrame) -> Rows:
    for column in OPTIONAL_BUILDING_COLUMNS:
        if column not in frame:
            frame[column] = None
    frame["zip"] = frame["zip"].fillna("").str[:5]
    streets, zips = _keys(frame["address"].fillna(""), frame["zip"])
    out = frame[["source_record_id", "property_name", "address", "city", "state", "zip", "parcel", "neighborhood",
                 "property_type", "largest_use", "all_uses"]].copy()
    out["zip"] = out["zip"].replace("", None)
    out.insert(0, "source", source)
    out["building_street"], out["building_zip"] = streets, zips
    for column in ("lat", "lng"):
        out[column] = _number(frame[column].astype("string"))
    for column in ("year_built", "floors", "buildings", "gfa_total", "gfa_parking"):
        out[column] = _integer(frame[column].astype("string"))
    out["tract_geoid"] = _tract_geoid(frame["tract_geoid"].astype("string"))
    return _records(out)


def _tract_geoid(series: pd.Series) -> pd.Series:
    """An 11-digit census tract code, its leading zero put back if a spreadsheet dropped it;
    anything else is no tract (None), not a guess."""
    digits = series.str.strip().str.replace(r"\.0+$", "", regex=True)
    return digits.where(digits.str.fullmatch(r"\d{10,11}").fillna(False).astype(bool), None).str.zfill(11)


def read_seattle_buildings(path: Path) -> Rows:
    frame = _csv(path)
    _require(frame, path, ["Address", "ZipCode", "YearBuilt"])
    return _building_rows("seattle_building_benchmarking_2016", frame.rename(columns=SEATTLE_BUILDING_COLUMNS))


def read_generic_buildings(path: Path) -> Rows:
    frame = _csv(path)
    frame.columns = [c.lower() for c in frame.columns]
    _require(frame, path, GENERIC_BUILDING_COLUMNS)
    return _building_rows(f"import:{path.name}", frame)


# --- what `perilscope data load` loads (the catalogue, catalogue.py, with each dataset's reader) ---

READER_BY_DATASET: dict[str, Callable[[Path], Rows]] = {
    "nri_counties": read_nri_counties,
    "zip_counties": read_zip_counties,
    "zip_county_shares": read_hud_zip_county_shares,
    "zip_points": read_zip_points,
    "place_counties": read_place_counties,
    "naics": read_naics,
    "businesses": read_city_business_registry,
    "buildings": read_seattle_buildings,
}
READ_TOGETHER: dict[str, Callable[[list[Path]], Rows]] = {"nri_counties": read_nri_counties_with_legal_names}
EMBEDDED_DATASETS: tuple[Dataset, ...] = tuple(
    Dataset(entry.name, entry.table, entry.files, READER_BY_DATASET[entry.name], entry.version, entry.as_of,
            READ_TOGETHER.get(entry.name))
    for entry in EMBEDDED_CATALOGUE
)

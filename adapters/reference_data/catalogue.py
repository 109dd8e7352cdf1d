"""What `perilscope data load` loads: each embedded dataset's name, table, files, version and the
date of its data. Kept apart from the pandas readers (readers.py) so the server, which needs only
the dates (memory_index.py), never imports pandas (~70 MB of its resident memory)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    name: str
    table: str
    files: tuple[str, ...]
    version: str
    as_of: str | None = None  # the date of the data itself (a release, a snapshot), not of loading it


EMBEDDED_CATALOGUE: tuple[CatalogueEntry, ...] = (
    # The scores, then the Census names that give each county its legal type (readers.py).
    CatalogueEntry(
        "nri_counties", "nri_county",
        ("nri_counties_dec2025_scores.csv", "place_county_census_national_places.csv.gz", "ct_town_planning_region_2022.csv"),
        "NRI v1.20.0 (December 2025)", "2025-12",
    ),
    CatalogueEntry("zip_counties", "zip_county", ("zip_county_primary.csv.gz",), "SimpleMaps 2024 + GeoNames", "2024"),
    CatalogueEntry(
        "zip_county_shares", "zip_county_share", ("zip_county_hud_2023q1.csv.gz",),
        "HUD-USPS ZIP–County crosswalk 2023 Q1", "2023-03",
    ),
    CatalogueEntry("zip_points", "zip_point", ("zip_geonames.csv.gz",), "GeoNames postal codes", None),
    CatalogueEntry(
        "place_counties",
        "place_county",
        (
            "place_county_geocorr2022.csv.gz",
            "place_county_census_national_places.csv.gz",
            "city_zip_county_simplemaps.csv.gz",
        ),
        "Geocorr 2022, Census national places, SimpleMaps cities", "2022",
    ),
    CatalogueEntry("naics", "naics_code", ("naics_2022.csv",), "NAICS 2022", "2022"),
    CatalogueEntry(
        "businesses",
        "business",
        ("businesses_seattle_active_2026.csv.gz", "businesses_sf_sample.csv"),
        "Seattle 2026-08-02 + DataSF sample", "2026-08-02",
    ),
    CatalogueEntry("buildings", "building", ("buildings_seattle_2016.csv",), "Seattle benchmarking 2016", "2016"),
)

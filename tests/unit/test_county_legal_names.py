"""County names as the Census gives them: FEMA's name with its legal type, so that counties of
one name in one state (Baltimore, St. Louis) read apart; read from the real shared/data files."""

from __future__ import annotations

from collections import Counter

import pytest

from adapters.reference_data.catalogue import EMBEDDED_CATALOGUE
from adapters.reference_data.readers import legal_name, read_nri_counties_with_legal_names
from tests.conftest import DATA_DIR


@pytest.mark.parametrize(
    ("fema", "census", "expected"),
    [
        ("Baltimore", "Baltimore County", "Baltimore County"),
        ("Baltimore", "Baltimore city", "Baltimore city"),
        ("Doña Ana", "Dona Ana County", "Doña Ana County"),  # FEMA's accents are kept
        ("LaSalle", "La Salle Parish", "LaSalle Parish"),  # spelt otherwise: the legal type alone
        ("Carson City", "Carson City", "Carson City"),
        ("Chugach", "", None),
        ("Eastern", "Tutuila District", None),  # no legal type we know: FEMA's name stays
    ],
)
def test_fema_names_take_the_census_legal_type(fema: str, census: str, expected: str | None) -> None:
    assert legal_name(fema, census) == expected


def test_every_county_of_the_embedded_table_reads_apart_from_the_others_of_its_state() -> None:
    files = next(entry.files for entry in EMBEDDED_CATALOGUE if entry.name == "nri_counties")
    rows = read_nri_counties_with_legal_names([DATA_DIR / name for name in files])
    names = {row["county_fips"]: row["county_name"] for row in rows}
    assert len(rows) == 3232
    assert (names["24005"], names["24510"]) == ("Baltimore County", "Baltimore city")
    assert (names["29189"], names["29510"]) == ("St. Louis County", "St. Louis city")
    assert names["09110"] == "Capitol Planning Region" and names["72127"] == "San Juan Municipio"
    assert names["02090"] == "Fairbanks North Star Borough" and names["02063"] == "Chugach"
    assert not [key for key, count in Counter((row["state"], row["county_name"]) for row in rows).items() if count > 1]

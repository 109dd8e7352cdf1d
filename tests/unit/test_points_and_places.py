"""#26 items 5-7: a point given lies in the county chosen (or none, said why); one rule for a
street in a single lookup's line and a batch row's columns; an address typed without a ZIP code is
read as the place its city and state name, its street matched against the building records."""

from __future__ import annotations

import pytest

from adapters.address_parser import UsaddressParser
from adapters.reference_data.memory_index import ReferenceData, ZipAndPlaceCountyLocator
from adapters.reference_data.place_points import CountyPoints, EmbeddedPlaceResolver
from application.errors import InvalidInput
from application.lookup import STREET_NOT_READ, STREET_NOT_READ_NO_ZIP
from application.ports.lookup import CountyPoint
from domain.address import BuildingKey, street_is_read
from domain.county_choice import place_key
from domain.occupancy import Building, GeoPoint, ParsedAddress, address_from_parts
from tests.fakes import in_memory_lookup


class StaticIndex:
    def __init__(self, data: ReferenceData) -> None:
        self._data = data

    async def data(self) -> ReferenceData:
        return self._data


class FixedGeocoder:
    name = "fixed"

    def __init__(self, point: GeoPoint) -> None:
        self._point = point

    async def geocode(self, address: ParsedAddress) -> GeoPoint | None:
        return self._point


class FixedPoints:
    def __init__(self, points: list[CountyPoint]) -> None:
        self._points = points

    async def points(self, address: ParsedAddress) -> list[CountyPoint]:
        return self._points


# --- item 5: a point outside the chosen county ------------------------------------------------

CENTROID = GeoPoint(60.1, -151.0, "zip_centroid")  # the ZIP's centroid, in the other borough


async def test_a_point_outside_the_chosen_county_is_not_given_and_the_note_says_why() -> None:
    world = in_memory_lookup(geocoder=FixedGeocoder(CENTROID), points=FixedPoints([CountyPoint(CENTROID, "02122")]))
    answer = await world.service.answer(world.service.parse("1 Main St, Anchorage, AK 99503"), "q")
    assert answer.location.county_fips == "02020" and answer.location.point is None
    assert any("No map point is given" in note and "Anchorage (02020)" in note for note in answer.location.notes)
    assert answer.location.low_confidence is False  # the county is as sure as before; only the point is missing


async def test_the_first_point_in_the_chosen_county_is_given_with_what_it_is() -> None:
    city = GeoPoint(61.2, -149.9, "place")
    world = in_memory_lookup(
        geocoder=FixedGeocoder(CENTROID),
        points=FixedPoints([CountyPoint(CENTROID, "02122"), CountyPoint(city, "02020")]),
    )
    answer = await world.service.answer(world.service.parse("1 Main St, Anchorage, AK 99503"), "q")
    assert answer.location.point == city and not any("No map point" in n for n in answer.location.notes)


class OneBuilding:
    name = "one"

    def __init__(self, building: Building) -> None:
        self._building = building

    async def building_at(self, key: BuildingKey) -> Building | None:
        return self._building


async def test_a_building_record_is_trusted_unless_its_tract_is_in_another_county() -> None:
    points = FixedPoints([])
    inside = in_memory_lookup(points=points, buildings=OneBuilding(Building("1 Main St", lat=61.0, lng=-150.0)))
    answer = await inside.service.answer(inside.service.parse("1 Main St, Anchorage, AK 99503"), "q")
    assert answer.location.point is not None and answer.location.point.match_level == "building"
    elsewhere = Building("1 Main St", lat=61.0, lng=-150.0, tract_geoid="02122000100")
    outside = in_memory_lookup(points=points, buildings=OneBuilding(elsewhere))
    answer = await outside.service.answer(outside.service.parse("1 Main St, Anchorage, AK 99503"), "q")
    assert answer.location.point is None


async def test_reference_points_carry_their_sources_county_the_zips_first() -> None:
    # 800 Cushman St, Fairbanks AK 99701: SimpleMaps' centroid of the ZIP lies in Yukon-Koyukuk.
    data = ReferenceData(
        zip_points={"99701": ((67.25435, -149.87754, "02290"), (64.8378, -147.7164, "02090"))},
        place_points={("AK", "FAIRBANKS"): (64.8353, -147.6533, "02090")},
    )
    found = await CountyPoints(StaticIndex(data)).points(UsaddressParser().parse("800 Cushman St, Fairbanks, AK 99701"))
    assert [(c.point.match_level, c.county_fips) for c in found] == [
        ("zip_centroid", "02290"), ("zip_centroid", "02090"), ("place", "02090"),
    ]


# --- item 6: one rule for a single lookup's line and a batch row's columns ----------------------

ROWS = [
    ("#1 MEDICAL PARK DRIVE", "BENTON", "AR", "72015", True),
    ("1201 3rd Ave", "Seattle", "WA", "98101", True),
    ("PO BOX 287", "BETHEL", "AK", "99559", False),
    ("CARR 2 KM 47.7", "BAYAMON", "PR", "00961", False),
    ("7TH AND TAYLOR", "VANDALIA", "IL", "62471", False),
]


@pytest.mark.parametrize(("street", "city", "state", "zip5", "read"), ROWS)
def test_a_line_and_a_rows_columns_are_read_by_one_rule(street: str, city: str, state: str, zip5: str, read: bool) -> None:
    line = UsaddressParser().parse(f"{street}, {city}, {state} {zip5}")
    row = address_from_parts(street, city, state, zip5)
    assert row is not None and (line.street_read, row.street_read) == (read, read)
    assert line.key == row.key and street_is_read(row.key.street) is read


def test_a_row_needs_a_zip_code_or_a_city() -> None:
    assert address_from_parts("1201 3rd Ave", "", "WA", "") is None
    no_zip = address_from_parts("", "Seattle", "Washington", "")
    assert no_zip is not None and (no_zip.zip5, no_zip.state, no_zip.street_read) == ("", "WA", False)
    unreadable = address_from_parts("1201 3rd Ave", "Seattle", "WA", "98l01")
    assert unreadable is not None and unreadable.zip5 == "" and "could not be read" in unreadable.notes[0]


async def test_every_answer_that_is_not_plain_says_why() -> None:
    world = in_memory_lookup(points=FixedPoints([]))
    unread = await world.service.answer(address_from_parts("PO BOX 12", "Anchorage", "AK", "99503"), "q")
    assert STREET_NOT_READ in unread.location.notes
    split = await world.service.answer(world.service.parse("1 Main St, Anchorage, AK 99501"), "q")
    assert split.location.low_confidence and any("not certain (60%)" in n for n in split.location.notes)


# --- item 7: no ZIP code ------------------------------------------------------------------------


def _places() -> ReferenceData:
    return ReferenceData(
        place_shares={
            ("WA", "SEATTLE"): (("53033", 1.0),),
            ("IL", "SPRINGFIELD"): (("17167", 1.0),),
            ("MA", "SPRINGFIELD"): (("25013", 1.0),),
            ("MO", place_key("Kansas City")): (("29095", 0.8), ("29047", 0.2)),
        },
        place_zips={("WA", "SEATTLE"): ("98101", "98104")},
        place_names={("WA", "SEATTLE"): "Seattle"},
        building_by_key={BuildingKey("1201 3RD AVE", "98101"): Building("1201 3rd Ave"),
                         BuildingKey("1201 2ND AVE", "98101"): Building("1201 2nd Ave")},
    )


async def test_a_misspelt_city_and_street_are_read_as_the_building_and_its_zip() -> None:
    resolver = EmbeddedPlaceResolver(StaticIndex(_places()))
    [reading] = await resolver.readings("1201 thrid avenu", "seatle", "wa")
    assert (reading.state, reading.city, reading.street, reading.zip5) == ("WA", "Seattle", "1201 3RD AVE", "98101")
    assert any('"seatle" as Seattle, WA' in note for note in reading.notes)
    [no_match] = await resolver.readings("9999 Nowhere Blvd", "Seattle", None)
    assert no_match.zip5 is None and no_match.counties == (("53033", 1.0),)


async def test_a_city_in_several_states_without_a_state_gives_candidates_and_a_misspelt_state_is_read() -> None:
    resolver = EmbeddedPlaceResolver(StaticIndex(_places()))
    assert sorted(r.state for r in await resolver.readings("Main St", "Springfield", None)) == ["IL", "MA"]
    [reading] = await resolver.readings("100 Main St", "Springfeild", "Masachusets")
    assert reading.state == "MA" and any("Massachusetts" in note for note in reading.notes)
    assert await resolver.readings("1 Main St", "Qwxyzville", "IL") == []


async def test_a_single_lookup_without_a_zip_code_is_sure_in_one_county_and_refuses_a_guess() -> None:
    data = _places()
    data.place_shares[("AK", "KENAI")] = (("02122", 1.0),)  # the fake locator's one place
    world = in_memory_lookup(places_named=EmbeddedPlaceResolver(StaticIndex(data)))
    service = world.service
    kenai = await service.read_one(service.parse("9999 Nowhere Blvd, Kennai, AK"))
    located = await service.locate(kenai)
    assert (located.county_fips, located.method, located.low_confidence) == ("02122", "place", False)
    assert any('"Kennai" as Kenai, AK' in note for note in located.notes)
    box = await service.answer(await service.read_one(service.parse("PO Box 12, Kenai, AK")), "q")
    assert STREET_NOT_READ_NO_ZIP in box.location.notes and STREET_NOT_READ not in box.location.notes
    with pytest.raises(InvalidInput) as refused:
        await service.read_one(service.parse("Main St, Springfield"))
    assert refused.value.code == "ambiguous_place" and "Springfield, IL; Springfield, MA" in refused.value.message
    assert refused.value.details == {"candidates": ["Main St, Springfield, IL", "Main St, Springfield, MA"]}
    with pytest.raises(InvalidInput, match="no place we know"):
        await service.read_one(service.parse("1 Main St, Qwxyzville, IL"))


async def test_a_place_in_several_counties_without_a_zip_code_is_low_confidence_with_alternatives() -> None:
    locator = ZipAndPlaceCountyLocator(StaticIndex(_places()))
    choice = await locator.locate(address_from_parts("1 Main St", "Kansas City", "MO", ""))
    assert (choice.county_fips, choice.method, choice.low_confidence) == ("29095", "place", False)
    assert [c.county_fips for c in choice.alternatives] == ["29047"] and choice.notes == ()
    data = _places()
    data.place_shares[("MO", place_key("Kansas City"))] = (("29095", 0.6), ("29047", 0.4))
    choice = await ZipAndPlaceCountyLocator(StaticIndex(data)).locate(address_from_parts("1 Main St", "Kansas City", "MO", ""))
    assert choice.low_confidence and choice.confidence == pytest.approx(0.6)

"""Two reference-data adapters of the lookup about places named by their city (#26, items 5, 7):

- `CountyPoints`: the points an address may be shown at, each with the county its own source puts
  it in: the named city's point (SimpleMaps cities), then the ZIP code's SimpleMaps centroid and
  GeoNames point. Without county polygons, only a point's source says which county it lies in.
- `EmbeddedPlaceResolver`: an address typed without a ZIP code, read as the places its city and
  state name (misspellings of either matched by edit distance with rapidfuzz), and its street
  matched by similarity against the embedded building and business records there, for the
  building's ZIP code."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from adapters.reference_data.memory_index import ReferenceData, ReferenceIndex
from application.ports.lookup import CountyPoint, PlaceReading
from domain.address import DIRECTIONS, ORDINALS, STREET_SUFFIXES, normalize_street, street_is_read
from domain.county_choice import place_key
from domain.occupancy import GeoPoint, ParsedAddress
from domain.us_states import STATE_NAMES, state_code

PLACE_POINT, ZIP_POINT = "place", "zip_centroid"
STATE_CUTOFF = 80  # "Washingtn" → Washington (ratio 95); "Texs" → Texas (89)
CITY_CUTOFF = 85  # "Seatle" → Seattle (92); "Sprngfield" → Springfield (95)
STREET_CUTOFF = 85  # "THRID AVENU" → "THIRD AVENUE" (87); "SECOND AVENUE" scores 67
# The long word of each abbreviation the building keys use, so "THRID AVENU" is compared with
# "THIRD AVENUE" rather than with "3RD AVE".
_LONG = {short: long for long, short in reversed([*STREET_SUFFIXES.items(), *DIRECTIONS.items(), *ORDINALS.items()])}


class CountyPoints:
    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index

    async def points(self, address: ParsedAddress) -> list[CountyPoint]:
        data = await self._index.data()
        # A ZIP code's area is smaller than its city's (in a large city, much smaller): its points
        # come first, the city's after, each given only where it lies in the county chosen.
        found = [CountyPoint(GeoPoint(lat, lng, ZIP_POINT), county)
                 for lat, lng, county in (data.zip_points.get(address.zip5, ()) if address.zip5 else ())]
        state = (address.state or data.zip_state.get(address.zip5) or "").upper()
        if address.city and (city := data.place_points.get((state, place_key(address.city)))):
            found.append(CountyPoint(GeoPoint(city[0], city[1], PLACE_POINT), city[2]))
        return found


@dataclass(slots=True)
class _Names:
    """The place and street names to match against, built once per loaded data."""

    states_of: dict[str, tuple[str, ...]]  # place key → the states that have a place of that name
    keys_in: dict[str, list[str]]  # state → its place keys
    all_keys: list[str]
    streets_in: dict[str, dict[str, list[tuple[str, str, str]]]]  # ZIP → house number → (street, long form, record)


def _names(data: ReferenceData) -> _Names:
    states_of: dict[str, list[str]] = defaultdict(list)
    keys_in: dict[str, list[str]] = defaultdict(list)
    for state, key in data.place_shares:
        states_of[key].append(state)
        keys_in[state].append(key)
    streets_in: dict[str, dict[str, list[tuple[str, str, str]]]] = defaultdict(lambda: defaultdict(list))
    seen = set()
    for keys, record in ((data.building_by_key, "building record"), (data.businesses_by_key, "business record")):
        for key in keys:
            if key in seen or not street_is_read(key.street):
                continue
            seen.add(key)
            number, _, name = key.street.partition(" ")
            streets_in[key.zip5][number].append((key.street, _long_form(name), record))
    return _Names({k: tuple(sorted(v)) for k, v in states_of.items()}, dict(keys_in), list(states_of), streets_in)


def _long_form(name: str) -> str:
    return " ".join(_LONG.get(word, word) for word in name.split())


class EmbeddedPlaceResolver:
    def __init__(self, index: ReferenceIndex) -> None:
        self._index = index
        self._built: tuple[ReferenceData, _Names] | None = None
        self._lock = asyncio.Lock()

    async def _data(self) -> tuple[ReferenceData, _Names]:
        data = await self._index.data()
        if self._built is None or self._built[0] is not data:
            async with self._lock:
                if self._built is None or self._built[0] is not data:
                    self._built = (data, _names(data))
        return self._built

    async def readings(self, street: str, city: str, state: str | None) -> list[PlaceReading]:
        data, names = await self._data()
        notes: list[str] = []
        code = state_code(state) if state else None
        if state and code is None:
            best = process.extractOne(state.upper(), {c: n.upper() for c, n in STATE_NAMES.items()},
                                      scorer=fuzz.ratio, score_cutoff=STATE_CUTOFF)
            if best is not None:
                code = best[2]
                notes.append(f'Read the state "{state}" as {code} ({STATE_NAMES[code]}).')
        key = place_key(city)
        if not key:
            return []
        if code is not None:
            places = [(code, key)] if (code, key) in data.place_shares else []
            if not places and (best := process.extractOne(key, names.keys_in.get(code, []), scorer=fuzz.ratio,
                                                          score_cutoff=CITY_CUTOFF)):
                places = [(code, best[0])]
        else:
            found = key if key in names.states_of else None
            if found is None and (best := process.extractOne(key, names.all_keys, scorer=fuzz.ratio,
                                                             score_cutoff=CITY_CUTOFF)):
                found = best[0]
            places = [(s, found) for s in names.states_of.get(found, ())] if found else []
        readings = []
        for place_state, place in places:
            name = data.place_names.get((place_state, place)) or place.title()
            place_notes = list(notes)
            if place != key:
                place_notes.append(f'Read the city "{city}" as {name}, {place_state}.')
            readings.append(PlaceReading(place_state, name, data.place_shares[(place_state, place)],
                                         data.place_zips.get((place_state, place), ()), notes=tuple(place_notes)))
        if len(readings) == 1:
            readings = [self._with_street(readings[0], street, names)]
        return readings

    def _with_street(self, reading: PlaceReading, street: str, names: _Names) -> PlaceReading:
        """The building or business record in the place whose street is the typed one, or near it
        (same house number, the name within STREET_CUTOFF): its street and ZIP code."""
        typed = normalize_street(street)
        number, _, name = typed.partition(" ")
        note = f"No ZIP code was given: the county comes from the city, {reading.city}, {reading.state}."
        if not street_is_read(typed):
            return _noted(reading, note)
        wanted = _long_form(name)
        scored = sorted(
            ((fuzz.ratio(wanted, long), found, zip5, record)
             for zip5 in reading.zips for found, long, record in names.streets_in.get(zip5, {}).get(number, ())),
            reverse=True,
        )
        if not scored or scored[0][0] < STREET_CUTOFF:
            return _noted(reading, note)
        score, found, zip5, record = scored[0]
        if any(other[0] >= score - 2 and (other[1], other[2]) != (found, zip5) for other in scored[1:]):
            return _noted(reading, note + f' The street is near several records ({found} and others): add the ZIP code.')
        return PlaceReading(
            reading.state, reading.city, reading.counties, reading.zips, street=found, zip5=zip5,
            notes=(*reading.notes, f'No ZIP code was given: the street matched the {record} "{found}" in ZIP code {zip5}.'),
        )


def _noted(reading: PlaceReading, note: str) -> PlaceReading:
    return PlaceReading(reading.state, reading.city, reading.counties, reading.zips, notes=(*reading.notes, note))

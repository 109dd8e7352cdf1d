"""Ports of the property lookup (DESIGN.md's table): each has an embedded adapter and, where
one exists, a third-party one, chosen by settings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from domain.address import BuildingKey
from domain.county_choice import CountyChoice
from domain.lookup_result import DatasetVersion, LookupResult
from domain.occupancy import Building, GeoPoint, Occupant, OccupantCoverage, ParsedAddress
from domain.perils import PerilScores


class AddressParser(Protocol):
    def parse(self, text: str) -> ParsedAddress:
        """Raises domain AddressError with a message that says what is missing."""
        ...


@dataclass(frozen=True, slots=True)
class CountyPerils:
    county_fips: str
    county_name: str | None
    state: str | None
    scores: PerilScores
    nri_version: str | None


class PerilScoresSource(Protocol):
    name: str

    async def for_county(self, county_fips: str) -> CountyPerils | None:
        """None for a county the loaded data does not score at all."""
        ...


@dataclass(frozen=True, slots=True)
class TractScores:
    tract_geoid: str
    county_fips: str
    scores: PerilScores
    nri_version: str | None


class TractPerilsSource(Protocol):
    name: str

    async def for_tract(self, tract_geoid: str, prefer_version: str | None) -> TractScores | None:
        """The tract's scores from the release `prefer_version` names if that one is loaded, else
        from the newest loaded; None when the tract is not loaded at all."""
        ...


class DataCatalogue(Protocol):
    async def versions(self) -> list[DatasetVersion]:
        """The reference datasets loaded now, for the receipt of every answer."""
        ...


class CountyLocator(Protocol):
    name: str

    async def locate(self, address: ParsedAddress) -> CountyChoice:
        """The county, how sure, the other candidates, and notes on what disagreed."""
        ...


class Geocoder(Protocol):
    name: str

    async def geocode(self, address: ParsedAddress) -> GeoPoint | None: ...


@dataclass(frozen=True, slots=True)
class CountyPoint:
    """A point with the county its own source puts it in (no polygons: only the source says so)."""

    point: GeoPoint
    county_fips: str


class ReferencePoints(Protocol):
    async def points(self, address: ParsedAddress) -> list[CountyPoint]:
        """The named place's point (match level "place"), then the ZIP code's points ("zip_centroid"),
        each with its source's county, best first."""
        ...


@dataclass(frozen=True, slots=True)
class PlaceReading:
    """A place an address without a ZIP code may name: its state, name, counties (share of its
    people in each), ZIP codes, and, when the street matched a building or business record there,
    that record's street and ZIP."""

    state: str
    city: str
    counties: tuple[tuple[str, float], ...]
    zips: tuple[str, ...] = ()
    street: str | None = None
    zip5: str | None = None
    notes: tuple[str, ...] = ()  # how the typed city, state or street was read


class PlaceResolver(Protocol):
    async def readings(self, street: str, city: str, state: str | None) -> list[PlaceReading]:
        """The places a city and state (either possibly misspelt, the state possibly missing)
        name, best first: none when nothing is near enough, several when the city without a
        state names places in several states."""
        ...


class PlacesProvider(Protocol):
    name: str

    async def occupants_at(self, address: ParsedAddress, point: GeoPoint | None) -> list[Occupant]: ...

    async def coverage(self, address: ParsedAddress, point: GeoPoint | None) -> OccupantCoverage:
        """Whether the source knows the businesses at this address: outside its coverage its
        empty list means 'unknown', never 'none'."""
        ...


@dataclass(frozen=True, slots=True)
class Photo:
    content: bytes
    content_type: str  # always image/*


class PhotoSource(Protocol):
    """A place photo by the provider's reference, fetched server-side so no key reaches the browser."""

    name: str

    async def photo(self, reference: str, max_width: int) -> Photo:
        """Raises NotFound when the provider has no such photo, ProviderUnavailable when it fails."""
        ...


class PropertyRecords(Protocol):
    name: str

    async def building_at(self, key: BuildingKey) -> Building | None: ...


class NaicsClassifier(Protocol):
    async def titles(self, codes: set[str]) -> dict[str, str]: ...
    def code_for_types(self, types: list[str]) -> str | None: ...


@dataclass(frozen=True, slots=True)
class StoredSearch:
    id: str
    user_id: str
    kind: str
    address: str
    occupant_count: int | None  # None: unknown (no occupant source covers the address)
    result: LookupResult | dict | None  # dict: stored before answers were typed, shown as stored
    created_at: datetime
    building_key: str | None = None  # the normalised address, for search caching


class SearchStore(Protocol):
    async def add(self, search: StoredSearch) -> None: ...
    async def add_charged(self, search: StoredSearch, month: str, limit: int | None) -> bool:
        """Count one search against the month's quota and store it, in one transaction;
        False (and nothing stored) when the limit is used up."""
        ...
    async def used(self, user_id: str, month: str) -> int: ...
    async def latest_answer(self, building_key: str, since: datetime) -> LookupResult | None:
        """The newest stored single-lookup answer for this building since then, anyone's: the
        answer is public data, and the caller gets a copy under its own search id."""
        ...
    async def recent(self, user_id: str, limit: int) -> list[StoredSearch]: ...
    async def get(self, user_id: str, search_id: str) -> StoredSearch | None:
        """None when the search does not exist or belongs to someone else."""
        ...
    async def neighbours(self, user_id: str, search: StoredSearch) -> tuple[str | None, str | None]:
        """(previous = older, next = newer) single-search ids of the same user."""
        ...


class QuotaLedger(Protocol):
    async def reserve(self, user_id: str, month: str, limit: int | None) -> bool:
        """Atomically count one search; False when the month's limit is used up."""
        ...
    async def release(self, user_id: str, month: str) -> None:
        """Give back a reserved search whose lookup failed."""
        ...

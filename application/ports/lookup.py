"""Ports of the property lookup (DESIGN.md's table): each has an embedded adapter and, where
one exists, a third-party one, chosen by settings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from domain.address import BuildingKey
from domain.county_choice import CountyChoice
from domain.lookup_result import DatasetVersion, LookupResult
from domain.occupancy import Building, GeoPoint, Occupant, ParsedAddress
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


class PlacesProvider(Protocol):
    name: str

    async def occupants_at(self, address: ParsedAddress, point: GeoPoint | None) -> list[Occupant]: ...


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
    occupant_count: int
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

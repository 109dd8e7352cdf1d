"""Occupants from Google Places API Nearby Search (the legacy JSON web service).

https://developers.google.com/maps/documentation/places/web-service/search-nearby: `status`,
`results[]` (name, vicinity, types, business_status, geometry.location, photos[].photo_reference)
and, when more results exist, `next_page_token` (20 results a page, at most 3 pages). A page token
becomes valid a short time after it is issued; until then Google answers INVALID_REQUEST.

The key travels in the query string, so no exception text or URL is ever logged or shown."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from adapters.naics_mapping import naics_for_types
from adapters.providers.common import as_float, nearby_coverage, unavailable
from domain.occupancy import UNKNOWN, GeoPoint, Occupant, OccupantCoverage, ParsedAddress

log = logging.getLogger("perilscope.providers.google_places")

NEARBY_SEARCH_URL = "https://maps.googleapis.com/maps/api/place/nearbysearch/json"
RADIUS_METERS = 50
MAX_PAGES = 3
PAGE_TOKEN_DELAY_SECONDS = 2.0
PAGE_TOKEN_RETRIES = 3
# Places that are areas or streets, not businesses (Nearby Search lists the city and the street too).
GEOGRAPHIC_TYPES = frozenset(
    {
        "political", "locality", "sublocality", "neighborhood", "route", "street_address", "intersection",
        "postal_code", "country", "colloquial_area", "natural_feature",
        "administrative_area_level_1", "administrative_area_level_2", "administrative_area_level_3",
    }
)


class GooglePlacesProvider:
    name = "Google Places"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: str,
        url: str = NEARBY_SEARCH_URL,
        radius_meters: int = RADIUS_METERS,
        max_pages: int = MAX_PAGES,
        page_token_delay_seconds: float = PAGE_TOKEN_DELAY_SECONDS,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if not api_key:
            raise ValueError("Google Places needs an API key (GOOGLE_MAPS_API_KEY)")
        self._client = client
        self._key = api_key
        self._url = url
        self._radius = radius_meters
        self._max_pages = max_pages
        self._delay = page_token_delay_seconds
        self._sleep = sleep

    async def coverage(self, address: ParsedAddress, point: GeoPoint | None) -> OccupantCoverage:
        return nearby_coverage(self.name, self._radius, point, photos=True)

    async def occupants_at(self, address: ParsedAddress, point: GeoPoint | None) -> list[Occupant]:
        if point is None or not point.at_address:  # a ZIP's or a place's centre is no building's
            return []
        params: dict[str, str] = {
            "location": f"{point.lat},{point.lng}",
            "radius": str(self._radius),
            "key": self._key,
        }
        body = await self._page(params, page_token=False)
        results = list(body.get("results") or [])
        pages = 1
        while body.get("next_page_token") and pages < self._max_pages:
            body = await self._page({"pagetoken": str(body["next_page_token"]), "key": self._key}, page_token=True)
            results.extend(body.get("results") or [])
            pages += 1
        return _occupants(results)

    async def _page(self, params: dict[str, str], page_token: bool) -> dict[str, Any]:
        attempts = PAGE_TOKEN_RETRIES if page_token else 1
        for attempt in range(1, attempts + 1):
            if page_token:
                await self._sleep(self._delay)  # a fresh token is not valid yet
            body = await self._get(params)
            status = body.get("status")
            if status in ("OK", "ZERO_RESULTS"):
                return body
            if status == "INVALID_REQUEST" and page_token and attempt < attempts:
                continue
            log.warning(
                "google places refused the request",
                extra={"status": status, "error_message": body.get("error_message"), "page_token": page_token},
            )
            raise unavailable(self.name, f"answered {status or 'an unknown status'}")
        raise AssertionError("unreachable")  # pragma: no cover

    async def _get(self, params: dict[str, str]) -> dict[str, Any]:
        try:
            response = await self._client.get(self._url, params=params)
            response.raise_for_status()
            body = response.json()
        except httpx.TimeoutException:
            log.warning("google places timed out")
            raise unavailable(self.name, "did not answer in time") from None
        except httpx.HTTPStatusError as error:
            log.warning("google places failed", extra={"status": error.response.status_code})
            raise unavailable(self.name, f"failed (HTTP {error.response.status_code})") from None
        except (httpx.HTTPError, ValueError) as error:
            log.warning("google places failed", extra={"error": type(error).__name__})
            raise unavailable(self.name, "could not be reached") from None
        if not isinstance(body, dict):
            raise unavailable(self.name, "sent an unreadable answer")
        return body


def _occupants(results: list[Any]) -> list[Occupant]:
    occupants, seen = [], set()
    for result in results:
        if not isinstance(result, dict):
            continue
        types = [t for t in result.get("types") or [] if isinstance(t, str)]
        if "establishment" not in types and GEOGRAPHIC_TYPES.intersection(types):
            continue
        place_id = result.get("place_id")
        if place_id:
            if place_id in seen:
                continue
            seen.add(place_id)
        occupants.append(_occupant(result, types))
    return occupants


def _occupant(result: dict[str, Any], types: list[str]) -> Occupant:
    location = (result.get("geometry") or {}).get("location") or {}
    photos = result.get("photos") or []
    photo_reference = photos[0].get("photo_reference") if photos and isinstance(photos[0], dict) else None
    return Occupant(
        name=result.get("name") or UNKNOWN,
        vicinity=result.get("vicinity") or result.get("formatted_address") or UNKNOWN,
        types=types,
        business_status=result.get("business_status") or UNKNOWN,
        lat=as_float(location.get("lat")),
        lng=as_float(location.get("lng")),
        naics_code=naics_for_types(types),
        photo_reference=photo_reference or None,
    )

"""Occupants from the Yelp Fusion Business Search API.

https://docs.developer.yelp.com/reference/v3_business_search: `businesses[]` with name,
location.display_address, categories[].alias, is_closed (closed for good), coordinates and
distance (metres from the search point); errors as {"error": {"code", "description"}}.
Yelp treats the radius as a suggestion, so businesses farther than `max_distance_meters`
are dropped: they are not in the building."""

from __future__ import annotations

import logging
from typing import Any

import httpx

from adapters.naics_mapping import naics_for_types
from adapters.providers.common import as_float, nearby_coverage, unavailable
from domain.occupancy import UNKNOWN, GeoPoint, Occupant, OccupantCoverage, ParsedAddress

log = logging.getLogger("perilscope.providers.yelp")

BUSINESS_SEARCH_URL = "https://api.yelp.com/v3/businesses/search"
RADIUS_METERS = 50
LIMIT = 50  # Yelp's largest page
MAX_DISTANCE_METERS = 100.0


class YelpFusionProvider:
    name = "Yelp Fusion"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: str,
        url: str = BUSINESS_SEARCH_URL,
        radius_meters: int = RADIUS_METERS,
        max_distance_meters: float = MAX_DISTANCE_METERS,
    ) -> None:
        if not api_key:
            raise ValueError("Yelp Fusion needs an API key (YELP_API_KEY)")
        self._client = client
        self._key = api_key
        self._url = url
        self._radius = radius_meters
        self._max_distance = max_distance_meters

    async def coverage(self, address: ParsedAddress, point: GeoPoint | None) -> OccupantCoverage:
        return nearby_coverage(self.name, self._radius, point, photos=False)

    async def occupants_at(self, address: ParsedAddress, point: GeoPoint | None) -> list[Occupant]:
        if point is None or not point.at_address:  # a ZIP's or a place's centre is no building's
            return []
        params = {
            "latitude": str(point.lat),
            "longitude": str(point.lng),
            "radius": str(self._radius),
            "limit": str(LIMIT),
            "sort_by": "distance",
        }
        headers = {"Authorization": f"Bearer {self._key}", "Accept": "application/json"}
        try:
            response = await self._client.get(self._url, params=params, headers=headers)
        except httpx.TimeoutException:
            log.warning("yelp fusion timed out")
            raise unavailable(self.name, "did not answer in time") from None
        except httpx.HTTPError as error:
            log.warning("yelp fusion failed", extra={"error": type(error).__name__})
            raise unavailable(self.name, "could not be reached") from None
        body = _json(response)
        if response.status_code != 200:
            code = _error_code(body) or f"HTTP {response.status_code}"
            log.warning("yelp fusion refused the request", extra={"status": response.status_code, "code": code})
            raise unavailable(self.name, f"answered {code}")
        if not isinstance(body, dict) or not isinstance(body.get("businesses"), list):
            raise unavailable(self.name, "sent an unreadable answer")
        return [
            _occupant(business)
            for business in body["businesses"]
            if isinstance(business, dict) and self._near(business)
        ]

    def _near(self, business: dict[str, Any]) -> bool:
        distance = business.get("distance")
        return not isinstance(distance, (int, float)) or distance <= self._max_distance


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _error_code(body: Any) -> str | None:
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else None


def _occupant(business: dict[str, Any]) -> Occupant:
    location = business.get("location") or {}
    display = [line for line in location.get("display_address") or [] if isinstance(line, str) and line]
    aliases = [c["alias"] for c in business.get("categories") or [] if isinstance(c, dict) and c.get("alias")]
    coordinates = business.get("coordinates") or {}
    closed = business.get("is_closed")
    return Occupant(
        name=business.get("name") or UNKNOWN,
        vicinity=", ".join(display) or UNKNOWN,
        types=aliases,
        business_status=UNKNOWN if closed is None else ("CLOSED_PERMANENTLY" if closed else "OPERATIONAL"),
        lat=as_float(coordinates.get("latitude")),
        lng=as_float(coordinates.get("longitude")),
        naics_code=naics_for_types(aliases),
        photo_reference=None,  # image_url is Yelp's public URL, not a Places photo reference
    )

"""The US Census Geocoding Services one-line address endpoint (no key needed), asked for
geographies: besides the point, the county and census tract the point lies in.

https://geocoding.geo.census.gov/geocoder/Geocoding_Services_API.html: `result.addressMatches[]`,
each with `coordinates.x` (longitude) and `coordinates.y` (latitude) and `geographies`, a map of
layer name to features (`Counties[0].GEOID` is the 5-digit county, `Census Tracts[0].GEOID` the
11-digit tract; the current vintage has Connecticut's planning regions). When the Census finds
no match, times out or fails, the fallback geocoder (the embedded ZIP centroids) answers
instead, so a lookup still gets a point."""

from __future__ import annotations

import logging

import httpx

from application.ports.lookup import Geocoder
from domain.occupancy import GeoPoint, ParsedAddress

log = logging.getLogger("perilscope.providers.census")

CENSUS_ONELINE_URL = "https://geocoding.geo.census.gov/geocoder/geographies/onelineaddress"
BENCHMARK = "Public_AR_Current"
VINTAGE = "Current_Current"
TIMEOUT_SECONDS = 5.0


class CensusGeocoder:
    name = "US Census geocoder"

    def __init__(
        self,
        client: httpx.AsyncClient,
        fallback: Geocoder,
        url: str = CENSUS_ONELINE_URL,
        timeout_seconds: float = TIMEOUT_SECONDS,
    ) -> None:
        self._client = client
        self._fallback = fallback
        self._url = url
        self._timeout = timeout_seconds

    async def geocode(self, address: ParsedAddress) -> GeoPoint | None:
        point = await self._census(address)
        return point if point is not None else await self._fallback.geocode(address)

    async def _census(self, address: ParsedAddress) -> GeoPoint | None:
        params = {"address": address.one_line, "benchmark": BENCHMARK, "vintage": VINTAGE, "format": "json"}
        try:
            response = await self._client.get(self._url, params=params, timeout=self._timeout)
            response.raise_for_status()
            body = response.json()
        except httpx.TimeoutException:
            log.warning("census geocoder timed out; using the fallback", extra={"timeout_s": self._timeout})
            return None
        except httpx.HTTPStatusError as error:
            log.warning("census geocoder failed; using the fallback", extra={"status": error.response.status_code})
            return None
        except (httpx.HTTPError, ValueError) as error:  # connection errors, a body that is not JSON
            log.warning("census geocoder failed; using the fallback", extra={"error": type(error).__name__})
            return None
        point = _first_match(body)
        if point is None:
            log.info("census geocoder found no match; using the fallback", extra={"zip": address.zip5})
        return point


def _first_match(body: object) -> GeoPoint | None:
    try:
        match = body["result"]["addressMatches"][0]  # type: ignore[index]
        coordinates = match["coordinates"]
        lng, lat = float(coordinates["x"]), float(coordinates["y"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    if not (-90.0 <= lat <= 90.0 and -180.0 <= lng <= 180.0):
        return None
    geographies = match.get("geographies") if isinstance(match, dict) else None
    return GeoPoint(
        lat=lat,
        lng=lng,
        match_level="census_exact",
        county_fips=_geoid(geographies, "Counties", 5),
        tract_geoid=_geoid(geographies, "Census Tracts", 11),
    )


def _geoid(geographies: object, layer: str, length: int) -> str | None:
    """The first feature's GEOID in that layer, when it is the expected run of digits."""
    try:
        geoid = str(geographies[layer][0]["GEOID"])  # type: ignore[index]
    except (KeyError, IndexError, TypeError):
        return None
    return geoid if len(geoid) == length and geoid.isdigit() else None

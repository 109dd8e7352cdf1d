"""Helpers shared by the third-party providers."""

from __future__ import annotations

import httpx

from application.errors import ProviderUnavailable
from domain.occupancy import GeoPoint, OccupantCoverage


def unavailable(provider: str, reason: str) -> ProviderUnavailable:
    """The message is shown to the caller: it names the provider and what went wrong, never a key or URL."""
    return ProviderUnavailable(f"Occupant search is unavailable: {provider} {reason}. Please try again later.")


def as_float(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def new_http_client(timeout_seconds: float = 10.0) -> httpx.AsyncClient:
    """The one outgoing HTTP client of the app (the container keeps a single instance):
    connection pooling across providers, and no request hangs longer than the timeout."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout_seconds, connect=5.0),
        limits=httpx.Limits(max_connections=50, max_keepalive_connections=10),
        headers={"User-Agent": "PerilScope/1.0"},
    )


def nearby_coverage(provider: str, radius_meters: int, point: GeoPoint | None, photos: bool) -> OccupantCoverage:
    """A search around a point covers an address only where the point is the building's own: a
    ZIP code's or a place's centre says nothing of who occupies the address."""
    return OccupantCoverage(
        covered=point is not None and point.at_address,
        source=provider,
        covers=f"Occupant data: {provider}, businesses within {radius_meters} m of the address's geocoded point",
        photos=photos,
    )

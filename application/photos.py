"""Place photos through the server (DESIGN.md, "No secret in the browser"): the browser sends a
photo reference, the server fetches the image with its own key and sends back only the image."""

from __future__ import annotations

import re

from application.errors import InvalidInput, NotFound
from application.ports.accounts import AccessClaims
from application.ports.lookup import Photo, PhotoSource

PHOTO_REFERENCE = re.compile(r"^[A-Za-z0-9_-]{10,1000}$")
DEFAULT_WIDTH = 400  # SPEC §7: the place photo URL asks for width 400
MAX_WIDTH = 1600  # the largest width the Places photo service serves
NO_PHOTO_PROVIDER = "Photos are not available: no photo provider is configured."


class PlacePhotos:
    def __init__(self, source: PhotoSource | None) -> None:
        self._source = source  # None when no photo provider (Google key) is configured

    async def photo(self, caller: AccessClaims, reference: str, max_width: int = DEFAULT_WIDTH) -> Photo:
        """`caller` proves the request is signed in: the provider bills every photo."""
        if not PHOTO_REFERENCE.fullmatch(reference or ""):
            raise InvalidInput("Invalid photo reference.")
        if not 1 <= max_width <= MAX_WIDTH:
            raise InvalidInput(f"maxwidth must be between 1 and {MAX_WIDTH}.")
        if self._source is None:
            raise NotFound(NO_PHOTO_PROVIDER)
        return await self._source.photo(reference, max_width)

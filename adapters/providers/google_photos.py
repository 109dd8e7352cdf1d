"""Place photos from the Places API photo service, fetched server-side with the server's key.

https://developers.google.com/maps/documentation/places/web-service/photos: the service answers
with a redirect to the image. Only an image comes back to the caller: at most `max_bytes`, of an
image/* type other than SVG (which could carry script), and no upstream header, URL or error
text, since the key travels in the query string."""

from __future__ import annotations

import logging

import httpx

from application.errors import NotFound, ProviderUnavailable
from application.ports.lookup import Photo

log = logging.getLogger("perilscope.providers.google_photos")

PLACE_PHOTO_URL = "https://maps.googleapis.com/maps/api/place/photo"
MAX_PHOTO_BYTES = 5 * 1024 * 1024
PHOTO_NOT_FOUND = "Photo not found."


def _unavailable(reason: str) -> ProviderUnavailable:
    return ProviderUnavailable(f"Photo is unavailable: {reason}.")


class GooglePlacePhotos:
    name = "Google Places photos"

    def __init__(
        self,
        client: httpx.AsyncClient,
        api_key: str,
        url: str = PLACE_PHOTO_URL,
        max_bytes: int = MAX_PHOTO_BYTES,
    ) -> None:
        if not api_key:
            raise ValueError("Google place photos need an API key (GOOGLE_MAPS_API_KEY)")
        self._client = client
        self._key = api_key
        self._url = url
        self._max_bytes = max_bytes

    async def photo(self, reference: str, max_width: int) -> Photo:
        params = {"maxwidth": str(max_width), "photo_reference": reference, "key": self._key}
        try:
            async with self._client.stream("GET", self._url, params=params, follow_redirects=True) as response:
                self._check(response)
                content = bytearray()
                async for chunk in response.aiter_bytes():
                    content.extend(chunk)
                    if len(content) > self._max_bytes:
                        log.warning("place photo too large", extra={"max_bytes": self._max_bytes})
                        raise _unavailable("the photo is larger than the server accepts")
                return Photo(bytes(content), _media_type(response))
        except httpx.TimeoutException:
            log.warning("place photo timed out")
            raise _unavailable("the photo service did not answer in time") from None
        except httpx.HTTPError as error:  # connection errors, too many redirects; the message holds the URL
            log.warning("place photo failed", extra={"error": type(error).__name__})
            raise _unavailable("the photo service could not be reached") from None

    def _check(self, response: httpx.Response) -> None:
        if response.status_code in (400, 404):
            raise NotFound(PHOTO_NOT_FOUND)
        if response.status_code != 200:
            log.warning("place photo refused", extra={"status": response.status_code})
            raise _unavailable(f"the photo service answered HTTP {response.status_code}")
        media_type = _media_type(response)
        if not media_type.startswith("image/") or media_type == "image/svg+xml":
            log.warning("place photo is not an image", extra={"content_type": media_type})
            raise _unavailable("the photo service did not send an image")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._max_bytes:
            log.warning("place photo too large", extra={"content_length": int(declared)})
            raise _unavailable("the photo is larger than the server accepts")


def _media_type(response: httpx.Response) -> str:
    return response.headers.get("content-type", "").split(";", 1)[0].strip().lower()

"""Place photos through the server: the maps key stays on the server (DESIGN.md, "No secret in the browser")."""

from __future__ import annotations

from typing import Annotated

from litestar import Response, get
from litestar.params import QueryParameter

from application.photos import DEFAULT_WIDTH
from entrypoints.http.dependencies import Claims, Photos
from entrypoints.http.openapi import signed_in

PHOTO_CACHE_CONTROL = "private, max-age=86400"


@get(
    "/api/place-photo",
    tags=["search"],
    summary="A place photo by its photo_reference (signed-in callers; the image only, never the key)",
    **signed_in(400, 404, 503),
)
async def place_photo(
    place_photos: Photos,
    claims: Claims,
    ref: Annotated[str, QueryParameter(max_length=2000)] = "",
    maxwidth: Annotated[int, QueryParameter()] = DEFAULT_WIDTH,
) -> Response[bytes]:
    photo = await place_photos.photo(claims, ref, maxwidth)
    return Response(
        photo.content,
        media_type=photo.content_type,
        headers={"Cache-Control": PHOTO_CACHE_CONTROL, "X-Content-Type-Options": "nosniff"},
    )


ROUTES = [place_photo]

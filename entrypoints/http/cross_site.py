"""Refusals that stop cross-site request forgery before a handler runs.

A page on another site can make the browser POST a form (`text/plain`, urlencoded or
multipart) with the user's cookies, but it cannot send `Content-Type: application/json`
without the browser asking us first (CORS preflight, which we never grant). So:

- a state-changing request with a body must be JSON, except on routes that declare another
  body with `opt={"body": "multipart"}` (the CSV upload, which also needs a bearer token);
- routes that act on the refresh cookie (`opt={"cookie_session": True}`: sign-in, refresh,
  sign-out) must come from our own pages: `Sec-Fetch-Site` same-origin (or none, typed in the
  address bar), or else an `Origin` equal to the configured base URL. Clients that send neither
  (curl, servers) are no browser and carry no victim's cookies."""

from __future__ import annotations

from urllib.parse import urlsplit

from litestar import Request
from litestar.exceptions import HTTPException

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SAME_SITE_FETCHES = frozenset({"same-origin", "none"})
JSON_REQUIRED = "Send the request body as JSON (Content-Type: application/json)."
CROSS_SITE_REFUSED = "This request came from another site and was refused. Open PerilScope itself and try again."


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


async def refuse_cross_site_requests(request: Request) -> None:
    if request.method not in UNSAFE_METHODS:
        return
    opt = request.route_handler.opt
    if opt.get("cookie_session") and not _from_our_pages(request):
        raise HTTPException(status_code=403, detail=CROSS_SITE_REFUSED)
    if _has_body(request) and opt.get("body") != "multipart" and not _is_json(request):
        raise HTTPException(status_code=415, detail=JSON_REQUIRED)


def _from_our_pages(request: Request) -> bool:
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site.lower() in SAME_SITE_FETCHES
    origin = request.headers.get("origin")
    if origin is None:
        return True
    allowed = {origin_of(request.app.state.container.settings().base_url), origin_of(str(request.base_url))}
    return origin.lower() in allowed


def _has_body(request: Request) -> bool:
    length = request.headers.get("content-length")
    return "transfer-encoding" in request.headers or (length is not None and length.strip() not in ("", "0"))


def _is_json(request: Request) -> bool:
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return media_type == "application/json" or (media_type.startswith("application/") and media_type.endswith("+json"))

"""Security headers on every response: what the browser may load and run, no framing, no
sniffing, no caching of API answers, and HSTS when the site is served over https."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.datastructures import MutableScopeHeaders
from litestar.types import Message, Scope

# The built web app is files from this origin only: no inline script, no eval. Inline styles
# are not needed either: React sets style properties through the CSSOM, which CSP leaves alone.
# Images may be https (a profile photo URL is any https address) or data: (inline SVG icons).
APP_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# Swagger UI (entrypoints/http/swagger.py) runs no inline script but styles its widgets with
# inline style elements and draws icons as data: SVG.
SCHEMA_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), "
    "payment=(), usb=()"
)
HSTS = "max-age=63072000; includeSubDomains"
SCHEMA_PREFIXES = ("/schema", "/schema-assets")


def security_headers_hook(https: bool) -> Callable[[Message, Scope], Awaitable[None]]:
    """A `before_send` hook: it sees every response, routing 404s and 405s included, which
    middleware does not. `https`: the public base URL is https, so browsers must never use http."""

    async def add_security_headers(message: Message, scope: Scope) -> None:
        if message["type"] != "http.response.start":
            return
        path: str = scope.get("path", "")
        headers = MutableScopeHeaders.from_message(message)
        headers["Content-Security-Policy"] = SCHEMA_POLICY if path.startswith(SCHEMA_PREFIXES) else APP_POLICY
        headers["X-Content-Type-Options"] = "nosniff"
        headers["X-Frame-Options"] = "DENY"
        headers["Referrer-Policy"] = "strict-origin-when-cross-origin"
        headers["Permissions-Policy"] = PERMISSIONS_POLICY
        headers["Cross-Origin-Opener-Policy"] = "same-origin"
        # API answers carry the caller's data: neither the browser nor a proxy may keep them.
        # A route that chose its own caching (a place photo) keeps it.
        no_store = path.startswith("/api/") or scope.get("method") not in ("GET", "HEAD")
        if no_store and "cache-control" not in headers:
            headers["Cache-Control"] = "no-store"
        if https:
            headers["Strict-Transport-Security"] = HSTS

    return add_security_headers

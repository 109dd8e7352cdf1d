"""Security headers on every response: what the browser may load and run, no framing, no
sniffing, no caching of API answers, and HSTS when the site is served over https."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.datastructures import MutableScopeHeaders
from litestar.types import Message, Scope

# The built web app and Swagger UI at /schema are files from this origin only: no inline script,
# no eval, no inline style (React and Swagger UI set style properties through the CSSOM, which CSP
# leaves alone; web/e2e/csp.test.mjs checks both pages in chromium). Images may be https (a
# profile photo URL is any https address) or data: (inline SVG icons).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
PERMISSIONS_POLICY = (
    "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), "
    "payment=(), usb=()"
)
HSTS = "max-age=63072000; includeSubDomains"


def security_headers_hook(https: bool) -> Callable[[Message, Scope], Awaitable[None]]:
    """A `before_send` hook: it sees every response, routing 404s and 405s included, which
    middleware does not. `https`: the public base URL is https, so browsers must never use http."""

    async def add_security_headers(message: Message, scope: Scope) -> None:
        if message["type"] != "http.response.start":
            return
        path: str = scope.get("path", "")
        headers = MutableScopeHeaders.from_message(message)
        headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
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

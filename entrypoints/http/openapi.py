"""What /schema/openapi.json says beyond the handlers' own types: the error body every failure
leaves with, the statuses each route can answer, and the bearer token that signs a caller in."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any, Literal

import msgspec
from litestar.datastructures import ResponseHeader
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import OpenAPIRenderPlugin
from litestar.openapi.spec import Components, Example, SecurityRequirement, SecurityScheme

from application.api_keys import INVALID_KEY, INVALID_TOKEN, NO_CREDENTIALS

BEARER_SCHEME = "BearerToken"
BEARER: list[SecurityRequirement] = [{BEARER_SCHEME: []}]
# The public API (/api/v1): an API key, or a bearer token bought with one (never a web session's).
API_KEY_SCHEME = "ApiKey"
API_TOKEN_SCHEME = "ApiBearerToken"
API_CREDENTIALS: list[SecurityRequirement] = [{API_KEY_SCHEME: []}, {API_TOKEN_SCHEME: []}]


class ErrorBody(msgspec.Struct, omit_defaults=True):
    """Every 4xx and 5xx answer of the API (entrypoints/http/errors.py builds it)."""

    status: Literal["error"]
    error: str  # for people: says what went wrong and what to do
    request_id: str  # also in the X-Request-ID header and the server's logs
    code: str  # for programs: invalid_input, validation_error, not_authenticated, forbidden, not_found, ...
    details: dict[str, Any] | None = None  # facts beside the code, e.g. {"limit": 10} for quota_exceeded


WHY: dict[int, str] = {
    400: "The request is invalid (a missing or malformed field, a control character, a rule not met); `error` says which.",
    401: "Not signed in, or the token has expired: sign in again.",
    403: "Signed in, but not allowed to do this.",
    404: "Nothing with that name or id belongs to the caller.",
    409: "Conflicts with what exists already.",
    413: "The request body is larger than this route accepts.",
    415: "The body is not JSON: send `Content-Type: application/json` (entrypoints/http/cross_site.py).",
    429: "Too many requests, or the monthly search limit or the public API's daily limit is reached; `error` says "
    "when to try again (Retry-After, in seconds).",
    503: "A data provider or the database did not answer; trying again later may work.",
}

# A CSV answer's media type, for the response and its documentation alike. Without a charset:
# Litestar adds "; charset=utf-8" to every text/ type, so naming it here would send it twice.
CSV_MEDIA_TYPE = "text/csv"

# Groups of statuses that come with a kind of route; a route adds its own (404, 409, 429) to them.
SIGNED_IN = (401,)
ADMIN = (401, 403)
JSON_BODY = (400, 413, 415)
# Routes that act on the refresh cookie refuse requests from other sites (entrypoints/http/cross_site.py).
COOKIE_SESSION = (403,)


def error_responses(*statuses: int | tuple[int, ...]) -> dict[int, ResponseSpec]:
    """The documented error answers of a route, each with the body of `ErrorBody`."""
    flat = sorted({code for item in statuses for code in (item if isinstance(item, tuple) else (item,))})
    return {
        code: ResponseSpec(
            data_container=ErrorBody,
            description=WHY.get(code, HTTPStatus(code).phrase),
            generate_examples=False,
        )
        for code in flat
    }


def openapi_config(render_plugins: list[OpenAPIRenderPlugin]) -> OpenAPIConfig:
    bearer = SecurityScheme(
        type="http",
        scheme="bearer",
        description="The access_token of POST /api/auth/login (or /api/auth/refresh), as `Authorization: Bearer <token>`.",
    )
    return OpenAPIConfig(
        title="PerilScope API",
        version="1.0.0",
        path="/schema",
        render_plugins=render_plugins,
        components=Components(
            security_schemes={
                BEARER_SCHEME: bearer,
                API_KEY_SCHEME: SecurityScheme(
                    type="apiKey",
                    name="X-API-Key",
                    security_scheme_in="header",
                    description="An API key made on /settings (ps_live_...), for the public API under /api/v1.",
                ),
                API_TOKEN_SCHEME: SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="The access_token of POST /api/v1/auth/token (15 minutes), for /api/v1 only.",
                ),
            }
        ),
    )


def signed_in(*statuses: int | tuple[int, ...]) -> dict[str, Any]:
    """Decorator keywords of a route for signed-in callers: the bearer scheme, and 401 besides
    the route's own error statuses, e.g. `@get(..., **signed_in(400, 404))`."""
    return {"security": BEARER, "responses": error_responses(SIGNED_IN, *statuses)}


def admin_only(*statuses: int | tuple[int, ...]) -> dict[str, Any]:
    """The same for administrators' routes: 401 for anonymous callers, 403 for everyone else."""
    return {"security": BEARER, "responses": error_responses(ADMIN, *statuses)}


# The public API's 401s, by code: what a program reads to know which credential to fix
# (application/api_keys.py and entrypoints/http/dependencies.py raise them).
PUBLIC_API_401_CODES: dict[str, tuple[str, str]] = {  # code: (when, the message it comes with)
    "missing_credentials": ("neither an X-API-Key header nor an Authorization: Bearer token was sent", NO_CREDENTIALS),
    "invalid_api_key": ("the API key is unknown or revoked (also a token whose key was revoked since)", INVALID_KEY),
    "invalid_token": ("the bearer token is not one of POST /api/v1/auth/token's, or it has expired (after 15 minutes)",
                      INVALID_TOKEN),
}


def public_api_unauthenticated() -> ResponseSpec:
    """The public API's 401: its three codes, each with an example body."""
    codes = "; ".join(f"`{code}`: {when}" for code, (when, _) in PUBLIC_API_401_CODES.items())
    return ResponseSpec(
        data_container=ErrorBody,
        description=f"No valid credential, and `code` says which: {codes}. No X-RateLimit-* headers (no caller is known).",
        generate_examples=False,
        examples=[
            Example(
                summary=code,
                value={"status": "error", "error": message, "request_id": "8d0c4f6e2b9a4c1f9e7d3a5b1c2d4e6f", "code": code},
            )
            for code, (_, message) in PUBLIC_API_401_CODES.items()
        ],
    )


RATE_LIMIT_HEADERS = (
    ("X-RateLimit-Limit", "Requests a day the caller's plan allows."),
    ("X-RateLimit-Remaining", "Requests left today (UTC)."),
    ("X-RateLimit-Reset", "When the count starts again: the next UTC midnight, in seconds since the epoch."),
)


def public_api(*statuses: int | tuple[int, ...]) -> dict[str, Any]:
    """Decorator keywords of a public API route: an API key or an API token, 401 (its codes) and 403
    (a scope the credential lacks) besides the route's own statuses, and the X-RateLimit-* headers,
    which every answer to a known caller has, errors included (entrypoints/http/rate_limit_headers.py)."""
    headers = [
        ResponseHeader(name=name, description=f"{text} On every answer but a 401.", documentation_only=True)
        for name, text in RATE_LIMIT_HEADERS
    ]
    responses = error_responses(ADMIN, *statuses)
    for spec in responses.values():  # a Litestar ResponseSpec documents no headers: its text says so
        spec.description += " With the X-RateLimit-* headers."
    return {
        "security": API_CREDENTIALS,
        "responses": {**responses, 401: public_api_unauthenticated()},
        "response_headers": headers,
    }

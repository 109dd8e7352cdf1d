"""The X-RateLimit-* headers on every public API answer to a known caller, errors included (a 400,
404, 409 or 413 says where the caller stands as a 200 does). A handler's own headers are kept;
an error answer, which no handler made, gets them here. A 401 has no caller and so no headers."""

from __future__ import annotations

import logging

from litestar.datastructures import MutableScopeHeaders
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from application.errors import ApplicationError
from application.ports.public_api import ApiCaller
from entrypoints.http.v1_schema import rate_limit_headers

log = logging.getLogger("perilscope.http")
PUBLIC_API_PREFIX = "/api/v1/"
CALLER_STATE = "api_caller"  # where provide_api_caller leaves the caller it found, in the scope's state


def remember_caller(scope: Scope, caller: ApiCaller) -> None:
    scope.setdefault("state", {})[CALLER_STATE] = caller


async def _caller_of(scope: Scope) -> ApiCaller | None:
    """The caller the route found, or, when the request was refused before (a query parameter or
    body not valid), the one its credentials name; None for missing or invalid credentials."""
    found = scope.get("state", {}).get(CALLER_STATE)
    if found is not None:
        return found
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", [])}
    keys = scope["app"].state.container.api_keys()
    key = headers.get("x-api-key", "").strip()
    scheme, _, token = headers.get("authorization", "").partition(" ")
    try:
        if key:
            return await keys.by_key(key)
        if scheme.lower() == "bearer" and token.strip():
            return await keys.by_token(token.strip())
    except ApplicationError:
        return None
    return None


def rate_limit_headers_middleware(app: ASGIApp) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith(PUBLIC_API_PREFIX):
            await app(scope, receive, send)
            return

        async def send_with_standing(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] >= 400 and message["status"] != 401:
                headers = MutableScopeHeaders.from_message(message)
                if "x-ratelimit-limit" not in headers:
                    try:
                        caller = await _caller_of(scope)
                        if caller is not None:
                            standing = await scope["app"].state.container.public_api().standing(caller)
                            for name, value in rate_limit_headers(standing).items():
                                headers[name] = value
                    except Exception:  # noqa: BLE001 - the answer leaves without them rather than not at all
                        log.exception("the rate limit headers of an error answer could not be made")
            await send(message)

        await app(scope, receive, send_with_standing)

    return middleware

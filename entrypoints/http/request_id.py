"""A request id on every request: in the response header, the logs and error bodies."""

from __future__ import annotations

import logging
import time
import uuid

from litestar import Request
from litestar.datastructures import MutableScopeHeaders
from litestar.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("perilscope.access")


def request_id_of(request: Request) -> str | None:
    return request.scope.get("state", {}).get("request_id")


def request_id_middleware(app: ASGIApp) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableScopeHeaders.from_message(message)["X-Request-ID"] = request_id
            await send(message)

        try:
            await app(scope, receive, send_with_id)
        finally:
            log.info(
                "request",
                extra={
                    "request_id": request_id,
                    "method": scope.get("method"),
                    "path": scope.get("path"),
                    "status": status,
                    "ms": round((time.perf_counter() - started) * 1000, 1),
                },
            )

    return middleware

"""`Idempotency-Key` on the public API's POSTs, at the edge: the request's fingerprint, and the
answer kept as it left (status, JSON body, rate-limit headers) so a retry gets it unchanged.
The rules are application/idempotency.py's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import msgspec
from litestar import Request, Response
from litestar.params import HeaderParameter

from application.idempotency import MAX_KEY_LENGTH, Idempotency, request_fingerprint
from application.ports.idempotency import StoredReply

T = TypeVar("T")
REPLAYED_HEADER = "Idempotent-Replayed"
KEPT_HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "location")

IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        min_length=1,
        max_length=MAX_KEY_LENGTH,
        pattern=r"^[!-~]+$",
        description="Optional: a key of yours (e.g. a UUID) for this request. Retried with the same key and body "
        "within 24 hours, it gets the first answer again and is charged once; the same key with another body: "
        "409 idempotency_key_reused; while the first is still running: 409 idempotency_key_in_progress.",
    ),
]


async def idempotent(
    idempotency: Idempotency,
    request: Request,
    user_id: str,
    key: str | None,
    answer_type: type[T],
    work: Callable[[], Awaitable[Response[T]]],
) -> Response[T]:
    """The work's answer; with a key, the first answer given for it (and the work not run again).
    A replay skips the work and its checks: the caller's right to the work is checked before this."""
    if key is None:
        return await work()
    fingerprint = request_fingerprint(request.method, request.url.path, await request.body())
    first: Response[T] | None = None

    async def answer() -> StoredReply:
        nonlocal first
        first = await work()
        status = first.status_code or request.route_handler.status_code or 200
        headers = {name: str(value) for name, value in first.headers.items() if name.lower() in KEPT_HEADERS}
        return StoredReply(status, msgspec.json.encode(first.content), headers)

    reply, replayed = await idempotency.run(user_id, key, fingerprint, answer)
    if first is not None and not replayed:
        return first
    body = msgspec.json.decode(reply.body, type=answer_type)
    return Response(body, status_code=reply.status_code, headers={**reply.headers, REPLAYED_HEADER: "true"})

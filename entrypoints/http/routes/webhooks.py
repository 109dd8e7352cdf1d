"""Signed webhooks, seen by their owner: the signing secret (reveal, rotate) on /settings, and the
recent deliveries with every attempt, for the web session and for public API callers."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec
from litestar import Response, get, post
from litestar.params import QueryParameter

from application.pages import MAX_OFFSET, PageRequest
from application.ports.webhook_delivery import Delivery
from application.webhooks import DELIVERIES_SHOWN
from entrypoints.http.dependencies import ApiClient, Claims, PublicApiService, WebhooksService
from entrypoints.http.known_query import only_query
from entrypoints.http.openapi import public_api, signed_in
from entrypoints.http.v1_schema import OFFSET_DESCRIPTION, rate_limit_headers

TAGS = ["webhooks"]
Limit = Annotated[int, QueryParameter(ge=1, le=DELIVERIES_SHOWN, description="How many of the newest deliveries")]


class SigningSecretBody(msgspec.Struct):
    status: Literal["success"]
    # whsec_ and 32 url-safe characters: the HMAC-SHA256 key of X-PerilScope-Signature.
    secret: str


class WebhookAttemptBody(msgspec.Struct):
    attempted_at: datetime
    duration_ms: int
    status_code: int | None  # null: no HTTP answer (timeout, connection error, refused address)
    succeeded: bool
    error: str | None  # why the attempt failed; null on success


class WebhookDeliveryBody(msgspec.Struct):
    id: str  # also the event's id and the X-PerilScope-Delivery header
    job_id: str
    event: Literal["batch.completed", "batch.failed"]
    url: str
    status: Literal["pending", "succeeded", "failed"]
    created_at: datetime
    next_attempt_at: datetime | None  # null once succeeded or failed
    attempt_count: int
    attempts: list[WebhookAttemptBody]  # newest first, at most 20


class WebhookDeliveriesBody(msgspec.Struct):
    status: Literal["success"]
    deliveries: list[WebhookDeliveryBody]  # newest first


class WebhookDeliveriesPage(msgspec.Struct):
    """The public API's listing: a page of the deliveries, newest first."""

    status: Literal["success"]
    deliveries: list[WebhookDeliveryBody]  # newest first
    offset: int
    next_offset: int | None  # send it as `offset` for the next page; null: this is the last page


def deliveries_body(deliveries: list[Delivery]) -> WebhookDeliveriesBody:
    return WebhookDeliveriesBody(
        status="success",
        deliveries=[
            WebhookDeliveryBody(
                id=d.id,
                job_id=d.job_id,
                event=d.event,  # type: ignore[arg-type]
                url=d.url,
                status=d.status.value,  # type: ignore[arg-type]
                created_at=d.created_at,
                next_attempt_at=d.next_attempt_at,
                attempt_count=d.attempt_count,
                attempts=[
                    WebhookAttemptBody(a.attempted_at, a.duration_ms, a.status_code, a.succeeded, a.error)
                    for a in d.attempts
                ],
            )
            for d in deliveries
        ],
    )


@get(
    "/api/webhooks/secret",
    tags=TAGS,
    summary="Reveal the caller's webhook signing secret (made on first need)",
    **signed_in(),
)
async def reveal_signing_secret(webhooks: WebhooksService, claims: Claims) -> SigningSecretBody:
    return SigningSecretBody(status="success", secret=await webhooks.signing_secret(claims))


@post(
    "/api/webhooks/secret/rotate",
    tags=TAGS,
    status_code=200,
    summary="Replace the webhook signing secret; the old one stops signing at once",
    **signed_in(),
)
async def rotate_signing_secret(webhooks: WebhooksService, claims: Claims) -> SigningSecretBody:
    return SigningSecretBody(status="success", secret=await webhooks.rotate_secret(claims))


@get(
    "/api/webhooks/deliveries",
    tags=TAGS,
    summary="The caller's newest webhook deliveries, each with its attempts",
    **signed_in(400),
)
async def list_deliveries(webhooks: WebhooksService, claims: Claims, limit: Limit = DELIVERIES_SHOWN) -> WebhookDeliveriesBody:
    return deliveries_body(await webhooks.deliveries(claims, limit))


@get(
    "/api/v1/webhooks/deliveries",
    tags=["public API v1"],
    summary="Your webhook deliveries, newest first, a page at a time, each with its attempts (read scope; costs no request)",
    guards=[only_query("offset", "limit")],
    **public_api(400),
)
async def api_list_deliveries(
    webhooks: WebhooksService,
    public_api: PublicApiService,
    api_caller: ApiClient,
    limit: Annotated[int, QueryParameter(ge=1, le=DELIVERIES_SHOWN, description="Deliveries on the page, 1 to 50 (default 50).")] = DELIVERIES_SHOWN,
    offset: Annotated[int, QueryParameter(ge=0, le=MAX_OFFSET, description=OFFSET_DESCRIPTION)] = 0,
) -> Response[WebhookDeliveriesPage]:
    page = await webhooks.api_deliveries(api_caller, PageRequest(offset, limit))
    body = WebhookDeliveriesPage("success", deliveries_body(page.items).deliveries, page.offset, page.next_offset)
    return Response(body, headers=rate_limit_headers(await public_api.standing(api_caller)))


ROUTES = [reveal_signing_secret, rotate_signing_secret, list_deliveries, api_list_deliveries]

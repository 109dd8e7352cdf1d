"""API keys of the public API, managed by their signed-in owner on /settings."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec
from litestar import delete, get, post
from litestar.params import FromPath, JSONBody

from application.api_keys import ApiKeyService
from application.api_plans import ApiPlans, DailyStanding
from application.ports.public_api import ApiKeyRecord
from domain.api_access import KEY_NAME_MAX_LENGTH
from entrypoints.http.dependencies import ApiKeys, ApiPlansService, Claims
from entrypoints.http.openapi import JSON_BODY, signed_in

Scope = Literal["read", "batch"]


class CreateKeyBody(msgspec.Struct, forbid_unknown_fields=True):
    name: Annotated[str, msgspec.Meta(max_length=KEY_NAME_MAX_LENGTH)]
    scopes: Annotated[list[Scope], msgspec.Meta(min_length=1, max_length=2)]


class ApiKeyView(msgspec.Struct):
    id: str
    name: str
    prefix: str  # the key's first characters, to recognise it
    scopes: list[str]
    created_at: datetime
    last_used_at: datetime | None


class DailyUse(msgspec.Struct):
    """Today's public API requests against the plan (UTC day)."""

    plan: str
    limit: int
    used: int
    remaining: int
    resets_at: datetime


class ApiKeyList(msgspec.Struct):
    status: Literal["success"]
    keys: list[ApiKeyView]
    usage: DailyUse


class CreatedKeyView(msgspec.Struct):
    status: Literal["success"]
    key: str  # shown this once; only its hash is kept
    api_key: ApiKeyView


class Revoked(msgspec.Struct):
    status: Literal["success"]


def key_view(record: ApiKeyRecord) -> ApiKeyView:
    return ApiKeyView(
        id=record.id,
        name=record.name,
        prefix=record.prefix,
        scopes=sorted(record.scopes),
        created_at=record.created_at,
        last_used_at=record.last_used_at,
    )


def daily_use(standing: DailyStanding) -> DailyUse:
    return DailyUse(standing.plan.value, standing.limit, standing.used, standing.remaining, standing.resets_at)


@get("/api/api-keys", tags=["api keys"], summary="The caller's API keys and today's API use", **signed_in())
async def list_api_keys(api_keys: ApiKeys, api_plans: ApiPlansService, claims: Claims) -> ApiKeyList:
    keys = await api_keys.keys(claims)
    standing = await api_plans.standing(claims.user_id)
    return ApiKeyList(status="success", keys=[key_view(k) for k in keys], usage=daily_use(standing))


@post(
    "/api/api-keys",
    tags=["api keys"],
    summary="Create an API key; the whole key is in this answer only",
    **signed_in(JSON_BODY),
)
async def create_api_key(api_keys: ApiKeys, claims: Claims, data: JSONBody[CreateKeyBody]) -> CreatedKeyView:
    created = await api_keys.create(claims, data.name, list(data.scopes))
    return CreatedKeyView(status="success", key=created.key, api_key=key_view(created.record))


@delete(
    "/api/api-keys/{key_id:str}",
    tags=["api keys"],
    status_code=200,
    summary="Revoke one of the caller's API keys, at once",
    **signed_in(400, 404),
)
async def revoke_api_key(api_keys: ApiKeys, claims: Claims, key_id: FromPath[str]) -> Revoked:
    await api_keys.revoke(claims, key_id)
    return Revoked(status="success")


ROUTES = [list_api_keys, create_api_key, revoke_api_key]

"""A JSON body nested a thousand levels deep is a 400 with the usual error body on every JSON
route, signed in or not, never a 500 (a RecursionError while decoding), on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from httpx import AsyncClient

from entrypoints.http.json_depth import MAX_JSON_DEPTH, json_depth
from tests.api.test_public_api import create_key
from tests.conftest import sign_up_and_log_in

DEEP_ARRAY = b"[" * 1000 + b"]" * 1000
DEEP_OBJECT = b'{"a":' * 1000 + b"1" + b"}" * 1000
JSON = {"Content-Type": "application/json"}


def _deep_field(name: str, depth: int = 1000) -> bytes:
    """A body whose one field holds arrays nested `depth` deep."""
    return b'{"' + name.encode() + b'":' + b"[" * depth + b"]" * depth + b"}"


def assert_refused_as_too_deep(response) -> None:  # noqa: ANN001
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["status"] == "error" and body["code"] == "invalid_input" and body["request_id"]
    assert "nested more than 64 levels" in body["error"]


@pytest.mark.parametrize("path", ["/api/auth/login", "/api/auth/signup", "/forgot-password", "/api/auth/reset-password"])
@pytest.mark.parametrize("body", [DEEP_ARRAY, DEEP_OBJECT, _deep_field("email")], ids=["array", "object", "field"])
async def test_auth_routes_refuse_a_deep_body_without_signing_in(client: AsyncClient, path: str, body: bytes) -> None:
    assert_refused_as_too_deep(await client.post(path, content=body, headers=JSON))


async def test_the_contact_form_refuses_a_deep_body(client: AsyncClient) -> None:
    assert_refused_as_too_deep(await client.post("/api/send-email", content=DEEP_OBJECT, headers=JSON))
    assert_refused_as_too_deep(await client.post("/api/send-email", content=_deep_field("subject"), headers=JSON))


async def test_the_public_apis_token_and_batch_routes_refuse_a_deep_body(client: AsyncClient) -> None:
    assert_refused_as_too_deep(await client.post("/api/v1/auth/token", content=DEEP_ARRAY, headers=JSON))
    user = await sign_up_and_log_in(client, "deep-api@example.com")
    key = {"X-API-Key": (await create_key(client, user, ["read", "batch"]))["key"]}
    batch = await client.post(
        "/api/v1/search/batch", content=_deep_field("addresses"), headers={**JSON, **key, "Idempotency-Key": "deep-1"}
    )
    assert_refused_as_too_deep(batch)


async def test_the_export_refuses_deep_rows(client: AsyncClient) -> None:
    headers = (await sign_up_and_log_in(client, "deep-export@example.com"))["headers"]
    deep_rows = b'{"data":[{"Street Address":' + b"[" * 1000 + b"]" * 1000 + b"}]}"
    assert_refused_as_too_deep(await client.post("/api/export", content=deep_rows, headers={**JSON, **headers}))


async def test_a_body_at_the_limit_reaches_the_handler(client: AsyncClient) -> None:
    # Nested exactly 64 deep: the route's own validation answers, as for any wrong shape.
    at_limit = _deep_field("email", MAX_JSON_DEPTH - 1)
    answer = await client.post("/api/auth/login", content=at_limit, headers=JSON)
    assert answer.status_code == 400 and "nested" not in answer.json()["error"]


def test_brackets_inside_strings_do_not_count_and_depth_stops_past_the_limit() -> None:
    assert json_depth(b'{"a": "[[[[[[", "b": "\\"[[[{{{"}') == 1
    assert json_depth(b'{"rows": [{"x": [1, 2]}, {"y": {}}]}') == 4
    assert json_depth(b"1") == 0 and json_depth(b"") == 0
    assert json_depth(b"[" * 10_000, stop_after=64) == 65

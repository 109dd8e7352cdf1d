"""Every error leaves as the documented ErrorBody {status, error, request_id, code}, with the
machine code that says what kind of failure it is, whatever raised it."""

from __future__ import annotations

import msgspec
from httpx import AsyncClient, Response

from application.errors import InvalidInput, NotFound, QuotaExceeded
from entrypoints.http.openapi import ErrorBody
from entrypoints.container import Container
from tests.conftest import sign_up_admin, sign_up_and_log_in


def error_of(response: Response) -> ErrorBody:
    """The body, decoded strictly as the documented schema: a missing or extra field fails."""
    body = msgspec.json.decode(response.content, type=ErrorBody, strict=True)
    assert set(response.json()) == {"status", "error", "request_id", "code"}
    assert body.request_id and body.error
    return body


async def test_each_kind_of_failure_has_its_code(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "codes@example.com")
    other = await sign_up_and_log_in(client, "codes-other@example.com")
    admin = await sign_up_admin(client, container, "codes-admin@example.com")
    only_admin_demoted = {"uid": admin["uid"], "role": "user"}
    cases = [
        (await client.post("/api/auth/signup", json={"email": "x@example.com"}), 400, "validation_error"),
        (await client.post("/api/auth/signup", json={"email": "x@example.com", "password": "weak"}), 400, "invalid_input"),
        (await client.get("/api/auth/me"), 401, "not_authenticated"),
        (await client.get(f"/api/auth/get-user-info/{other['uid']}", headers=user["headers"]), 403, "forbidden"),
        (await client.get("/api/view-export/nothing.csv", headers=user["headers"]), 404, "not_found"),
        (await client.get("/api/no-such-route"), 404, "not_found"),
        (await client.delete("/api/auth/me", headers=user["headers"]), 405, "method_not_allowed"),
        (await client.post("/api/admin/update-user-role", json=only_admin_demoted, headers=admin["headers"]), 409, "conflict"),
        (await client.post("/api/auth/login", content=b'{"email": "a@b.co"}', headers={"Content-Type": "text/plain"}),
         415, "unsupported_media_type"),
        (await client.post("/api/auth/signup", content=b"{" + b" " * (1024 * 1024 + 1) + b"}"), 413, "payload_too_large"),
    ]
    for response, status, code in cases:
        assert response.status_code == status, (status, response.text)
        assert error_of(response).code == code, response.text


async def test_rate_limited_is_its_own_code(client: AsyncClient) -> None:
    message = {"subject": "Hello", "body": "A question"}
    for _ in range(5):
        assert (await client.post("/api/send-email", json=message)).status_code == 200
    limited = await client.post("/api/send-email", json=message)
    assert limited.status_code == 429 and error_of(limited).code == "rate_limited"


async def test_an_upload_refusal_says_invalid_upload_or_payload_too_large(client: AsyncClient) -> None:
    headers = (await sign_up_and_log_in(client, "codes-upload@example.com"))["headers"]
    wrong_kind = await client.post("/api/upload-csv", files={"file": ("a.xlsx", b"x", "text/csv")}, headers=headers)
    assert wrong_kind.status_code == 400 and error_of(wrong_kind).code == "invalid_upload"


def test_a_raise_site_may_choose_a_more_precise_code() -> None:
    assert NotFound("x").code == "not_found" and QuotaExceeded("x").code == "quota_exceeded"
    assert InvalidInput("x", code="weak_password").code == "weak_password" and InvalidInput("x").code == "invalid_input"

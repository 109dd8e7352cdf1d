"""Answers as /schema documents them, on SQLite and PostgreSQL: a status a route answers is a
status it documents, with the error body; a CSV answer says text/csv with one charset; a field
documented as a boolean takes JSON true and false only."""

from __future__ import annotations

from typing import Any

import pytest
from httpx import AsyncClient

from application.throttles import RESET_REQUESTS_PER_ADDRESS
from entrypoints.container import Container
from tests.api.test_detailed_export import _finished_export
from tests.api.test_public_api_batches import SEATTLE, HeldQueue, api_user, queue, submit  # noqa: F401 - the fixture
from tests.conftest import sign_up_and_log_in

CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
ERROR_BODY = {"$ref": "#/components/schemas/ErrorBody"}


async def _operation(client: AsyncClient, method: str, path: str) -> dict[str, Any]:
    return (await client.get("/schema/openapi.json")).json()["paths"][path][method]


async def test_forgot_password_documents_the_429_it_answers(client: AsyncClient) -> None:
    documented = (await _operation(client, "post", "/forgot-password"))["responses"]
    assert documented["429"]["content"]["application/json"]["schema"] == ERROR_BODY

    answers = [await client.post("/forgot-password", json={"email": "many@example.com"})
               for _ in range(RESET_REQUESTS_PER_ADDRESS.free + 1)]

    assert [a.status_code for a in answers] == [200] * RESET_REQUESTS_PER_ADDRESS.free + [429]
    refused = answers[-1]
    assert refused.json()["status"] == "error" and refused.json()["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) > 0


async def test_a_stored_searchs_export_is_csv_with_one_charset_as_documented(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "one-charset@example.com")
    looked_up = await client.get("/api/nearby-search", params={"address": "701 5th Ave, Seattle, WA 98104"},
                                 headers=user["headers"])
    search_id = looked_up.json()["search_id"]

    exported = await client.get(f"/api/search-results/{search_id}/export", headers=user["headers"])

    assert exported.status_code == 200 and exported.headers["content-type"] == CSV_CONTENT_TYPE
    documented = (await _operation(client, "get", "/api/search-results/{search_id}/export"))["responses"]["200"]
    assert list(documented["content"]) == ["text/csv"]


async def test_every_csv_download_has_one_charset(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "csv-downloads@example.com")
    name = await _finished_export(client, container, user["headers"])

    # The detailed CSV's media type is the writer's, which the public API's downloads use too.
    for path in (f"/api/view-export/{name}", f"/api/download/{name}", f"/api/exports/{name}/detailed?format=csv"):
        answer = await client.get(path, headers=user["headers"])
        assert answer.status_code == 200 and answer.headers["content-type"] == CSV_CONTENT_TYPE, (path, answer.text)
    for path in ("/api/view-export/{filename}", "/api/download/{filename}"):
        assert list((await _operation(client, "get", path))["responses"]["200"]["content"]) == ["text/csv"]


@pytest.mark.parametrize("path", ["/api/v1/search/batch", "/api/v1/batch-assessment"])
async def test_include_details_takes_json_booleans_only(client: AsyncClient, queue: HeldQueue, path: str) -> None:  # noqa: F811
    """0, 1 and the texts "true" and "false" are not booleans: 400, and nothing queued or charged."""
    _, key = await api_user(client, "strict-bool@example.com")
    for not_a_boolean in (0, 1, "true", "false"):
        refused = await submit(client, key, [SEATTLE], path=path, include_details=not_a_boolean)
        assert refused.status_code == 400, (not_a_boolean, refused.text)
        assert refused.json()["code"] == "validation_error" and "include_details" in refused.json()["error"]
    assert queue.held == []
    accepted = await submit(client, key, [SEATTLE], path=path, include_details=True)
    assert accepted.status_code == 202 and accepted.headers["X-RateLimit-Remaining"] == "99"

"""An Idempotency-Key belongs to the user, whichever of their keys sent it: a retry from a key or
token without the `batch` scope is refused as any request of theirs would be (403), never given
the stored answer, on SQLite and PostgreSQL."""

from __future__ import annotations

from httpx import AsyncClient

from tests.api.test_public_api import create_key
from tests.api.test_public_api_batches import SEATTLE, HeldQueue, queue, submit  # noqa: F401 - the fixture
from tests.conftest import sign_up_and_log_in


async def _keys(client: AsyncClient) -> tuple[dict, dict]:
    """One user's two keys: one that may batch, one that may only read."""
    user = await sign_up_and_log_in(client, "two-keys@example.com")
    batching = {"X-API-Key": (await create_key(client, user, ["read", "batch"], name="batch"))["key"]}
    reading = {"X-API-Key": (await create_key(client, user, ["read"], name="read"))["key"]}
    return batching, reading


def assert_lacks_the_batch_scope(response) -> None:  # noqa: ANN001
    assert response.status_code == 403, response.text
    assert response.json()["code"] == "insufficient_scope" and "Idempotent-Replayed" not in response.headers


async def test_a_read_only_key_replaying_a_batch_gets_403_not_the_stored_answer(
    client: AsyncClient, queue: HeldQueue  # noqa: F811
) -> None:
    batching, reading = await _keys(client)
    retry = {"Idempotency-Key": "batch-1"}
    first = await submit(client, batching, [SEATTLE], headers=retry)
    assert first.status_code == 202, first.text

    assert_lacks_the_batch_scope(await submit(client, reading, [SEATTLE], headers=retry))
    token = await client.post("/api/v1/auth/token", json={"api_key": batching["X-API-Key"], "scope": "read"})
    read_token = {"Authorization": f"Bearer {token.json()['access_token']}"}
    assert_lacks_the_batch_scope(await submit(client, read_token, [SEATTLE], headers=retry))

    again = await submit(client, batching, [SEATTLE], headers=retry)
    assert again.status_code == 202 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json() and len(queue.held) == 1


async def test_a_read_only_key_replaying_an_export_request_gets_403(
    client: AsyncClient, queue: HeldQueue  # noqa: F811
) -> None:
    batching, reading = await _keys(client)
    export_id = (await submit(client, batching, [SEATTLE])).json()["export_id"]
    await queue.run_all()
    body, retry = {"export_id": export_id, "format": "xlsx"}, {"Idempotency-Key": "export-1"}
    first = await client.post("/api/v1/export/create", json=body, headers={**batching, **retry})
    assert first.status_code == 200, first.text

    assert_lacks_the_batch_scope(await client.post("/api/v1/export/create", json=body, headers={**reading, **retry}))

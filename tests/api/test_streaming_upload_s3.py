"""The batch on an S3-compatible file store (moto's server, in a process of its own): an upload
streamed to it, a job split into chunk inputs there and run, and nothing left of the job's inputs."""

from __future__ import annotations

import uuid

import pytest
from httpx import AsyncClient

from adapters.files.s3 import s3_client
from entrypoints.container import Container
from tests.api.test_batch import _run_batch
from tests.api.test_streaming_upload import generated_rows, stream_upload
from tests.conftest import sign_up_and_log_in
from tests.integration.test_file_stores import s3_credentials, s3_endpoint  # noqa: F401 - fixtures

BUCKET = f"perilscope-upload-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def container_settings(s3_endpoint: str, s3_credentials: None) -> dict[str, object]:  # noqa: F811
    client = s3_client(s3_endpoint, "us-east-1")
    if BUCKET not in [bucket["Name"] for bucket in client.list_buckets()["Buckets"]]:
        client.create_bucket(Bucket=BUCKET)
    return {"file_store": "s3", "s3_endpoint_url": s3_endpoint, "s3_bucket": BUCKET, "s3_region": "us-east-1",
            "batch_chunk_rows": 2}


def keys(container: Container, prefix: str) -> list[str]:
    client = s3_client(container.settings().s3_endpoint_url, "us-east-1")
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix)
    return sorted(item["Key"] for item in listed.get("Contents", []))


async def test_upload_start_and_a_done_job_on_s3(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, f"s3-{uuid.uuid4().hex[:6]}@example.com")
    uploaded = await stream_upload(client, user["headers"], generated_rows(5))
    assert uploaded.status_code == 200 and uploaded.json()["rows"] == 5
    assert keys(container, f"uploads/{user['uid']}/") == [f"uploads/{user['uid']}/{uploaded.json()['file_id']}.csv"]

    job = await _run_batch(client, container, user["headers"])  # uploads the test CSV, 3 rows: 2 chunks
    assert job["status"] == "done" and job["done"] == job["total"] == 3
    # The done chunks' inputs are deleted; their Parquet results stay as the export's dataset.
    assert [key for key in keys(container, f"jobs/{job['id']}/") if not key.endswith(".parquet")] == []
    export = (await client.get(f"/api/view-export/{job['export_filename']}", headers=user["headers"])).text
    assert "701 5th Ave" in export and "100 Biscayne Blvd" in export

    refused = await stream_upload(client, user["headers"], iter([b"Street Address,City\n1 Main St,Miami\n"]))
    assert refused.status_code == 400 and len(keys(container, f"uploads/{user['uid']}/")) == 2  # no third

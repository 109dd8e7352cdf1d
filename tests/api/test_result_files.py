"""A batch's results as files in the file store, over HTTP on SQLite and PostgreSQL: a finished
job's export is its manifest and its chunks' Parquet files, where the chunks wrote them (nothing
copied or composed), all counted in its size; every download is a query over them; deleting the
export deletes every one of its files; a client-supplied export is a CSV file; and a whole job
runs on S3 (moto)."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pytest
from httpx import AsyncClient

from application.ports.results import read_manifest
from application.result_files import stored_keys
from entrypoints.container import Container
from tests.api.test_detailed_export import UPLOAD, _finished_export
from tests.conftest import sign_up_and_log_in
from tests.fakes import collected
from tests.integration.test_file_stores import s3_credentials, s3_endpoint  # noqa: F401 - fixtures used here


async def stored(container: Container, key: str | None) -> bytes:
    assert key is not None
    return await collected(container.file_store().read(key))


async def files_under(container: Container, prefix: str) -> list[str]:
    """The store's keys under `prefix` (an export's CSV is one key, however it is composed)."""
    return sorted([stored.key async for stored in container.file_store().list_files(prefix)])


async def test_an_export_is_its_manifest_and_chunk_files_and_every_download_reads_them(
    client: AsyncClient, container: Container, tmp_path: Path,
) -> None:
    user = await sign_up_and_log_in(client, "files@example.com")
    name = await _finished_export(client, container, user["headers"])
    export = await container.batch_store().export(user["uid"], name)
    assert export.manifest_key == f"exports/{user['uid']}/{export.id}.manifest.json"
    assert (export.csv_key, export.detail_key, export.summary_key, export.rows_index_key) == (None,) * 4
    manifest = await read_manifest(container.file_store(), export.manifest_key)
    rows = UPLOAD.count("\n") - 1
    assert manifest.rows == rows and manifest.user_columns == UPLOAD.splitlines()[0].split(",")
    # Its files: the manifest, the chunks' facts files where the chunks wrote them and the score
    # rows they used, merged once; all counted, as stored.
    keys = await stored_keys(container.file_store(), export)
    assert sorted(keys) == sorted([export.manifest_key, *manifest.keys])
    facts = [chunk.facts for chunk in manifest.chunks]
    assert all(key.startswith(f"jobs/{export.job_id}/out/") and key.endswith(".facts.parquet") for key in facts)
    assert manifest.scores == f"exports/{user['uid']}/{export.id}.scores.parquet"
    assert sorted(manifest.keys) == sorted([*facts, manifest.scores])
    assert export.size_bytes == sum([len(await stored(container, key)) for key in keys])
    # The chunks' inputs and score files went with the finish (every chunk was done); their facts are the export's.
    assert await files_under(container, "jobs/") == sorted(facts)
    assert await files_under(container, "exports/") == sorted([export.manifest_key, manifest.scores])

    download = await client.get(f"/api/download/{name}", headers=user["headers"])
    assert download.status_code == 200 and name in download.headers["content-disposition"]
    assert download.headers["content-type"].startswith("text/csv")
    view = await client.get(f"/api/view-export/{name}", headers=user["headers"])
    assert view.content == download.content and view.headers["x-export-source"] == "computed"
    spec_rows = [row for row in csv.DictReader(io.StringIO(download.text)) if row["address"]]
    assert spec_rows[0]["address"].startswith("701 5th Ave")  # in input order
    jsonl = await client.get(f"/api/exports/{name}/detailed", params={"format": "jsonl"}, headers=user["headers"])
    records = [json.loads(line) for line in jsonl.content.splitlines()]
    assert len(records) == rows and [r["row"] for r in records] == list(range(2, rows + 2))
    detailed_csv = await client.get(f"/api/exports/{name}/detailed", params={"format": "csv"}, headers=user["headers"])
    converted = list(csv.DictReader(io.StringIO(detailed_csv.content.decode("utf-8-sig"))))
    # The user's values as they came in JSON Lines; neutralised in the spreadsheet formats only.
    assert [r["policy_no"] for r in converted] == [
        "'" + r["input"]["policy_no"] if r["input"]["policy_no"].startswith("=") else r["input"]["policy_no"] for r in records]
    xlsx = await client.get(f"/api/exports/{name}/detailed", params={"format": "xlsx"}, headers=user["headers"])
    assert openpyxl.load_workbook(io.BytesIO(xlsx.content), read_only=True)["Rows"].max_row == rows + 1
    portfolio = await client.get(f"/api/exports/{name}/portfolio", headers=user["headers"])
    assert portfolio.status_code == 200 and portfolio.json()["headline"]["rows"] == rows

    assert (await client.delete(f"/api/exports/{name}", headers=user["headers"])).status_code == 200
    assert await files_under(container, "exports/") == [] and await files_under(container, "jobs/") == []
    assert [path for path in (tmp_path / "files").rglob("*")
            if path.is_file() and ("exports" in path.parts or "jobs" in path.parts)] == [], "nothing of it left on disk"
    assert (await client.get(f"/api/download/{name}", headers=user["headers"])).status_code == 404


async def test_a_client_supplied_export_is_a_file_too_without_a_detailed_version(
    client: AsyncClient, container: Container,
) -> None:
    user = await sign_up_and_log_in(client, "client-rows@example.com")
    made = await client.post("/api/export", json={"data": [{"address": "1 Main St", "Total_Score": 12.5}]},
                             headers=user["headers"])
    name = made.json()["file_path"].split("/", 1)[1]
    export = await container.batch_store().export(user["uid"], name)
    assert export.csv_key and export.detail_key is None
    download = await client.get(f"/api/download/{name}", headers=user["headers"])
    assert download.content == await stored(container, export.csv_key) and b"1 Main St" in download.content
    assert (await client.get(f"/api/exports/{name}/detailed", headers=user["headers"])).status_code == 404
    assert (await client.get(f"/api/exports/{name}/portfolio", headers=user["headers"])).status_code == 404


class TestOnS3:
    """The whole job with PERILSCOPE_FILE_STORE=s3 against a real S3-compatible server."""

    @pytest.fixture
    def container_settings(self, s3_endpoint: str, s3_credentials: None) -> Iterator[dict[str, object]]:  # noqa: F811
        from adapters.files.s3 import s3_client

        bucket = f"perilscope-jobs-{uuid.uuid4().hex[:8]}"
        s3_client(s3_endpoint, "us-east-1").create_bucket(Bucket=bucket)
        yield {"file_store": "s3", "s3_endpoint_url": s3_endpoint, "s3_bucket": bucket, "s3_region": "us-east-1"}

    async def test_upload_job_and_downloads_of_csv_and_detailed_xlsx(
        self, client: AsyncClient, container: Container, container_settings: dict[str, object],
    ) -> None:
        from adapters.files.s3 import S3FileStore, s3_client

        assert isinstance(container.file_store(), S3FileStore)
        user = await sign_up_and_log_in(client, "s3-job@example.com")
        name = await _finished_export(client, container, user["headers"])
        export = await container.batch_store().export(user["uid"], name)
        download = await client.get(f"/api/download/{name}", headers=user["headers"])
        assert download.status_code == 200 and download.content.decode().count("701 5th Ave") >= 2
        xlsx = await client.get(f"/api/exports/{name}/detailed", params={"format": "xlsx"}, headers=user["headers"])
        sheet = openpyxl.load_workbook(io.BytesIO(xlsx.content), read_only=True)["Rows"]
        assert xlsx.status_code == 200 and sheet.max_row == UPLOAD.count("\n")  # a header and one row per input row
        listed = s3_client(str(container_settings["s3_endpoint_url"]), "us-east-1").list_objects_v2(
            Bucket=str(container_settings["s3_bucket"]))
        keys = sorted(item["Key"] for item in listed.get("Contents", []))
        manifest = await read_manifest(container.file_store(), export.manifest_key)
        assert [key for key in keys if key.startswith("exports/")] == sorted([export.manifest_key, manifest.scores])
        # The chunks' facts files are the export's; their score files went, merged into the export's.
        assert [key for key in keys if "/out/" in key] == sorted(chunk.facts for chunk in manifest.chunks)
        assert [key for key in keys if "/in/" in key] == []  # their inputs went with the finish

"""A batch's results as files in the file store, over HTTP on SQLite and PostgreSQL: every
download streams the stored bytes, the chunks' files go once the export is stored, deleting an
export deletes its files, the stored default portfolio summary equals one summed afresh, an export
stored in the database before export files still downloads, and a whole job runs on S3 (moto)."""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import openpyxl
import pytest
from httpx import AsyncClient
from sqlalchemy import insert

from adapters.db.batch_tables import ExportFileRow
from application.portfolio_tally import decode_summary, tally_lines
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


async def test_downloads_stream_the_stored_files_and_the_chunks_files_are_gone(
    client: AsyncClient, container: Container, tmp_path: Path,
) -> None:
    user = await sign_up_and_log_in(client, "files@example.com")
    name = await _finished_export(client, container, user["headers"])
    export = await container.batch_store().export(user["uid"], name)
    assert export.csv_key == f"exports/{user['uid']}/{export.id}.csv" and export.detail_key and export.summary_key
    assert export.rows_index_key == f"exports/{user['uid']}/{export.id}.rows"  # the viewer's index, deleted with it
    csv_bytes, detail_bytes = await stored(container, export.csv_key), await stored(container, export.detail_key)
    # All four files count against the owner's storage.
    assert export.size_bytes == sum([len(await stored(container, key)) for key in export.keys])
    assert export.size_bytes > len(csv_bytes) + len(detail_bytes)

    download = await client.get(f"/api/download/{name}", headers=user["headers"])
    assert download.status_code == 200 and download.content == csv_bytes
    assert download.headers["content-type"].startswith("text/csv") and name in download.headers["content-disposition"]
    view = await client.get(f"/api/view-export/{name}", headers=user["headers"])
    assert view.content == csv_bytes and view.headers["x-export-source"] == "computed"
    rows = [row for row in csv.DictReader(io.StringIO(csv_bytes.decode())) if row["address"]]
    assert rows[0]["address"].startswith("701 5th Ave")  # in input order
    jsonl = await client.get(f"/api/exports/{name}/detailed", params={"format": "jsonl"}, headers=user["headers"])
    assert jsonl.content == detail_bytes and len(detail_bytes.splitlines()) == UPLOAD.count("\n") - 1
    detailed_csv = await client.get(f"/api/exports/{name}/detailed", params={"format": "csv"}, headers=user["headers"])
    records = [json.loads(line) for line in detail_bytes.splitlines()]
    converted = list(csv.DictReader(io.StringIO(detailed_csv.content.decode("utf-8-sig"))))
    assert [r["policy_no"] for r in converted] == [r["input"]["policy_no"].replace("=", "'=", 1) if r["input"]["policy_no"].startswith("=") else r["input"]["policy_no"] for r in records]
    xlsx = await client.get(f"/api/exports/{name}/detailed", params={"format": "xlsx"}, headers=user["headers"])
    assert openpyxl.load_workbook(io.BytesIO(xlsx.content), read_only=True)["Rows"].max_row == len(records) + 1

    # The chunks' results and (every chunk was done) inputs went with the finish.
    assert await files_under(container, "jobs/") == []
    assert await files_under(container, "exports/") == sorted(export.keys)

    # The default summary was stored while the export was assembled; it equals one summed afresh.
    fresh = tally_lines(detail_bytes.decode(), None, "composite").summary()
    assert decode_summary(await stored(container, export.summary_key)) == fresh
    portfolio = await client.get(f"/api/exports/{name}/portfolio", headers=user["headers"])
    assert portfolio.status_code == 200 and portfolio.json()["headline"]["rows"] == len(records)

    assert (await client.delete(f"/api/exports/{name}", headers=user["headers"])).status_code == 200
    assert await files_under(container, "exports/") == []
    assert [path for path in (tmp_path / "files" / "exports").rglob("*") if not path.is_dir() or path.name.endswith("+parts")
            ] == [], "nothing of it left on disk"
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


async def test_an_export_stored_in_the_database_before_export_files_still_downloads(
    client: AsyncClient, container: Container,
) -> None:
    user = await sign_up_and_log_in(client, "legacy@example.com")
    name = await _finished_export(client, container, user["headers"])
    export = await container.batch_store().export(user["uid"], name)
    csv_text = (await stored(container, export.csv_key)).decode()
    detail_text = (await stored(container, export.detail_key)).decode()
    legacy = "legacy_export_20250101_000000_000001.csv"
    await container.writer().execute(  # a row as migration 0016 leaves an older export
        insert(ExportFileRow).values(
            id=str(uuid.uuid4()), user_id=user["uid"], name=legacy, content=csv_text, detail=detail_text,
            detail_columns=json.dumps(list(export.detail_columns)), size_bytes=1, source="computed",
            exported_at=datetime.now(UTC),
        )
    )
    try:
        assert (await client.get(f"/api/download/{legacy}", headers=user["headers"])).text == csv_text
        jsonl = await client.get(f"/api/exports/{legacy}/detailed", params={"format": "jsonl"}, headers=user["headers"])
        assert jsonl.text == detail_text
        old, new = [(await client.get(f"/api/exports/{n}/portfolio", headers=user["headers"])).json() for n in (legacy, name)]
        assert old["headline"] == new["headline"] and old["counties"] == new["counties"]
    finally:
        await client.delete(f"/api/exports/{legacy}", headers=user["headers"])


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
        assert download.status_code == 200 and download.content == await stored(container, export.csv_key)
        assert download.content.decode().count("701 5th Ave") >= 2
        xlsx = await client.get(f"/api/exports/{name}/detailed", params={"format": "xlsx"}, headers=user["headers"])
        sheet = openpyxl.load_workbook(io.BytesIO(xlsx.content), read_only=True)["Rows"]
        assert xlsx.status_code == 200 and sheet.max_row == UPLOAD.count("\n")  # a header and one row per input row
        listed = s3_client(str(container_settings["s3_endpoint_url"]), "us-east-1").list_objects_v2(
            Bucket=str(container_settings["s3_bucket"]))
        keys = sorted(item["Key"] for item in listed.get("Contents", []))
        assert [key for key in keys if key.startswith("exports/")] == sorted(export.keys)
        assert [key for key in keys if "/out/" in key] == []  # the chunks' results went with the finish

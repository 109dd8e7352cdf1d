"""Chunked jobs over HTTP (the rules: tests/unit/test_batch_chunk_rules.py): a job's status tells
its chunks, failed rows and speed; its failed rows run again as a new job, for its owner only."""

from __future__ import annotations

import csv
import io

import pytest
from dependency_injector import providers
from httpx import AsyncClient

from application.batch_runner import ChunkPolicy
from entrypoints.container import Container
from tests.api.test_batch import CSV, _upload
from tests.conftest import sign_up_and_log_in


async def test_a_jobs_failed_rows_are_marked_and_run_again(
    client: AsyncClient, container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    container.chunk_policy.override(providers.Object(ChunkPolicy(chunk_rows=1, max_attempts=2)))
    alice = await sign_up_and_log_in(client, "chunks@example.com")
    bob = await sign_up_and_log_in(client, "chunks-bob@example.com")
    service = container.batch()
    working = service._answer  # noqa: SLF001 - the seam between a chunk and the lookup

    async def miami_is_down(row):  # noqa: ANN001, ANN202
        if row.city == "Miami":
            raise ConnectionError("provider unreachable")
        return await working(row)

    monkeypatch.setattr(service, "_answer", miami_is_down)
    file_id = (await _upload(client, alice["headers"])).json()["file_id"]
    started = (await client.post("/api/batch-jobs", json={"file_id": file_id}, headers=alice["headers"])).json()
    await container.job_queue().drain()

    job = (await client.get(f"/api/batch-jobs/{started['job']['id']}", headers=alice["headers"])).json()["job"]
    assert (job["status"], job["done"], job["total"], job["error"]) == ("done", 3, 3, None)
    assert (job["chunks_total"], job["chunks_done"], job["chunks_failed"], job["failed_rows"]) == (3, 2, 1, 1)
    assert job["worker_count"] == 0 and job["eta_seconds"] is None
    assert "workers" not in job  # host names and process ids are not shown to users
    assert job["rows_per_second"] is None or job["rows_per_second"] > 0
    text = (await client.get(f"/api/view-export/{job['export_filename']}", headers=alice["headers"])).text
    groups = [row["address"] for row in csv.DictReader(io.StringIO(text)) if row["address"]]
    assert len(groups) == 3 and "not processed" in groups[1] and "ConnectionError" in groups[1]

    rerun_path = f"/api/batch-jobs/{job['id']}/rerun-failed"
    assert (await client.post(rerun_path, headers=bob["headers"])).status_code == 404
    monkeypatch.setattr(service, "_answer", working)
    again = await client.post(rerun_path, headers=alice["headers"])
    assert again.status_code == 202 and again.json()["job"]["total"] == 1
    await container.job_queue().drain()
    rerun = (await client.get(f"/api/batch-jobs/{again.json()['job']['id']}", headers=alice["headers"])).json()["job"]
    assert (rerun["status"], rerun["failed_rows"]) == ("done", 0)
    text = (await client.get(f"/api/view-export/{rerun['export_filename']}", headers=alice["headers"])).text
    assert [row["address"].splitlines()[0] for row in csv.DictReader(io.StringIO(text)) if row["address"]] == [
        "100 Biscayne Blvd, Miami, FL 33130"
    ]
    nothing_failed = await client.post(f"/api/batch-jobs/{rerun['id']}/rerun-failed", headers=alice["headers"])
    assert nothing_failed.status_code == 400 and nothing_failed.json()["code"] == "no_failed_rows"


async def test_a_job_not_split_yet_says_its_chunks_are_unknown(client: AsyncClient, container: Container) -> None:
    from tests.api.test_batch import _Forget

    container.job_queue.override(providers.Object(_Forget()))
    user = await sign_up_and_log_in(client, "unsplit@example.com")
    file_id = (await _upload(client, user["headers"], CSV)).json()["file_id"]
    started = (await client.post("/api/batch-jobs", json={"file_id": file_id}, headers=user["headers"])).json()["job"]
    job = (await client.get(f"/api/batch-jobs/{started['id']}", headers=user["headers"])).json()["job"]
    assert (job["status"], job["chunks_total"], job["failed_rows"], job["rows_per_second"]) == ("queued", None, None, None)

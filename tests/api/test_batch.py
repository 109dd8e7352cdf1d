"""Batch CSV over HTTP on the real data: upload, job, progress, exports, scoping, restart."""

from __future__ import annotations

import asyncio
import csv
import io

import pytest
from dependency_injector import providers
from httpx import AsyncClient

from entrypoints.container import Container
from tests.conftest import sign_up_and_log_in

CSV = (
    "Street Address,City,State,Zip,Country\n"
    "701 5th Ave,Seattle,WA,98104,US\n"
    "100 Biscayne Blvd,Miami,FL,33130,US\n"
    "no number street,Nowhere,ZZ,abc,US\n"
)


async def _upload(client: AsyncClient, headers: dict, content: str = CSV, name: str = "portfolio.csv"):  # noqa: ANN202
    return await client.post("/api/upload-csv", files={"file": (name, content.encode(), "text/csv")}, headers=headers)


async def _run_batch(client: AsyncClient, container: Container, headers: dict) -> dict:
    file_id = (await _upload(client, headers)).json()["file_id"]
    started = await client.post("/api/batch-jobs", json={"file_id": file_id}, headers=headers)
    assert started.status_code == 202, started.text
    await container.job_queue().drain()
    job = (await client.get(f"/api/batch-jobs/{started.json()['job']['id']}", headers=headers)).json()["job"]
    return job


async def test_upload_job_and_export(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "batch@example.com")
    upload = await _upload(client, user["headers"])
    assert upload.status_code == 200 and upload.json()["rows"] == 3
    assert upload.json()["file_path"].endswith("portfolio.csv")

    job = await _run_batch(client, container, user["headers"])
    assert job["status"] == "done" and job["done"] == job["total"] == 3
    assert job["export_filename"].startswith("portfolio_export_") and job["eta_seconds"] is None

    files = (await client.get("/api/list-exported-files", headers=user["headers"])).json()["files"]
    assert [f["name"] for f in files] == [job["export_filename"]]
    view = await client.get(f"/api/view-export/{job['export_filename']}", headers=user["headers"])
    assert view.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(view.text)))
    group_starts = [r for r in rows if r["address"]]
    assert len(group_starts) == 3  # every address gets its group row, occupants or not
    assert group_starts[0]["address"].startswith("701 5th Ave") and "Year Built: 1985" in group_starts[0]["address"]
    assert len(rows) >= 3 + 23  # Seattle's 24 occupants follow their group row
    assert group_starts[1]["name"] == "NA" and "Hurricane" in group_starts[1]["Top3_Scores_Combined"]
    assert "could not read" in group_starts[2]["address"]

    download = await client.get(f"/api/download/{job['export_filename']}", headers=user["headers"])
    assert "attachment" in download.headers["content-disposition"] and download.text == view.text

    stats = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    assert stats["current_month_searches"] == 1  # one batch is one search
    recent = (await client.get("/api/recent-searches", headers=user["headers"])).json()["searches"]
    assert recent[0]["address"] == "portfolio.csv"
    assert recent[0]["total_results"] is None  # counted row by row in its export, unknown here: never 0


async def test_bad_uploads_get_clear_errors(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "bad@example.com")
    missing = await _upload(client, user["headers"], "Street Address,City\nx,y\n")
    assert missing.status_code == 400 and "Missing required column(s): State, Zip" in missing.json()["error"]
    wrong_type = await _upload(client, user["headers"], CSV, name="portfolio.xlsx")
    assert wrong_type.status_code == 400 and "Only .csv" in wrong_type.json()["error"]
    no_lines = await client.post(
        "/api/upload-csv", files={"file": ("big.csv", b"x" * (3 * 1024 * 1024), "text/csv")}, headers=user["headers"]
    )
    assert no_lines.status_code == 400 and "without a line break" in no_lines.json()["error"]
    assert (await client.post("/api/batch-jobs", json={"file_id": "nope"}, headers=user["headers"])).status_code == 404
    assert (await _upload(client, {}, CSV)).status_code == 401


async def test_exports_and_jobs_are_owner_scoped_and_names_are_checked(client: AsyncClient, container: Container) -> None:
    alice = await sign_up_and_log_in(client, "alice@example.com")
    bob = await sign_up_and_log_in(client, "bob@example.com")
    job = await _run_batch(client, container, alice["headers"])
    name = job["export_filename"]
    for path in (f"/api/view-export/{name}", f"/api/download/{name}", f"/api/batch-jobs/{job['id']}"):
        assert (await client.get(path, headers=bob["headers"])).status_code == 404, path
    assert (await client.get("/api/list-exported-files", headers=bob["headers"])).json()["files"] == []
    bob_file = (await _upload(client, bob["headers"])).json()["file_id"]
    alice_using_bobs = await client.post("/api/batch-jobs", json={"file_id": bob_file}, headers=alice["headers"])
    assert alice_using_bobs.status_code == 404
    for attempt in ("..%2F..%2Fetc%2Fpasswd", "..%5C..%5Cwin.ini", "%2Fetc%2Fpasswd", "....csv", f"..%2F{name}"):
        response = await client.get(f"/api/view-export/{attempt}", headers=alice["headers"])
        assert response.status_code == 404, attempt
    # A NUL never gets as far as a name lookup: it is refused at the edge.
    assert (await client.get("/api/view-export/x%00.csv", headers=alice["headers"])).status_code == 400


async def test_an_interrupted_job_runs_again_and_its_export_is_whole(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "restart@example.com")
    file_id = (await _upload(client, user["headers"])).json()["file_id"]
    service = container.batch()
    # The server stops right after queueing: the job is left 'running' half way, with no export.
    container.job_queue.override(providers.Object(_Forget()))
    started = (await client.post("/api/batch-jobs", json={"file_id": file_id}, headers=user["headers"])).json()["job"]
    from datetime import UTC, datetime

    await container.batch_store().start(started["id"], datetime.now(UTC))
    await container.batch_store().progress(started["id"], "search", 2)
    assert (await client.get("/api/list-exported-files", headers=user["headers"])).json()["files"] == []

    container.job_queue.reset_override()  # "restart"
    assert await service.resume_unfinished() == [started["id"]]
    await container.job_queue().drain()
    job = (await client.get(f"/api/batch-jobs/{started['id']}", headers=user["headers"])).json()["job"]
    assert job["status"] == "done" and job["done"] == 3
    files = (await client.get("/api/list-exported-files", headers=user["headers"])).json()["files"]
    assert len(files) == 1
    text = (await client.get(f"/api/view-export/{files[0]['name']}", headers=user["headers"])).text
    assert len([r for r in csv.DictReader(io.StringIO(text)) if r["address"]]) == 3


class _Forget:
    async def enqueue(self, job_id: str) -> None:
        return None


async def test_spec_three_call_flow_search_match_export(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "legacy@example.com")
    file_id = (await _upload(client, user["headers"])).json()["file_id"]
    searched = await client.post(
        "/api/search", json={"file_id": file_id, "api_key": "ignored", "tables": ["us_real_estate"]}, headers=user["headers"]
    )
    assert searched.status_code == 200 and len(searched.json()["data"]) == 3
    matched = await client.post("/api/match-yelp", json={"data": searched.json()["data"]}, headers=user["headers"])
    assert matched.json()["data"] == searched.json()["data"]
    exported = (await client.post("/api/export", json={"data": matched.json()["data"]}, headers=user["headers"])).json()
    assert exported["status"] == "success" and exported["file_path"].startswith("exports/client-supplied_export_")
    assert exported["source"] == "client"
    name = exported["file_path"].split("/", 1)[1]
    text = (await client.get(f"/api/view-export/{name}", headers=user["headers"])).text
    assert "98POINT6 INC" in text
    stats = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    assert stats["current_month_searches"] == 1
    # The occupants of the rows a source covers (Seattle's), the Miami and unread rows' being unknown.
    [batch] = (await client.get("/api/recent-searches", headers=user["headers"])).json()["searches"]
    assert batch["total_results"] >= 20
    empty = (await client.post("/api/export", json={"data": []}, headers=user["headers"])).json()
    assert empty["error"] == "No processed data available to export"
    other = await sign_up_and_log_in(client, "other@example.com")
    assert (await client.post("/api/search", json={"file_id": file_id}, headers=other["headers"])).status_code == 404


async def test_a_nul_past_the_first_64_kib_is_a_400_naming_its_line(client: AsyncClient) -> None:
    headers = (await sign_up_and_log_in(client, "batch-nul@example.com"))["headers"]
    rows = "701 5th Ave,Seattle,WA,98104,US\n" * 2500
    content = CSV + rows + "1 Main St,Miami,FL,33130\x00,US\n"
    assert content.index("\x00") > 65536
    response = await _upload(client, headers, content)
    assert response.status_code == 400, response.text
    assert "line 2,505 contains binary data" in response.json()["error"]
    assert (await client.get("/api/list-exported-files", headers=headers)).json()["files"] == []


async def test_a_failed_upload_leaves_no_uploaded_address_in_the_logs(
    client: AsyncClient, container: Container, monkeypatch
) -> None:  # noqa: ANN001
    import logging

    from sqlalchemy.exc import StatementError

    from entrypoints.logging_setup import JsonFormatter

    async def failing_add_upload(upload, storage_limit) -> None:  # noqa: ANN001
        # What a database error looks like: its text quotes the statement's parameters.
        raise StatementError("could not store", "INSERT INTO uploads (content) VALUES (?)", [upload.content], ValueError(upload.content))

    monkeypatch.setattr(container.batch_store(), "add_upload", failing_add_upload)
    headers = (await sign_up_and_log_in(client, "batch-log@example.com"))["headers"]
    captured = io.StringIO()
    handler = logging.StreamHandler(captured)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        response = await _upload(client, headers)
    finally:
        root.removeHandler(handler)
    assert response.status_code == 500 and response.json()["code"] == "internal_error"
    logged = captured.getvalue()
    assert "unhandled error" in logged and response.json()["request_id"] in logged
    assert "sqlalchemy.exc.StatementError" in logged and "failing_add_upload" in logged  # where, still said
    for uploaded in ("701 5th Ave", "Biscayne", "Nowhere", "98104"):
        assert uploaded not in logged
# Unique addresses, so every row is answered rather than reused.
MANY_ROWS_CSV = "Street Address,City,State,Zip,Country\n" + "".join(
    f"{number} 5th Ave,Seattle,WA,98104,US\n" for number in range(100, 160)
)


class _TurnCounter:
    """Another task on the event loop, counting its turns; the batch notes the count at each row."""

    def __init__(self) -> None:
        self.turns = 0
        self.at_each_row: list[int] = []

    async def run(self) -> None:
        while True:
            await asyncio.sleep(0)
            self.turns += 1

    def wrap(self, answer):  # noqa: ANN001, ANN201
        async def answer_noting_turns(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            self.at_each_row.append(self.turns)
            return await answer(*args, **kwargs)

        return answer_noting_turns


@pytest.mark.parametrize("flow", ["job", "search_now"])
async def test_a_batch_gives_the_event_loop_back_between_rows(
    client: AsyncClient, container: Container, monkeypatch: pytest.MonkeyPatch, flow: str
) -> None:
    container.batch.add_kwargs(slice_seconds=0.0)  # every row uses up its slice
    user = await sign_up_and_log_in(client, f"{flow}@example.com")
    file_id = (await _upload(client, user["headers"], MANY_ROWS_CSV)).json()["file_id"]
    counter = _TurnCounter()
    lookup = container.lookup()
    monkeypatch.setattr(lookup, "answer", counter.wrap(lookup.answer))
    other_task = asyncio.create_task(counter.run())
    try:
        if flow == "job":
            started = await client.post("/api/batch-jobs", json={"file_id": file_id}, headers=user["headers"])
            await container.job_queue().drain()
            job = (await client.get(f"/api/batch-jobs/{started.json()['job']['id']}", headers=user["headers"])).json()
            assert job["job"]["status"] == "done"
        else:
            searched = await client.post("/api/search", json={"file_id": file_id}, headers=user["headers"])
            assert len(searched.json()["data"]) == 60
    finally:
        other_task.cancel()

    assert len(counter.at_each_row) == 60
    # Between any two rows the other task ran: the batch never held the loop for two rows in a row.
    assert all(later > earlier for earlier, later in zip(counter.at_each_row, counter.at_each_row[1:]))

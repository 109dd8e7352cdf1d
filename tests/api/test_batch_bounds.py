"""Bounded batches over HTTP, on SQLite and PostgreSQL: the monthly batch row allowance, the
storage cap, upload retention, export deletion, client-supplied exports and the unfinished jobs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from dependency_injector import providers
from httpx import AsyncClient

from application.result_files import stored_keys
from entrypoints.container import Container
from tests.api.test_batch import CSV, _Forget, _run_batch, _upload
from tests.conftest import settings_for_tests, sign_up_admin, sign_up_and_log_in
from tests.fakes import FakeClock

ROWS = 3  # CSV has three addresses


async def _stats(client: AsyncClient, headers: dict) -> dict:
    return (await client.get("/api/auth/get-search-stats", headers=headers)).json()["stats"]


async def _allow_rows(client: AsyncClient, container: Container, rows: int) -> None:
    admin = await sign_up_admin(client, container, "settings-admin@example.com")
    current = (await client.get("/api/admin/settings", headers=admin["headers"])).json()["settings"]
    saved = await client.put(
        "/api/admin/settings", json={**current, "monthly_batch_row_limit": rows}, headers=admin["headers"]
    )
    assert saved.status_code == 200, saved.text


async def _start(client: AsyncClient, headers: dict):  # noqa: ANN202
    file_id = (await _upload(client, headers)).json()["file_id"]
    return await client.post("/api/batch-jobs", json={"file_id": file_id}, headers=headers)


async def test_the_batch_row_allowance_is_enforced_and_shown(client: AsyncClient, container: Container) -> None:
    await _allow_rows(client, container, 5)
    user = await sign_up_and_log_in(client, "rows@example.com")
    container.job_queue.override(providers.Object(_Forget()))

    assert (await _start(client, user["headers"])).status_code == 202
    stats = await _stats(client, user["headers"])
    assert (stats["batch_rows_used"], stats["batch_rows_limit"], stats["batch_rows_remaining"]) == (ROWS, 5, 2)
    assert stats["current_month_searches"] == 1  # a batch still counts as one search

    refused = await _start(client, user["headers"])
    assert refused.status_code == 429
    message = refused.json()["error"]
    assert "this file has 3 rows and 2 of your 5 batch rows remain this month" in message
    assert "contact an administrator" in message
    # SPEC's older flow draws on the same allowance.
    file_id = (await _upload(client, user["headers"])).json()["file_id"]
    legacy = await client.post("/api/search", json={"file_id": file_id}, headers=user["headers"])
    assert legacy.status_code == 429 and "2 of your 5 batch rows remain" in legacy.json()["error"]

    stats = await _stats(client, user["headers"])
    assert (stats["batch_rows_used"], stats["current_month_searches"]) == (ROWS, 1)  # refusals cost nothing


async def test_admins_have_no_batch_row_limit(client: AsyncClient, container: Container) -> None:
    await _allow_rows(client, container, 5)
    admin = await sign_up_admin(client, container, "unlimited@example.com")
    container.job_queue.override(providers.Object(_Forget()))
    for _ in range(3):
        assert (await _start(client, admin["headers"])).status_code == 202
    stats = await _stats(client, admin["headers"])
    assert (stats["batch_rows_used"], stats["batch_rows_limit"], stats["batch_rows_remaining"]) == (9, None, None)


async def test_rows_and_the_search_are_given_back_when_a_start_fails(
    client: AsyncClient, container: Container, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = await sign_up_and_log_in(client, "refund@example.com")
    file_id = (await _upload(client, user["headers"])).json()["file_id"]

    async def broken_add_job(job) -> None:  # noqa: ANN001
        raise RuntimeError("database went away")

    monkeypatch.setattr(container.batch_store(), "add_job", broken_add_job)
    assert (await client.post("/api/batch-jobs", json={"file_id": file_id}, headers=user["headers"])).status_code == 500
    stats = await _stats(client, user["headers"])
    assert (stats["batch_rows_used"], stats["current_month_searches"]) == (0, 0)


async def test_an_upload_past_the_storage_cap_is_refused_with_413(client: AsyncClient, container: Container) -> None:
    size = len(CSV.encode())
    container.settings.override(settings_for_tests(container.settings().database_url, user_storage_bytes=3 * size))
    user = await sign_up_and_log_in(client, "storage@example.com")
    for _ in range(3):
        assert (await _upload(client, user["headers"])).status_code == 200
    refused = await _upload(client, user["headers"])
    assert refused.status_code == 413
    message = refused.json()["error"]
    assert f"you use {3 * size} bytes of your {3 * size} bytes" in message and "Delete old exports" in message
    stats = await _stats(client, user["headers"])
    assert (stats["storage_bytes_used"], stats["storage_bytes_limit"]) == (3 * size, 3 * size)
    other = await sign_up_and_log_in(client, "other-storage@example.com")
    assert (await _upload(client, other["headers"])).status_code == 200  # the cap is per user


async def test_exports_count_towards_storage_and_deleting_one_frees_it(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "frees@example.com")
    job = await _run_batch(client, container, user["headers"])
    name = job["export_filename"]
    # Every file of the export counts, as stored: its manifest and its chunks' Parquet files.
    export = await container.batch_store().export(user["uid"], name)
    keys = await stored_keys(container.file_store(), export)
    assert keys[-1] == export.manifest_key and all(key.endswith(".parquet") for key in keys[:-1]) and len(keys) >= 3
    export_bytes = sum([await container.file_store().size(key) for key in keys])
    assert export.size_bytes == export_bytes
    await container.batch().purge_uploads()  # the job is done, so its upload goes; so are its chunks' files
    assert (await _stats(client, user["headers"]))["storage_bytes_used"] == export_bytes

    deleted = await client.delete(f"/api/exports/{job['export_filename']}", headers=user["headers"])
    assert deleted.status_code == 200 and deleted.json() == {"status": "success"}
    assert (await _stats(client, user["headers"]))["storage_bytes_used"] == 0


async def test_deleting_an_export_is_owner_scoped(client: AsyncClient, container: Container) -> None:
    alice = await sign_up_and_log_in(client, "alice-del@example.com")
    bob = await sign_up_and_log_in(client, "bob-del@example.com")
    name = (await _run_batch(client, container, alice["headers"]))["export_filename"]

    for headers, path in ((bob["headers"], name), (alice["headers"], "nothing_here.csv")):
        response = await client.delete(f"/api/exports/{path}", headers=headers)
        assert response.status_code == 404 and response.json()["error"] == "Export not found", path
    assert (await client.delete("/api/exports/..%2F..%2Fx.csv", headers=alice["headers"])).status_code == 404
    assert (await client.delete(f"/api/exports/{name}")).status_code == 401
    assert (await client.get(f"/api/view-export/{name}", headers=alice["headers"])).status_code == 200

    assert (await client.delete(f"/api/exports/{name}", headers=alice["headers"])).status_code == 200
    assert (await client.get("/api/list-exported-files", headers=alice["headers"])).json()["files"] == []
    assert (await client.get(f"/api/view-export/{name}", headers=alice["headers"])).status_code == 404
    assert (await client.delete(f"/api/exports/{name}", headers=alice["headers"])).status_code == 404


async def test_client_supplied_exports_are_marked_in_the_list_and_the_file(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "marked@example.com")
    job = await _run_batch(client, container, user["headers"])
    computed_rows = (await client.post("/api/search", json={"file_id": (await _upload(client, user["headers"])).json()["file_id"]},
                                       headers=user["headers"])).json()["data"]
    sent = await client.post("/api/export", json={"data": computed_rows}, headers=user["headers"])
    client_name = sent.json()["file_path"].removeprefix("exports/")

    files = (await client.get("/api/list-exported-files", headers=user["headers"])).json()["files"]
    assert {f["name"]: f["source"] for f in files} == {job["export_filename"]: "computed", client_name: "client"}
    assert client_name.startswith("client-supplied_")
    download = await client.get(f"/api/download/{client_name}", headers=user["headers"])
    assert f'filename="{client_name}"' in download.headers["content-disposition"]
    assert download.headers["x-export-source"] == "client"
    computed = await client.get(f"/api/download/{job['export_filename']}", headers=user["headers"])
    assert computed.headers["x-export-source"] == "computed"


async def test_the_batch_jobs_list_holds_only_the_callers_unfinished_jobs(client: AsyncClient, container: Container) -> None:
    alice = await sign_up_and_log_in(client, "alice-jobs@example.com")
    bob = await sign_up_and_log_in(client, "bob-jobs@example.com")
    done = await _run_batch(client, container, alice["headers"])
    container.job_queue.override(providers.Object(_Forget()))
    first = (await _start(client, alice["headers"])).json()["job"]
    second = (await _start(client, alice["headers"])).json()["job"]
    await container.batch_store().start(second["id"], datetime.now(UTC))
    await container.batch_store().progress(second["id"], "search", 2)
    bobs = (await _start(client, bob["headers"])).json()["job"]

    listed = await client.get("/api/batch-jobs", headers=alice["headers"])
    assert listed.status_code == 200 and listed.json()["status"] == "success"
    jobs = listed.json()["jobs"]
    assert [job["id"] for job in jobs] == [first["id"], second["id"]]
    assert done["id"] not in {job["id"] for job in jobs}
    one = (await client.get(f"/api/batch-jobs/{second['id']}", headers=alice["headers"])).json()["job"]
    assert jobs[1] == one and (one["status"], one["done"], one["total"]) == ("running", 2, ROWS)
    assert [job["id"] for job in (await client.get("/api/batch-jobs", headers=bob["headers"])).json()["jobs"]] == [bobs["id"]]
    assert (await client.get("/api/batch-jobs")).status_code == 401


async def test_uploads_are_purged_when_no_job_needs_them(client: AsyncClient, container: Container) -> None:
    clock = FakeClock(datetime(2026, 11, 2, 9, 0, tzinfo=UTC))
    container.clock.override(providers.Object(clock))
    user = await sign_up_and_log_in(client, "retention@example.com")
    unused = (await _upload(client, user["headers"])).json()["file_id"]
    done = await _run_batch(client, container, user["headers"])
    container.job_queue.override(providers.Object(_Forget()))
    queued_file = (await _upload(client, user["headers"])).json()["file_id"]
    queued = (await client.post("/api/batch-jobs", json={"file_id": queued_file}, headers=user["headers"])).json()["job"]
    store = container.batch_store()

    clock.advance(timedelta(hours=23))
    assert await container.batch().purge_uploads() == 1  # only the finished job's upload
    assert await store.upload(None, unused) is not None and await store.upload(None, queued_file) is not None
    job = (await client.get(f"/api/batch-jobs/{done['id']}", headers=user["headers"])).json()["job"]
    assert job["status"] == "done" and job["export_filename"] == done["export_filename"]  # the record stays
    assert (await client.get(f"/api/view-export/{done['export_filename']}", headers=user["headers"])).status_code == 200

    clock.advance(timedelta(hours=2))  # 25 hours after the uploads
    assert await container.batch().purge_uploads() == 1  # the unused one
    assert await store.upload(None, unused) is None
    assert await store.upload(None, queued_file) is not None  # a queued job still needs its file
    assert (await client.post("/api/batch-jobs", json={"file_id": unused}, headers=user["headers"])).status_code == 404
    assert (await client.get(f"/api/batch-jobs/{queued['id']}", headers=user["headers"])).status_code == 200


# --- every write of a user's files is within the storage allowance (#25 item 1) ------------------

LONG_ROW = {"address": "701 5th Ave, Seattle, WA 98104" + " (a note the client kept)" * 8}


async def _export(client: AsyncClient, headers: dict, rows: int):  # noqa: ANN202
    return await client.post("/api/export", json={"data": [LONG_ROW] * rows}, headers=headers)


async def test_a_client_export_past_the_storage_cap_is_refused_with_413_saying_what_to_delete(
    client: AsyncClient, container: Container
) -> None:
    container.settings.override(settings_for_tests(container.settings().database_url, user_storage_bytes=1500))
    user = await sign_up_and_log_in(client, "client-rows-storage@example.com")
    assert (await _export(client, user["headers"], 1)).status_code == 200
    used = (await _stats(client, user["headers"]))["storage_bytes_used"]

    refused = await _export(client, user["headers"], 6)

    assert refused.status_code == 413 and refused.json()["code"] == "storage_full"
    message = refused.json()["error"]
    assert f"you use {used} bytes of your 1.5 kB and this export needs" in message
    assert "Delete old exports from your Batch Export History, then export again." in message
    assert len((await client.get("/api/list-exported-files", headers=user["headers"])).json()["files"]) == 1
    assert (await _stats(client, user["headers"]))["storage_bytes_used"] == used


async def test_the_legacy_export_and_match_routes_are_rate_limited_like_the_others(
    client: AsyncClient, container: Container
) -> None:
    from application.rate_limit import RequestRateLimit

    container.request_rate_limit.override(providers.Singleton(
        RequestRateLimit, settings=container.system_settings, window=container.request_window, per_minute=2))
    user = await sign_up_and_log_in(client, "legacy-rate@example.com")
    assert (await _export(client, user["headers"], 1)).status_code == 200
    assert (await client.post("/api/match-yelp", json={"data": [LONG_ROW]}, headers=user["headers"])).status_code == 200

    for limited in (await _export(client, user["headers"], 1),
                    await client.post("/api/match-yelp", json={"data": [LONG_ROW]}, headers=user["headers"])):
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
        assert int(limited.headers["Retry-After"]) > 0
    assert len((await client.get("/api/list-exported-files", headers=user["headers"])).json()["files"]) == 1


async def test_a_batch_whose_export_could_never_fit_is_refused_at_its_start_and_charges_nothing(
    client: AsyncClient, container: Container
) -> None:
    size = len(CSV.encode())
    container.settings.override(settings_for_tests(container.settings().database_url, user_storage_bytes=size + 5000))
    container.job_queue.override(providers.Object(_Forget()))
    user = await sign_up_and_log_in(client, "batch-estimate@example.com")

    refused = await _start(client, user["headers"])

    assert refused.status_code == 413 and refused.json()["code"] == "storage_full"
    assert "a batch of 3 rows (its export, estimated) needs" in refused.json()["error"]
    assert "then start it again" in refused.json()["error"]
    stats = await _stats(client, user["headers"])
    assert (stats["batch_rows_used"], stats["current_month_searches"]) == (0, 0)


async def test_a_batch_whose_export_no_longer_fits_at_its_finish_fails_saying_what_to_delete(
    client: AsyncClient, container: Container
) -> None:
    from application.ports.batch import ExportFile
    from tests.api.test_public_api_batches import HeldQueue

    queue = HeldQueue(container)
    container.job_queue.override(providers.Object(queue))
    limit = container.settings().user_storage_bytes
    user = await sign_up_and_log_in(client, "batch-finish-storage@example.com")
    started = await _start(client, user["headers"])
    assert started.status_code == 202, started.text
    # While the job waits, other files take the room its export needs.
    used = (await _stats(client, user["headers"]))["storage_bytes_used"]
    await container.batch_store().add_export(ExportFile(
        id="00000000-0000-0000-0000-000000000001", user_id=user["uid"], name="placed.csv",
        exported_at=datetime.now(UTC), size_bytes=limit - used - 100,
    ))

    await queue.run_all()

    job = (await client.get(f"/api/batch-jobs/{started.json()['job']['id']}", headers=user["headers"])).json()["job"]
    assert (job["status"], job["export_filename"]) == ("failed", None)
    assert job["error"].startswith("The export could not be kept. Storage limit reached: you use ")
    assert "Delete old exports from your Batch Export History, then run the batch again." in job["error"]
    files = (await client.get("/api/list-exported-files", headers=user["headers"])).json()["files"]
    assert [f["name"] for f in files] == ["placed.csv"]
    stats = await _stats(client, user["headers"])
    assert stats["storage_bytes_used"] <= limit
    assert (stats["batch_rows_used"], stats["current_month_searches"]) == (0, 0)  # it gave nothing: charged nothing

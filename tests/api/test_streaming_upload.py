"""Uploads streamed to the file store as they arrive, on SQLite and PostgreSQL: what is stored,
every refusal (which leaves no file and charges nothing), a 1,000,000-row file generated on the
fly and accepted in bounded memory, and the whole batch on an S3-compatible store."""

from __future__ import annotations

import re
import time
import tracemalloc
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from httpx import AsyncClient

from entrypoints.container import Container
from tests.api.test_batch import CSV, _run_batch, _upload
from tests.conftest import sign_up_and_log_in
from tests.integration.test_file_stores import s3_credentials, s3_endpoint  # noqa: F401 - fixtures

HEADER = b"Street Address,City,State,Zip,Country,Policy\r\n"
BOUNDARY = "perilscope-test-boundary"


def stored_files(container: Container) -> list[Path]:
    """The files the local store holds (its partial files' folder aside, which must be empty too)."""
    root = container.settings().files_dir
    return sorted(path for path in root.rglob("*") if path.is_file()) if root.exists() else []


async def form(rows: Iterator[bytes], filename: str = "portfolio.csv") -> AsyncIterator[bytes]:
    """A multipart/form-data body with the file `rows` makes, sent as it is made."""
    yield (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\n"
           "Content-Type: text/csv\r\n\r\n").encode()
    for piece in rows:
        yield piece
    yield f"\r\n--{BOUNDARY}--\r\n".encode()


def generated_rows(count: int, piece_rows: int = 1000) -> Iterator[bytes]:
    """A portfolio of `count` distinct rows, made a piece at a time (never whole)."""
    yield HEADER
    for start in range(0, count, piece_rows):
        yield b"".join(
            b"%d Pine St,Seattle,WA,98101,US,POL-%07d\r\n" % (number, number)
            for number in range(start, min(count, start + piece_rows))
        )


async def stream_upload(client: AsyncClient, headers: dict, rows: Iterator[bytes], filename: str = "portfolio.csv"):  # noqa: ANN201
    return await client.post(
        "/api/upload-csv", content=form(rows, filename), timeout=600,
        headers={**headers, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
    )


async def test_a_streamed_upload_is_stored_as_utf8_text_and_runs(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "stream@example.com")
    latin1 = "Street Address,City,State,Zip,Country\n1 Café Way,Miami,FL,33130,US\n".encode("latin-1")
    answer = await stream_upload(client, user["headers"], iter([latin1[:20], latin1[20:31], latin1[31:]]))
    assert answer.status_code == 200, answer.text
    assert answer.json()["rows"] == 1 and answer.json()["file_path"] == "uploads/portfolio.csv"
    [stored] = stored_files(container)
    assert stored.read_text("utf-8") == latin1.decode("latin-1")  # kept as sent, in UTF-8
    assert stored.relative_to(container.settings().files_dir).parts[:2] == ("uploads", user["uid"])
    usage = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    assert usage["storage_bytes_used"] == stored.stat().st_size

    job = await _run_batch(client, container, user["headers"])  # a job reads it back from the store
    assert job["status"] == "done" and job["total"] == 3
    # The job's chunk inputs are deleted once it is done; the uploads stay until purged.
    # The chunks' inputs are deleted; their Parquet results stay: they are the export (its manifest lists them).
    assert not [path for path in stored_files(container) if "jobs" in path.parts and path.suffix != ".parquet"]
    assert await container.batch().purge_uploads() == 1
    assert len([path for path in stored_files(container) if "uploads" in path.parts]) == 1  # the unused one


CAPS = {"batch_max_rows": 3, "upload_max_bytes": 4096}


@pytest.mark.parametrize("container_settings", [CAPS], ids=["small caps"])
@pytest.mark.parametrize(
    ("case", "content", "status", "message"),
    [
        ("rows cap", HEADER + b"1 Main St,Miami,FL,33130,US,P\n" * 4, 413, "more than 3 address rows"),
        ("bytes cap", HEADER + b"1 Main St,Miami,FL,33130,US," + b"P" * 5000 + b"\n", 413, "larger than 4.0 kB"),
        ("bad header", b"Street,Town\n1 Main St,Miami\n", 400, "Missing required column(s)"),
        ("NUL", HEADER + b"1 Main St,Miami,FL,33130,US,P\x00\n", 400, "line 2 contains binary data"),
        ("column count", HEADER + b"1 Main St,Miami,FL\n", 400, "Line 2 has 3 values but the header has 6 columns"),
    ],
)
async def test_every_refusal_leaves_no_file_and_costs_nothing(
    client: AsyncClient, container: Container, case: str, content: bytes, status: int, message: str
) -> None:
    user = await sign_up_and_log_in(client, f"refused-{uuid.uuid4().hex[:6]}@example.com")
    pieces = [content[start:start + 7] for start in range(0, len(content), 7)]  # cut anywhere
    answer = await stream_upload(client, user["headers"], iter(pieces))
    assert answer.status_code == status and message in answer.json()["error"], (case, answer.text)
    assert stored_files(container) == []
    stats = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    assert (stats["storage_bytes_used"], stats["current_month_searches"]) == (0, 0)


@pytest.mark.parametrize("container_settings", [CAPS], ids=["small caps"])
async def test_a_body_announced_past_the_cap_is_refused_before_it_is_read(
    client: AsyncClient, container: Container
) -> None:
    user = await sign_up_and_log_in(client, "announced@example.com")
    sent: list[int] = []

    async def never_sent() -> AsyncIterator[bytes]:
        sent.append(1)
        yield b"x"

    answer = await client.post(
        "/api/upload-csv", content=never_sent(),
        headers={**user["headers"], "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
                 "Content-Length": str(4096 + 1024 * 1024 + 1)},
    )
    assert answer.status_code == 413 and "larger than 4.0 kB" in answer.json()["error"]
    assert stored_files(container) == []


@pytest.mark.parametrize("container_settings", [{"user_storage_bytes": 3000}], ids=["3000 bytes of storage"])
async def test_the_storage_limit_refuses_an_upload_and_leaves_no_file(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "storage@example.com")
    assert (await _upload(client, user["headers"])).status_code == 200
    kept = stored_files(container)
    answer = await stream_upload(client, user["headers"], generated_rows(100))
    assert answer.status_code == 413 and "Storage limit reached" in answer.json()["error"]
    assert stored_files(container) == kept


async def test_a_form_without_the_file_field_or_cut_short_is_a_clear_400(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "form@example.com")
    other = await client.post("/api/upload-csv", files={"document": ("a.csv", CSV.encode(), "text/csv")},
                              headers=user["headers"])
    assert other.status_code == 400 and "no field `file`" in other.json()["error"]

    async def cut_short() -> AsyncIterator[bytes]:
        async for piece in form(generated_rows(10)):
            if piece.startswith(b"\r\n--"):
                return  # the closing boundary never comes
            yield piece

    cut = await client.post("/api/upload-csv", content=cut_short(),
                            headers={**user["headers"], "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
    assert cut.status_code == 400 and cut.json()["code"] == "invalid_upload"
    assert stored_files(container) == []


MILLION = 1_000_000


def _status_kb(field: str) -> int:
    return int(re.search(rf"{field}:\s+(\d+) kB", Path("/proc/self/status").read_text()).group(1))


@contextmanager
def peak_memory_growth() -> Iterator[list[int]]:
    """Bytes this process's peak resident memory grew by during the block, then the peak itself:
    Linux's peak (VmHWM) reset to the current size first (/proc/self/clear_refs), so the app's own
    work is measured at full speed; where that is not possible, the peak of Python's allocations
    (tracemalloc), twice."""
    measured: list[int] = []
    try:
        Path("/proc/self/clear_refs").write_text("5")
        before = _status_kb("VmRSS")
        yield measured
        measured.extend(((_status_kb("VmHWM") - before) * 1024, _status_kb("VmHWM") * 1024))
    except OSError:
        tracemalloc.start()
        try:
            yield measured
            measured.extend([tracemalloc.get_traced_memory()[1]] * 2)
        finally:
            tracemalloc.stop()


@pytest.mark.parametrize("migrated_database_url", ["sqlite"], indirect=True)
async def test_a_million_row_upload_is_accepted_in_bounded_memory(client: AsyncClient, container: Container) -> None:
    """The file (~48 MB) is generated as it is sent and never held: the test process, which runs
    the app too, grows at its peak by a small part of the file's size."""
    user = await sign_up_and_log_in(client, "million@example.com")
    started = time.perf_counter()
    with peak_memory_growth() as memory:
        answer = await stream_upload(client, user["headers"], generated_rows(MILLION))
    seconds = time.perf_counter() - started
    assert answer.status_code == 200, answer.text
    assert answer.json()["rows"] == MILLION
    [stored] = stored_files(container)
    size = stored.stat().st_size
    assert size > 45 * 1024 * 1024
    growth, peak = memory
    print(f"\n1,000,000-row upload: {size / 1e6:.1f} MB in {seconds:.1f} s; the process's peak memory "
          f"{peak / 1e6:.0f} MB, {growth / 1e6:.1f} MB above its size before the upload")
    assert growth < size / 4


async def test_an_upload_kept_in_the_database_before_the_file_store_still_runs(
    client: AsyncClient, container: Container
) -> None:
    """Uploads of before migration 0015 have their text in the database and no file key."""
    from datetime import UTC, datetime

    from application.ports.batch import UploadedFile

    user = await sign_up_and_log_in(client, "legacy@example.com")
    legacy = UploadedFile(id=str(uuid.uuid4()), user_id=user["uid"], name="old.csv", row_count=3,
                          created_at=datetime.now(UTC), size_bytes=len(CSV.encode()), content=CSV)
    assert await container.batch_store().add_upload(legacy, 10 * 1024 * 1024)
    started = await client.post("/api/batch-jobs", json={"file_id": legacy.id}, headers=user["headers"])
    assert started.status_code == 202, started.text
    await container.job_queue().drain()
    job = (await client.get(f"/api/batch-jobs/{started.json()['job']['id']}", headers=user["headers"])).json()["job"]
    assert job["status"] == "done" and job["done"] == 3
    assert await container.batch().purge_uploads() == 1  # no file to delete, and no error for it

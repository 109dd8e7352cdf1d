"""The distributed queue for real: Redis at 127.0.0.1:6379 and a Taskiq worker in its own process."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import delete

from adapters.db.account_tables import UserRow
from application.ports.accounts import AccessClaims
from application.ports.batch import BatchJob
from domain.accounts import Role
from entrypoints.container import Container, build_container
from tests.conftest import IN_CI, TEST_REDIS_URL, settings_for_tests
from tests.fakes import collected
from tests.processes import free_port, wait_until

REDIS_URL = TEST_REDIS_URL  # a database of this test process's own
ROOT = Path(__file__).resolve().parents[2]
METRICS_TOKEN = "worker-metrics-token-0123456789"
CSV = b"Street Address,City,State,Zip,Country\n701 5th Ave,Seattle,WA,98104,US\n100 Biscayne Blvd,Miami,FL,33130,US\n"


def _redis_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=2):
            return True
    except OSError:
        return False


@dataclass
class WorkerRun:
    container: Container
    worker: subprocess.Popen
    log_path: Path
    email: str

    async def job_done(self) -> tuple[AccessClaims, BatchJob]:
        """A new user's two-row job, run by the worker process to its end."""
        user = await self.container.accounts().create_user(self.email, "Str0ng!pass")
        caller = AccessClaims(user.id)
        upload = await self.container.batch().upload(caller, "remote.csv", CSV)
        job = await self.container.batch().start(caller, upload.id)
        for _ in range(900):  # up to 180 s for the worker to start and finish (a busy CI machine is slow)
            job = await self.container.batch().job(caller, job.id)
            if job.status in ("done", "failed"):
                break
            await asyncio.sleep(0.2)
        assert job.status == "done", (job, self.log_path.read_text(errors="replace")[-3000:])
        return caller, job


@contextlib.asynccontextmanager
async def worker_run(database_url: str, tmp_path: Path, env: dict[str, str | None], *args: str
                     ) -> AsyncIterator[WorkerRun]:
    """`perilscope worker *args` in a process of its own, on a queue of its own, beside a container
    that sends it jobs; `env` adds to its environment (None: unset)."""
    if not _redis_up():
        if IN_CI:
            pytest.fail("Redis at 127.0.0.1:6379 is required under CI=true")
        pytest.skip("Redis at 127.0.0.1:6379 is unavailable")
    queue_name = f"perilscope:test:{uuid.uuid4().hex[:8]}"  # no other worker can take this run's jobs
    env = {**os.environ, "DATABASE_URL": database_url, "PERILSCOPE_ENV": "test", "PERILSCOPE_JOB_QUEUE": "taskiq",
           "REDIS_URL": REDIS_URL, "PERILSCOPE_JOB_QUEUE_NAME": queue_name, "PERILSCOPE_LOG_LEVEL": "WARNING",
           "PERILSCOPE_FILES_DIR": str(tmp_path / "files"), **env}  # the worker's file store is the test's
    env = {name: value for name, value in env.items() if value is not None}
    log_path = tmp_path / "worker.log"
    log_file = log_path.open("wb")  # a file, not a pipe: an undrained pipe would stall the worker
    worker = subprocess.Popen(
        [str(Path(sys.executable).parent / "perilscope"), "worker", *args], env=env, cwd=ROOT, stdout=log_file,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, so the test can stop the worker and its children
    )
    container = build_container(settings_for_tests(database_url, job_queue="taskiq", redis_url=REDIS_URL,
                                                   job_queue_name=queue_name, files_dir=tmp_path / "files"))
    email = f"worker-{uuid.uuid4().hex[:8]}@example.com"
    try:
        yield WorkerRun(container, worker, log_path, email)
    finally:
        # taskiq's process manager can linger after SIGTERM, so the whole group is killed.
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        log_file.close()
        async with container.engine().begin() as connection:
            await connection.execute(delete(UserRow).where(UserRow.email == email))
        await container.job_queue().stop()
        await container.engine().dispose()


async def test_a_worker_process_runs_the_job(migrated_database_url: str, tmp_path: Path) -> None:
    async with worker_run(migrated_database_url, tmp_path, {}) as run:
        caller, job = await run.job_done()
        _, pieces = await run.container.batch().export_csv(caller, job.export_name)
        content = (await collected(pieces)).decode()
        assert content.count("701 5th Ave") >= 1 and "98POINT6 INC" in content


def _two_free_ports() -> int:
    """A port whose next port is free too."""
    while True:
        port = free_port()
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port


def _rows_processed(port: int) -> float:
    answer = httpx.get(f"http://127.0.0.1:{port}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"},
                       timeout=5)
    assert answer.status_code == 200, answer.text
    [family] = [f for f in text_string_to_metric_families(answer.text) if f.name == "perilscope_batch_rows_processed"]
    return sum(sample.value for sample in family.samples if sample.name.endswith("_total"))


async def test_worker_processes_serve_their_own_metrics_to_the_token(migrated_database_url: str, tmp_path: Path) -> None:
    """`perilscope worker --workers 2` with PERILSCOPE_WORKER_METRICS_PORT: each process on its own
    port, answering only the metrics bearer; together they count every row they ran."""
    port = _two_free_ports()
    env = {"PERILSCOPE_BATCH_CHUNK_ROWS": "1", "PERILSCOPE_WORKER_METRICS_PORT": str(port),
           "PERILSCOPE_WORKER_METRICS_HOST": "127.0.0.1", "PERILSCOPE_METRICS_TOKEN": METRICS_TOKEN,
           "PROMETHEUS_MULTIPROC_DIR": None}  # unset: each process its own registry
    async with worker_run(migrated_database_url, tmp_path, env, "--workers", "2") as run:
        for served in (port, port + 1):
            wait_until(lambda served=served: httpx.get(f"http://127.0.0.1:{served}/metrics", timeout=2).status_code == 401,
                       run.worker, run.log_path, f"the worker metrics on port {served}")
        refused = httpx.get(f"http://127.0.0.1:{port}/metrics", headers={"Authorization": "Bearer wrong"}, timeout=5)
        assert refused.status_code == 401 and "perilscope_" not in refused.text
        assert _rows_processed(port) + _rows_processed(port + 1) == 0
        await run.job_done()
        assert _rows_processed(port) + _rows_processed(port + 1) == 2  # two chunks of one row, wherever they ran

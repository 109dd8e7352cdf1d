"""The distributed queue for real: Redis at 127.0.0.1:6379 and a Taskiq worker in its own process."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from sqlalchemy import delete

from adapters.db.account_tables import UserRow
from application.ports.accounts import AccessClaims
from domain.accounts import Role
from entrypoints.container import build_container
from tests.conftest import IN_CI, settings_for_tests
from tests.fakes import collected

REDIS_URL = "redis://127.0.0.1:6379/15"  # a database of its own, away from anything else on this Redis
ROOT = Path(__file__).resolve().parents[2]
CSV = b"Street Address,City,State,Zip,Country\n701 5th Ave,Seattle,WA,98104,US\n100 Biscayne Blvd,Miami,FL,33130,US\n"


def _redis_up() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=2):
            return True
    except OSError:
        return False


async def test_a_worker_process_runs_the_job(migrated_database_url: str, tmp_path: Path) -> None:
    if not _redis_up():
        if IN_CI:
            pytest.fail("Redis at 127.0.0.1:6379 is required under CI=true")
        pytest.skip("Redis at 127.0.0.1:6379 is unavailable")
    queue_name = f"perilscope:test:{uuid.uuid4().hex[:8]}"  # no other worker can take this run's jobs
    env = {**os.environ, "DATABASE_URL": migrated_database_url, "PERILSCOPE_ENV": "test", "PERILSCOPE_JOB_QUEUE": "taskiq",
           "REDIS_URL": REDIS_URL, "PERILSCOPE_JOB_QUEUE_NAME": queue_name, "PERILSCOPE_LOG_LEVEL": "WARNING",
           "PERILSCOPE_FILES_DIR": str(tmp_path / "files")}  # the worker's file store is the test's
    log_path = tmp_path / "worker.log"
    log_file = log_path.open("wb")  # a file, not a pipe: an undrained pipe would stall the worker
    worker = subprocess.Popen(
        [str(Path(sys.executable).parent / "perilscope"), "worker"], env=env, cwd=ROOT, stdout=log_file, stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, so the test can stop the worker and its children
    )
    container = build_container(settings_for_tests(migrated_database_url, job_queue="taskiq", redis_url=REDIS_URL,
                                                   job_queue_name=queue_name, files_dir=tmp_path / "files"))
    email = f"worker-{uuid.uuid4().hex[:8]}@example.com"
    try:
        user = await container.accounts().create_user(email, "Str0ng!pass")
        caller = AccessClaims(user.id)
        upload = await container.batch().upload(caller, "remote.csv", CSV)
        job = await container.batch().start(caller, upload.id)

        for _ in range(300):  # up to 60 s for the worker to start and finish
            job = await container.batch().job(caller, job.id)
            if job.status in ("done", "failed"):
                break
            await asyncio.sleep(0.2)
        assert job.status == "done", (job, log_path.read_text(errors="replace")[-3000:])
        export = await container.batch().export(caller, job.export_name)
        content = (await collected(container.file_store().read(export.csv_key))).decode()
        assert content.count("701 5th Ave") >= 1 and "98POINT6 INC" in content
    finally:
        # taskiq's process manager can linger after SIGTERM, so the whole group is killed.
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        log_file.close()
        async with container.engine().begin() as connection:
            await connection.execute(delete(UserRow).where(UserRow.email == email))
        await container.job_queue().stop()
        await container.engine().dispose()

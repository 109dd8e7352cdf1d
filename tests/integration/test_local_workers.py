"""The embedded default's local worker processes (entrypoints/local_workers.py): real processes
on the server's SQLite database and file store share a job's chunks with the server, every row
once and in order; they stop when told and when their server is gone."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy import select

from application.ports.accounts import AccessClaims
from domain.accounts import Role
from entrypoints.container import build_container
from adapters.db.batch_tables import BatchChunkRow
from entrypoints.local_workers import READY, LocalWorkers, worker_environment
from tests.conftest import STRONG_PASSWORD, settings_for_tests
from tests.fakes import stored_facts
from tests.integration.test_chunk_workers import ZIPS

pytestmark = pytest.mark.parametrize("migrated_database_url", ["sqlite"], indirect=True)

ROWS, CHUNK_ROWS = 8_000, 200  # 40 chunks, about as long each as the poll: enough to share


def _input() -> bytes:
    lines = ["Street Address,City,State,Zip,Ref"]
    lines += [f"{100 + n // len(ZIPS)} Pine St,Seattle,WA,{ZIPS[n % len(ZIPS)]},{n}" for n in range(ROWS)]
    return ("\n".join(lines) + "\n").encode()


async def _until(what: str, check, seconds: float = 120) -> None:  # noqa: ANN001
    deadline = time.monotonic() + seconds
    while not await check():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        await asyncio.sleep(0.1)


async def test_a_local_worker_shares_a_job_with_the_server(migrated_database_url: str, tmp_path: Path) -> None:
    settings = settings_for_tests(migrated_database_url, batch_chunk_rows=CHUNK_ROWS, files_dir=tmp_path / "files",
                                  local_workers=1)
    container = build_container(settings)
    email = f"local-{uuid.uuid4().hex[:8]}@example.com"
    user = await container.accounts().create_user(email, STRONG_PASSWORD)
    await container.accounts().set_role(email, Role.ADMIN)
    caller = AccessClaims(user.id)
    log = tmp_path / "worker.log"
    workers = LocalWorkers.for_settings(settings, output=log.open("wb"))
    await workers.start()
    try:
        [worker] = workers.processes

        async def ready() -> bool:
            assert worker.poll() is None, log.read_text(errors="replace")
            return READY in log.read_text(errors="replace")

        await _until("the worker to load its data", ready)  # else the server could run every chunk alone
        upload = await container.batch().upload(caller, "book.csv", _input())
        job = await container.batch().start(caller, upload.id)
        seen: list[int] = []

        async def ended() -> bool:
            await container.job_queue().drain()  # the server's own chunk tasks
            current = await container.batch().job(caller, job.id)
            seen.append(current.done)
            return current.status in ("done", "failed")

        await _until("the job to end", ended)
        assert seen == sorted(seen), "progress never goes back"
        finished = await container.batch().job(caller, job.id)
        assert (finished.status, finished.done, finished.total) == ("done", ROWS, ROWS)
        export = await container.batch().export(caller, finished.export_name)
        facts = await stored_facts(container.file_store(), export, ["input_4"])
        assert export.detail_columns[4] == "Ref" and [row["input_4"] for row in facts] == [str(n) for n in range(ROWS)]
        owners = await _chunk_owners(container, job.id)
        assert len(owners) == ROWS // CHUNK_ROWS
        # At least the two: on a loaded machine a chunk whose lease ran out is taken over by a third claimant.
        assert len(set(owners)) >= 2, f"the server and its worker both ran chunks: {sorted(set(owners))}"
        assert worker.poll() is None, "the worker keeps running, waiting for the next job"
    finally:
        await workers.stop()
    assert worker.returncode == 0, "stopped by SIGTERM, it finished its chunk and exited cleanly"
    await container.engine().dispose()


async def _chunk_owners(container, job_id: str) -> list[str]:  # noqa: ANN001
    async with container.engine().connect() as connection:
        rows = await connection.execute(select(BatchChunkRow.lease_owner).where(BatchChunkRow.job_id == job_id))
        return list(rows.scalars())


def test_a_local_worker_whose_server_is_gone_stops(migrated_database_url: str, tmp_path: Path) -> None:
    settings = settings_for_tests(migrated_database_url, files_dir=tmp_path / "files")
    # A stand-in server: a process that starts the worker, then dies with SIGKILL (no goodbye).
    launcher = subprocess.Popen(
        [sys.executable, "-c",
         "import subprocess, sys, time\n"
         "p = subprocess.Popen([sys.executable, '-m', 'entrypoints.local_workers', str(__import__('os').getpid())])\n"
         "print(p.pid, flush=True)\n"
         "time.sleep(600)\n"],
        env=worker_environment(settings), stdout=subprocess.PIPE, text=True,
    )
    worker_pid = int(launcher.stdout.readline())
    launcher.send_signal(signal.SIGKILL)
    launcher.wait(timeout=10)
    deadline = time.monotonic() + 60
    while _alive(worker_pid):
        assert time.monotonic() < deadline, "the orphaned worker kept running"
        time.sleep(0.2)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # An exited child of a dead parent is reaped by init; until then it is a zombie.
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"


async def test_a_local_worker_killed_is_reaped_and_another_started(migrated_database_url: str, tmp_path: Path) -> None:
    from prometheus_client import REGISTRY

    settings = settings_for_tests(migrated_database_url, files_dir=tmp_path / "files", local_workers=1)
    workers = LocalWorkers.for_settings(settings, output=(tmp_path / "worker.log").open("wb"))
    await workers.start()
    try:
        [killed] = workers.processes
        killed.send_signal(signal.SIGKILL)

        async def replaced() -> bool:
            return [p.pid for p in workers.processes] not in ([], [killed.pid]) and workers.running == 1

        await _until("another worker to start", replaced, seconds=30)
        assert not Path(f"/proc/{killed.pid}").exists(), "the killed worker was reaped, not left defunct"
        assert workers.restarts == 1
        assert REGISTRY.get_sample_value("perilscope_local_workers_running") == 1
        assert REGISTRY.get_sample_value("perilscope_local_worker_restarts_total") >= 1
    finally:
        await workers.stop()
    assert workers.processes == []

"""Chunked jobs across real `perilscope worker` processes on Taskiq/Redis and PostgreSQL: two
workers share one job, and a worker killed with SIGKILL mid-job leaves nothing lost or doubled.
Every row of the export is checked: once each, in input order, and one export per job."""

from __future__ import annotations

import asyncio
import io
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from sqlalchemy import delete, func, select

from adapters.db.account_tables import UserRow
from adapters.db.batch_tables import BatchChunkRow, ExportFileRow
from application.ports.accounts import AccessClaims
from application.ports.results import read_manifest
from domain.accounts import Role
from entrypoints.container import Container, build_container
from tests.conftest import STRONG_PASSWORD, _unavailable, settings_for_tests
from tests.fakes import collected
from tests.integration.test_taskiq_worker import REDIS_URL, ROOT, _redis_up

# Workers on many machines share PostgreSQL; the embedded default (SQLite) runs jobs in process.
pytestmark = pytest.mark.parametrize("migrated_database_url", ["postgresql"], indirect=True)

ROWS, CHUNK_ROWS = 12_000, 400  # 30 chunks: long enough to share and to kill a worker in
LEASE_SECONDS, SWEEP_SECONDS = 3, 1  # short, so a dead worker's chunk comes back within seconds
ZIPS = ("98104", "98101", "98121", "98109", "98122", "98102")


def _input(rows: int) -> bytes:
    """Unique addresses (no answer reused), each with its position in a column of its own."""
    lines = ["Street Address,City,State,Zip,Ref"]
    lines += [f"{100 + n // len(ZIPS)} Pine St,Seattle,WA,{ZIPS[n % len(ZIPS)]},{n}" for n in range(rows)]
    return ("\n".join(lines) + "\n").encode()


@dataclass
class Cluster:
    container: Container
    env: dict[str, str]
    tmp: Path
    caller: AccessClaims
    workers: list[subprocess.Popen]

    def start_worker(self, name: str) -> subprocess.Popen:
        log = (self.tmp / f"{name}.log").open("wb")  # a file, not a pipe: an undrained pipe stalls it
        worker = subprocess.Popen(
            [str(Path(sys.executable).parent / "perilscope"), "worker"], env=self.env, cwd=ROOT, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,  # its own group: killed whole, as a machine dies
        )
        self.workers.append(worker)
        return worker

    async def wait_until_listening(self, *names: str) -> None:
        """Until each worker has loaded its data and listens (taskiq says so in its log)."""

        async def listening() -> bool:
            return all("Listening started" in (self.tmp / f"{name}.log").read_text(errors="replace") for name in names)

        await self.wait_for("the workers to listen", listening)

    def logs(self) -> str:
        return "\n".join(path.read_text(errors="replace")[-2000:] for path in self.tmp.glob("*.log"))

    async def chunk_owners(self, job_id: str) -> dict[int, str]:
        async with self.container.engine().connect() as connection:
            rows = await connection.execute(
                select(BatchChunkRow.idx, BatchChunkRow.lease_owner)
                .where(BatchChunkRow.job_id == job_id, BatchChunkRow.status == "done")
            )
            return dict(rows.all())

    async def wait_for(self, what: str, check: Callable[[], object], seconds: float = 150) -> None:
        deadline = time.monotonic() + seconds
        while not await check():
            assert time.monotonic() < deadline, f"waited {seconds} s for {what}\n{self.logs()}"
            await asyncio.sleep(0.1)

    async def start_job(self) -> str:
        batch = self.container.batch()
        upload = await batch.upload(self.caller, "book.csv", _input(ROWS))
        return (await batch.start(self.caller, upload.id)).id

    async def job(self, job_id: str):  # noqa: ANN201
        return await self.container.batch().job(self.caller, job_id)

    async def wait_until_ended(self, job_id: str) -> None:
        """Polls the job until it ends, checking on the way that its progress never goes back."""
        seen: list[int] = []

        async def ended() -> bool:
            job = await self.job(job_id)
            seen.append(job.done)
            return job.status in ("done", "failed")

        await self.wait_for("the job to end", ended)
        assert seen == sorted(seen), "progress went backwards"

    async def assert_every_row_once_in_order(self, job_id: str) -> None:
        job = await self.job(job_id)
        assert (job.status, job.done, job.total) == ("done", ROWS, ROWS), self.logs()
        async with self.container.engine().connect() as connection:
            exports = await connection.scalar(select(func.count()).where(ExportFileRow.job_id == job_id))
        assert exports == 1
        export = await self.container.batch().export(self.caller, job.export_name)
        files = self.container.file_store()
        manifest = await read_manifest(files, export.manifest_key)
        assert manifest.rows == ROWS and manifest.user_columns[4] == "Ref"
        facts = [row for chunk in manifest.chunks for row in pq.read_table(
            io.BytesIO(await collected(files.read(chunk.facts))), columns=["row", "input_4", "address"]).to_pylist()]
        assert [row["input_4"] for row in facts] == [str(n) for n in range(ROWS)]
        assert [row["row"] for row in facts] == list(range(2, ROWS + 2))
        assert sum("Pine St, Seattle, WA" in row["address"] for row in facts) == ROWS


@pytest.fixture
async def cluster(migrated_database_url: str, tmp_path: Path) -> AsyncIterator[Cluster]:
    if not _redis_up():
        _unavailable("Redis at 127.0.0.1:6379 is unavailable")
    queue_name = f"perilscope:test:{uuid.uuid4().hex[:8]}"  # no other worker can take this run's tasks
    env = {**os.environ, "DATABASE_URL": migrated_database_url, "PERILSCOPE_ENV": "test",
           "PERILSCOPE_JOB_QUEUE": "taskiq", "REDIS_URL": REDIS_URL, "PERILSCOPE_JOB_QUEUE_NAME": queue_name,
           "PERILSCOPE_LOG_LEVEL": "WARNING", "PERILSCOPE_BATCH_CHUNK_ROWS": str(CHUNK_ROWS),
           "PERILSCOPE_BATCH_LEASE_SECONDS": str(LEASE_SECONDS), "PERILSCOPE_BATCH_SWEEP_SECONDS": str(SWEEP_SECONDS),
           "PERILSCOPE_FILES_DIR": str(tmp_path / "files")}  # the workers' file store is the test's
    container = build_container(settings_for_tests(
        migrated_database_url, job_queue="taskiq", redis_url=REDIS_URL, job_queue_name=queue_name,
        batch_chunk_rows=CHUNK_ROWS, batch_lease_seconds=LEASE_SECONDS, files_dir=tmp_path / "files",
    ))
    email = f"workers-{uuid.uuid4().hex[:8]}@example.com"
    user = await container.accounts().create_user(email, STRONG_PASSWORD)
    await container.accounts().set_role(email, Role.ADMIN)  # no monthly row limit
    made = Cluster(container, env, tmp_path, AccessClaims(user.id), [])
    try:
        yield made
    finally:
        for worker in made.workers:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGKILL)  # taskiq's process manager can linger after SIGTERM
            worker.wait(timeout=10)
        async with container.engine().begin() as connection:
            await connection.execute(delete(UserRow).where(UserRow.email == email))
        await container.job_queue().stop()
        await container.engine().dispose()


async def test_two_worker_processes_share_one_job(cluster: Cluster) -> None:
    cluster.start_worker("a")
    cluster.start_worker("b")
    await cluster.wait_until_listening("a", "b")
    job_id = await cluster.start_job()
    await cluster.wait_until_ended(job_id)
    owners = await cluster.chunk_owners(job_id)
    assert sorted(owners) == list(range(ROWS // CHUNK_ROWS))
    ran = {owner: sum(1 for o in owners.values() if o == owner) for owner in set(owners.values())}
    # Shared, not one worker taking every task it can read: each runs a fair part (half, give or
    # take the machine's noise).
    assert len(ran) == 2 and min(ran.values()) >= len(owners) // 4, f"each worker runs its share: {ran}\n{cluster.logs()}"
    await cluster.assert_every_row_once_in_order(job_id)


async def test_a_worker_killed_mid_job_leaves_every_row_exactly_once(cluster: Cluster) -> None:
    doomed = cluster.start_worker("doomed")
    await cluster.wait_until_listening("doomed")
    job_id = await cluster.start_job()

    async def some_chunks_done() -> bool:
        return len(await cluster.chunk_owners(job_id)) >= 3

    await cluster.wait_for("some chunks to be done", some_chunks_done)
    os.killpg(doomed.pid, signal.SIGKILL)  # mid-job, mid-chunk most likely: no goodbye
    doomed.wait(timeout=10)
    before = await cluster.job(job_id)
    assert before.status == "running" and before.done < ROWS, "the job ended before the kill: make it longer"

    cluster.start_worker("survivor")
    await cluster.wait_until_ended(job_id)
    owners = await cluster.chunk_owners(job_id)
    assert len(set(owners.values())) == 2 and sorted(owners) == list(range(ROWS // CHUNK_ROWS))
    await cluster.assert_every_row_once_in_order(job_id)

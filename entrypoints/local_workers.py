"""Local worker processes for the embedded default: `perilscope serve` on SQLite with the
in-process queue starts PERILSCOPE_LOCAL_WORKERS of them beside itself, so a big batch uses
every core of one machine without Redis.

A chunk is mostly Python (the lookup and its records), so threads would share one core; a
process of its own runs chunks in parallel with the server's. Chunks are claimed in the database
(application/batch_runner.py), so a local worker needs no queue: it runs chunks while any wait,
and looks again every POLL_SECONDS when none does. The server's sweeper queues again the chunks
of a worker that died; a worker whose server has gone stops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
from typing import IO

from dependency_injector import providers

from application.ports.batch import QueueDepth
from entrypoints.settings import PROJECT_ROOT, Settings

log = logging.getLogger("perilscope.local_workers")
POLL_SECONDS = 0.5
READY = "local worker ready"
STOP_SECONDS = 10.0  # a chunk is a second or two: time to finish the one in hand


def worker_environment(settings: Settings) -> dict[str, str]:
    """The server's environment, with the settings that make the worker use the server's own
    database and files even when the server's settings did not come from the environment."""
    return {
        **os.environ,
        "DATABASE_URL": settings.database_url,
        "PERILSCOPE_FILES_DIR": str(settings.files_dir),
        "PERILSCOPE_DATA_DIR": str(settings.data_dir),
        "PERILSCOPE_VAR_DIR": str(settings.var_dir),
        "PERILSCOPE_BATCH_CHUNK_ROWS": str(settings.batch_chunk_rows),
        "PERILSCOPE_LOCAL_WORKERS": "0",  # a worker starts no workers
    }


class LocalWorkers:
    """The server's local worker processes: started and stopped with it."""

    def __init__(self, count: int, environment: dict[str, str], output: IO[bytes] | None = None) -> None:
        self._count = count
        self._environment = environment
        self._output = output  # their log; None: the server's own
        self.processes: list[subprocess.Popen[bytes]] = []

    @classmethod
    def for_settings(cls, settings: Settings, output: IO[bytes] | None = None) -> LocalWorkers:
        # With the Taskiq queue, workers are `perilscope worker` processes, started on their own.
        count = settings.local_workers if settings.job_queue == "inprocess" else 0
        return cls(count, worker_environment(settings), output)

    async def start(self) -> None:
        for _ in range(self._count):
            self.processes.append(subprocess.Popen(
                [sys.executable, "-m", "entrypoints.local_workers", str(os.getpid())],
                env=self._environment, cwd=PROJECT_ROOT, stdout=self._output, stderr=self._output,
            ))
        if self.processes:
            log.info("local workers started", extra={"pids": [p.pid for p in self.processes]})

    async def stop(self) -> None:
        for process in self.processes:
            process.terminate()  # the worker finishes its chunk in hand, then exits
        for process in self.processes:
            try:
                await asyncio.to_thread(process.wait, STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()  # its chunk's lease runs out and another process runs it again
                await asyncio.to_thread(process.wait)
        self.processes = []


class ClaimedFromTheDatabase:
    """A local worker's JobQueue: sends no task (its loop claims whatever chunk is queued)."""

    async def depth(self) -> QueueDepth:
        return QueueDepth(waiting=0, taken=0)

    async def enqueue(self, job_id: str) -> None:
        return None

    async def enqueue_chunks(self, count: int) -> None:
        return None


async def work(server_pid: int) -> None:
    """Run chunks while any wait, until told to stop or the server is gone."""
    from entrypoints.container import build_container
    from entrypoints.logging_setup import configure_logging

    settings = Settings.from_env()
    configure_logging(settings.log_level)
    container = build_container(settings)
    # Tasks are the server's: this process claims queued chunks by itself, so what it would queue
    # (a failed chunk's retry) goes nowhere but the database, where its loop finds it.
    container.job_queue.override(providers.Object(ClaimedFromTheDatabase()))
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, stopping.set)
    # Loaded before the first claim, so the first chunk's lease is not spent loading.
    await container.reference_index().data()
    log.info(READY, extra={"server": server_pid})
    batch = container.batch()
    try:
        while not stopping.is_set() and os.getppid() == server_pid:
            # Jobs are split by the server, whose in-process queue then sends it the chunk tasks:
            # were a worker to split, its tasks would be its own, and the server's core idle.
            if await batch.run_chunk(split_waiting=False):
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), POLL_SECONDS)
    finally:
        await container.engine().dispose()


if __name__ == "__main__":
    from entrypoints.memory import limit_malloc_arenas

    limit_malloc_arenas()  # before any thread starts
    asyncio.run(work(int(sys.argv[1])))

"""Local worker processes for the embedded default: `perilscope serve` on SQLite with the
in-process queue starts PERILSCOPE_LOCAL_WORKERS of them beside itself, so a big batch uses
every core of one machine without Redis.

A chunk is mostly Python (the lookup and its records), so threads would share one core; a
process of its own runs chunks in parallel with the server's. Chunks are claimed in the database
(application/batch_runner.py), so a local worker needs no queue: it runs chunks while any wait,
and looks again every POLL_SECONDS when none does. The server's sweeper queues again the chunks
of a worker that died, and the server reaps it and starts another, waiting longer after each
death in quick succession; a worker whose server has gone stops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import IO

from dependency_injector import providers

from adapters.clock import SystemClock
from adapters.metrics.prometheus import LOCAL_WORKER_RESTARTS, LOCAL_WORKERS_RUNNING
from application.ports.batch import QueueDepth
from application.ports.clock import Clock
from entrypoints.settings import PROJECT_ROOT, Settings

log = logging.getLogger("perilscope.local_workers")
POLL_SECONDS = 0.5
READY = "local worker ready"
STOP_SECONDS = 10.0  # a chunk is a second or two: time to finish the one in hand
CHECK_SECONDS = 1.0  # how often the server looks for a worker that died
# Waits before starting a worker again after deaths in a row: a worker that dies at once (a broken
# install, a full disk) is not restarted in a tight loop. One that ran STEADY long starts afresh.
RESTART_BACKOFF_SECONDS = (1, 2, 4, 8, 16, 32, 60)
STEADY = timedelta(seconds=60)


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


@dataclass
class _Slot:
    """One of the configured workers: its process, or when the next is due after a death."""

    process: subprocess.Popen[bytes] | None = None
    started_at: datetime | None = None
    deaths_in_a_row: int = 0
    restart_at: datetime | None = None


class LocalWorkers:
    """The server's local worker processes: started and stopped with it, and started again
    (after a back-off) when one dies, so the embedded server never runs its chunks alone for want
    of a restart. `running` is their number, also on /metrics (perilscope_local_workers_running)."""

    def __init__(self, count: int, environment: dict[str, str], output: IO[bytes] | None = None,
                 clock: Clock | None = None, spawn: Callable[[], subprocess.Popen[bytes]] | None = None) -> None:
        self._environment = environment
        self._output = output  # their log; None: the server's own
        self._clock = clock or SystemClock()
        self._spawn = spawn or self._start_process
        self._slots = [_Slot() for _ in range(count)]
        self._watch: asyncio.Task[None] | None = None
        self.restarts = 0

    @classmethod
    def for_settings(cls, settings: Settings, output: IO[bytes] | None = None) -> LocalWorkers:
        # With the Taskiq queue, workers are `perilscope worker` processes, started on their own.
        count = settings.local_workers if settings.job_queue == "inprocess" else 0
        return cls(count, worker_environment(settings), output)

    @property
    def processes(self) -> list[subprocess.Popen[bytes]]:
        return [slot.process for slot in self._slots if slot.process is not None]

    @property
    def running(self) -> int:
        return sum(process.poll() is None for process in self.processes)

    async def start(self) -> None:
        if not self._slots:
            return
        self.check()
        log.info("local workers started", extra={"pids": [p.pid for p in self.processes]})
        self._watch = asyncio.create_task(self._supervise(), name="local-workers")

    def check(self) -> None:
        """Reap the workers that died (none is left defunct) and start those whose wait is over."""
        now = self._clock.now()
        for slot in self._slots:
            if slot.process is not None and slot.process.poll() is not None:
                self._died(slot, now)
            if slot.process is None and (slot.restart_at is None or now >= slot.restart_at):
                if slot.restart_at is not None:
                    self.restarts += 1
                    LOCAL_WORKER_RESTARTS.inc()
                slot.process, slot.started_at, slot.restart_at = self._spawn(), now, None
        LOCAL_WORKERS_RUNNING.set(self.running)

    def _died(self, slot: _Slot, now: datetime) -> None:
        ran_steadily = slot.started_at is not None and now - slot.started_at >= STEADY
        slot.deaths_in_a_row = 1 if ran_steadily else slot.deaths_in_a_row + 1
        wait = RESTART_BACKOFF_SECONDS[min(slot.deaths_in_a_row, len(RESTART_BACKOFF_SECONDS)) - 1]
        log.warning("local worker died; another starts after a wait", extra={
            "pid": slot.process.pid, "returncode": slot.process.returncode, "wait_seconds": wait})
        slot.process, slot.restart_at = None, now + timedelta(seconds=wait)

    async def _supervise(self) -> None:
        while True:
            await self._clock.sleep(CHECK_SECONDS)
            self.check()

    def _start_process(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "entrypoints.local_workers", str(os.getpid())],
            env=self._environment, cwd=PROJECT_ROOT, stdout=self._output, stderr=self._output,
        )

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
            self._watch = None
        processes = self.processes
        for process in processes:
            process.terminate()  # the worker finishes its chunk in hand, then exits
        for process in processes:
            try:
                await asyncio.to_thread(process.wait, STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()  # its chunk's lease runs out and another process runs it again
                await asyncio.to_thread(process.wait)
        self._slots = [_Slot() for _ in self._slots]
        LOCAL_WORKERS_RUNNING.set(0)


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

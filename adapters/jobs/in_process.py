"""The embedded job queue: jobs run as asyncio tasks in the server process (SQLite default)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from application.ports.batch import QueueDepth
from application.ports.metrics import Metrics, NoMetrics

log = logging.getLogger("perilscope.jobs")


class JobRunner(Protocol):
    async def run(self, job_id: str) -> None: ...
    async def run_chunk(self) -> None: ...


class InProcessJobQueue:
    def __init__(self, service: Callable[[], JobRunner], concurrency: int = 1, metrics: Metrics | None = None) -> None:
        self._service = service
        self._slots = asyncio.Semaphore(concurrency)  # one batch at a time keeps lookups responsive
        self._tasks: set[asyncio.Task[None]] = set()
        self._running = 0
        self._metrics = metrics or NoMetrics()

    async def enqueue(self, job_id: str) -> None:
        self._spawn(lambda: self._service().run(job_id), f"batch-job-{job_id}")

    async def enqueue_chunks(self, count: int) -> None:
        for _ in range(count):
            self._spawn(lambda: self._service().run_chunk(), "batch-chunk")

    def _spawn(self, work: Callable[[], Coroutine[Any, Any, Any]], name: str) -> None:
        task = asyncio.create_task(self._guarded(work), name=name)
        self._tasks.add(task)  # keep a reference until it ends
        task.add_done_callback(self._ended)
        self._report()

    def _ended(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._report()

    async def depth(self) -> QueueDepth:
        return QueueDepth(waiting=len(self._tasks) - self._running, taken=self._running)

    def _report(self) -> None:
        self._metrics.job_queue_changed(waiting=len(self._tasks) - self._running, running=self._running)

    async def _guarded(self, work: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        # The coroutine is made once the task has its slot: a task cancelled while it waits (the
        # server stopping) leaves no coroutine that was never awaited.
        async with self._slots:
            self._running += 1
            self._report()
            try:
                await work()
            except Exception:  # the job and chunk rows say what failed; the sweeper carries on
                log.exception("batch task failed")
            finally:
                self._running -= 1

    async def drain(self) -> None:
        """Wait for every queued job (tests, and a graceful shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

"""The embedded job queue: jobs run as asyncio tasks in the server process (SQLite default)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger("perilscope.jobs")


class JobRunner(Protocol):
    async def run(self, job_id: str) -> None: ...


class InProcessJobQueue:
    def __init__(self, service: Callable[[], JobRunner], concurrency: int = 1) -> None:
        self._service = service
        self._slots = asyncio.Semaphore(concurrency)  # one batch at a time keeps lookups responsive
        self._tasks: set[asyncio.Task[None]] = set()

    async def enqueue(self, job_id: str) -> None:
        task = asyncio.create_task(self._guarded(job_id), name=f"batch-job-{job_id}")
        self._tasks.add(task)  # keep a reference until it ends
        task.add_done_callback(self._tasks.discard)

    async def _guarded(self, job_id: str) -> None:
        async with self._slots:
            try:
                await self._service().run(job_id)
            except Exception:  # the job row already says it failed
                log.exception("batch job failed", extra={"job_id": job_id})

    async def drain(self) -> None:
        """Wait for every queued job (tests, and a graceful shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

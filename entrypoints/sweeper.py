"""The chunk sweeper, run in every server and worker process (application/batch_runner.py):
chunks of dead workers and lost tasks are queued again within a lease and a sweep, without
waiting for the broker to reclaim a dead consumer's messages or for new work to arrive."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable

log = logging.getLogger("perilscope.batch")


class ChunkSweeper:
    def __init__(self, sweep: Callable[[], Awaitable[None]], every_seconds: float) -> None:
        self._sweep = sweep
        self._every = every_seconds
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="batch-chunk-sweeper")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            # A little jitter, so many processes started together do not sweep in step.
            await asyncio.sleep(self._every * random.uniform(0.8, 1.2))  # noqa: S311 - not security
            try:
                await self._sweep()
            except Exception:  # the next round tries again; the process keeps going
                log.exception("batch chunk sweep failed")

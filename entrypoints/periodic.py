"""Work a process does every so often while it runs (started and stopped with it)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random

from application.errors import ServiceBusy

log = logging.getLogger("perilscope.housekeeping")


class Periodic:
    """Calls `round` now and then every `every_seconds` (give or take `jitter`, a fraction, so
    many processes started together do not all work in step); a failed round is logged and the
    next one tries again."""

    name = "periodic"

    def __init__(self, every_seconds: float, jitter: float = 0.0) -> None:
        self._every = every_seconds
        self._jitter = jitter
        self._task: asyncio.Task[None] | None = None

    async def round(self) -> None:
        raise NotImplementedError

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            try:
                await self.round()
            except ServiceBusy:  # the database is busy with requests and jobs: they come first
                log.warning("%s skipped a round: the database is busy", self.name)
            except Exception:  # the next round tries again; the process keeps going
                log.exception("%s failed", self.name)
            await asyncio.sleep(self._every * random.uniform(1 - self._jitter, 1 + self._jitter))  # noqa: S311

"""Periodic upkeep inside the server: the purge of uploads no job needs any more (retention), and
of the public API's Idempotency-Keys past their 24 hours."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from entrypoints.container import Container

log = logging.getLogger("perilscope.housekeeping")
PURGE_EVERY_SECONDS = 15 * 60  # retention is counted in hours; a quarter hour late is fine


class UploadPurger:
    """Started and stopped with the app; each server process purges (the deletes are idempotent)."""

    def __init__(self, container: Container, every_seconds: float = PURGE_EVERY_SECONDS) -> None:
        self._container = container
        self._every = every_seconds
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="upload-purge")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _loop(self) -> None:
        while True:
            try:
                purged = await self._container.batch().purge_uploads()
                if purged:
                    log.info("purged uploads", extra={"uploads": purged})
            except Exception:  # the next round tries again; the server keeps going
                log.exception("upload purge failed")
            try:
                await self._container.idempotency().purge()
            except Exception:
                log.exception("idempotency key purge failed")
            await asyncio.sleep(self._every)

"""Periodic upkeep inside the server: the purge of uploads no job needs any more (retention), and
of the public API's Idempotency-Keys past their 24 hours."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from entrypoints.container import Container
from entrypoints.periodic import Periodic

log = logging.getLogger("perilscope.housekeeping")
PURGE_EVERY_SECONDS = 15 * 60  # retention is counted in hours; a quarter hour late is fine


class UploadPurger(Periodic):
    """Started and stopped with the app; each server process purges (the deletes are idempotent)."""

    name = "upload-purge"

    def __init__(self, container: Container, every_seconds: float = PURGE_EVERY_SECONDS) -> None:
        super().__init__(every_seconds)
        self._container = container

    async def round(self) -> None:
        try:
            purged = await self._container.batch().purge_uploads()
            if purged:
                log.info("purged uploads", extra={"uploads": purged})
        finally:  # each purge on its own: one failing does not stop the other
            await self._container.idempotency().purge()


class ReferenceWarmup:
    """Loads the reference data in the background when the server starts, so its first lookup or
    portfolio summary does not wait seconds for it (a server on the Redis queue answers no chunk,
    so nothing else would load it). /ready does not wait. Test servers, started by the dozen, skip it
    unless told (PERILSCOPE_WARM_REFERENCE_DATA)."""

    def __init__(self, container: Container) -> None:
        self._container = container
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self._container.settings().warm_reference_data:
            self._task = asyncio.create_task(self._load(), name="reference-warmup")

    async def _load(self) -> None:
        try:
            await self._container.reference_index().data()
        except Exception:  # the first request that needs it loads it, and says what failed
            log.exception("the reference data could not be loaded at start")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

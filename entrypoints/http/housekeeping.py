"""Periodic upkeep inside the server: the purge of uploads no job needs any more (retention), and
of the public API's Idempotency-Keys past their 24 hours."""

from __future__ import annotations

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

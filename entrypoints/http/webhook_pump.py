"""The webhook pump: every few seconds each server process attempts the deliveries that are due
(retries, and first attempts a stopped process left). Claims in the database keep two processes
from sending the same attempt (application/webhooks.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from application.webhooks import Webhooks

log = logging.getLogger("perilscope.webhooks")
PUMP_EVERY_SECONDS = 15.0  # the shortest retry wait is a minute: a few seconds late is fine


class WebhookPump:
    def __init__(self, webhooks: Webhooks, every_seconds: float = PUMP_EVERY_SECONDS) -> None:
        self._webhooks = webhooks
        self._every = every_seconds
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="webhook-pump")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self._webhooks.settle()

    async def _loop(self) -> None:
        while True:
            try:
                # A full round may leave more due deliveries: go on at once until none is left.
                while await self._webhooks.deliver_due():
                    pass
            except Exception:  # the next round tries again; the server keeps going
                log.exception("webhook pump round failed")
            await asyncio.sleep(self._every)

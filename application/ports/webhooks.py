"""Where batch jobs meet webhooks (issue 12): the public API checks a batch's `callback_url` when the
batch is submitted, and tells the webhooks when the batch ends. application/webhooks.py implements
both; the batch service and the v1 routes only know these ports."""

from __future__ import annotations

from typing import Protocol

from application.ports.batch import BatchJob



class CallbackUrlCheck(Protocol):
    async def check(self, url: str) -> str:
        """The URL as it will be called, when PerilScope may call it; otherwise raises
        InvalidInput(code="callback_url_refused") saying why (scheme, credentials in the URL, or a
        loopback, private, link-local or metadata address after DNS resolution)."""
        ...


class BatchEndedListener(Protocol):
    async def batch_ended(self, job: BatchJob, callback_url: str) -> None:
        """The job is done or failed (job.status says which): record a signed event for its owner's
        callback URL and deliver it (with retries) without holding up the caller."""
        ...


class NoBatchEndedListener:
    """For batches without a callback URL, and for tests of the batch service alone."""

    async def batch_ended(self, job: BatchJob, callback_url: str) -> None:
        return None


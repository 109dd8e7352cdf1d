"""Ports of the webhooks service (application/webhooks.py): signing secrets, deliveries with their
attempts (in the database, so retries survive restarts and are shared by processes), DNS, and the
HTTP call itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from domain.webhooks import DeliveryStatus


@dataclass(frozen=True, slots=True)
class DeliveryAttempt:
    attempted_at: datetime
    duration_ms: int
    status_code: int | None  # None: no HTTP answer (timeout, connection error, refused address)
    error: str | None  # why the attempt failed, for people; None on success

    @property
    def succeeded(self) -> bool:
        return self.error is None


@dataclass(frozen=True, slots=True)
class Delivery:
    id: str
    user_id: str
    job_id: str
    event: str
    url: str
    body: str  # the JSON sent at every attempt
    status: DeliveryStatus
    created_at: datetime
    next_attempt_at: datetime | None  # None once succeeded or failed
    attempt_count: int = 0
    attempts: tuple[DeliveryAttempt, ...] = field(default=())  # newest first, when read for people


class DeliveryStore(Protocol):
    async def add(self, delivery: Delivery) -> None: ...

    async def claim(self, delivery_id: str, now: datetime, lease_until: datetime, token: str) -> Delivery | None:
        """Take the delivery for one attempt when it is pending, due (next_attempt_at <= now) and not
        leased by anyone else (or that lease ran out): one atomic step, so two processes never
        both get it. None when someone else has it or it is not due."""
        ...

    async def due(self, now: datetime, limit: int) -> list[str]:
        """Ids of pending deliveries due at `now` and not leased, oldest first (claim them next)."""
        ...

    async def record(
        self, delivery_id: str, token: str, attempt: DeliveryAttempt, status: DeliveryStatus, next_attempt_at: datetime | None
    ) -> bool:
        """Store the attempt and the delivery's new state and release the lease, in one
        transaction; False (and nothing stored) when the lease `token` is no longer the holder's."""
        ...

    async def recent(self, user_id: str, limit: int, attempts_each: int, offset: int = 0) -> list[Delivery]:
        """The user's newest deliveries, newest first, each with its newest attempts."""
        ...


class SigningSecretStore(Protocol):
    async def sealed(self, user_id: str) -> str | None: ...

    async def add_if_absent(self, user_id: str, sealed: str, at: datetime) -> None:
        """Store the user's first secret unless one exists already (two first uses at once keep one)."""
        ...

    async def replace(self, user_id: str, sealed: str, at: datetime) -> None: ...


class HostResolver(Protocol):
    async def resolve(self, host: str, port: int) -> list[str]:
        """Every IP address `host` resolves to; an empty list when it does not resolve."""
        ...


@dataclass(frozen=True, slots=True)
class HttpAnswer:
    status_code: int | None
    error: str | None  # the transport failure (timeout, refused connection), when there was no answer


class WebhookSender(Protocol):
    async def post(self, url: str, address: str, headers: dict[str, str], body: bytes, timeout_seconds: float) -> HttpAnswer:
        """POST `body` to `url`, connecting to `address` (the IP that was checked, so DNS cannot
        change between the check and the call); redirects are not followed."""
        ...

"""Ports of `Idempotency-Key` on the public API's POSTs (application/idempotency.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True)
class StoredReply:
    """The first answer given for a key: sent again, unchanged, to a retry of the request."""

    status_code: int
    body: bytes  # JSON
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class KeyRecord:
    fingerprint: str  # of the request that claimed the key (method, path and body)
    created_at: datetime
    reply: StoredReply | None  # None while that request still runs


class IdempotencyStore(Protocol):
    async def claim(self, user_id: str, key: str, fingerprint: str, at: datetime) -> bool:
        """Record the key as taken by a request now starting, in one insert that a unique
        constraint guards: False, and nothing written, when the user holds the key already (so
        of concurrent duplicates exactly one is True)."""
        ...

    async def record(self, user_id: str, key: str) -> KeyRecord | None: ...

    async def complete(self, user_id: str, key: str, reply: StoredReply) -> None: ...

    async def release(self, user_id: str, key: str) -> None:
        """Free a key whose request failed without an answer worth keeping (only while unanswered)."""
        ...

    async def expire(self, user_id: str, key: str, created_before: datetime) -> None:
        """Free the key if it was claimed before `created_before` (it is then no longer in force)."""
        ...

    async def purge(self, created_before: datetime) -> int:
        """Delete every key claimed before `created_before`; how many went."""
        ...

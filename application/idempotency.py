"""`Idempotency-Key` on the public API's POSTs: a request retried with the same key (same user,
same method, path and body) within 24 hours gets the first answer again and is charged once.

The key is claimed before the work starts (one insert under a unique constraint), so of two
concurrent duplicates only one runs; the other hears 409 `idempotency_key_in_progress`. Only
successful answers are kept: a refused request (400, 404, 429...) charged nothing, so its key is
freed and the same request may be tried again with it."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta

from application.errors import Conflict, InvalidInput
from application.ports.clock import Clock
from application.ports.idempotency import IdempotencyStore, StoredReply
from application.ports.secrets import SecretBox

KEY_LIFETIME = timedelta(hours=24)
MAX_KEY_LENGTH = 255
# Visible ASCII: the header is opaque to us, but it is stored and quoted back in messages.
_KEY = re.compile(r"[\x21-\x7e]{1,%d}" % MAX_KEY_LENGTH)
INVALID_KEY = (
    f"The Idempotency-Key header must be 1 to {MAX_KEY_LENGTH} visible ASCII characters (no spaces), "
    "e.g. a UUID. Send a new key for each new request, and the same key only to retry one."
)
KEY_REUSED = (
    "This Idempotency-Key was already used for a different request (another path or body) in the last 24 hours. "
    "Use a new key for a new request; send the same key only with the identical request to retry it."
)
KEY_IN_PROGRESS = (
    "A request with this Idempotency-Key is still being processed. Wait for its answer, then retry with the "
    "same key to get it again."
)


def valid_key(key: str) -> str:
    if not _KEY.fullmatch(key):
        raise InvalidInput(INVALID_KEY, code="invalid_idempotency_key")
    return key


def request_fingerprint(method: str, path: str, body: bytes) -> str:
    """Same request, same fingerprint: JSON bodies are compared by content, not by spacing or key order."""
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode() if body else b""
    except ValueError:
        canonical = body
    digest = hashlib.sha256()
    for part in (method.upper().encode(), path.encode(), canonical):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


class Idempotency:
    def __init__(self, store: IdempotencyStore, box: SecretBox, clock: Clock) -> None:
        self._store = store
        # A kept answer can hold a secret (POST /auth/token's bearer token): stored sealed.
        self._box = box
        self._clock = clock

    async def run(
        self, user_id: str, key: str, fingerprint: str, work: Callable[[], Awaitable[StoredReply]]
    ) -> tuple[StoredReply, bool]:
        """The work's reply, or the first reply for this key; True when it is a replay."""
        kept = await self._claim(user_id, valid_key(key), fingerprint)
        if kept is not None:
            return kept, True
        try:
            reply = await work()
        except BaseException:
            await self._store.release(user_id, key)
            raise
        sealed = self._box.seal(reply.body.decode(), owner=_owner(user_id, key))
        await self._store.complete(user_id, key, replace(reply, body=sealed.encode()))
        return reply, False

    async def _claim(self, user_id: str, key: str, fingerprint: str) -> StoredReply | None:
        """None when this request holds the key now; otherwise the answer to give instead."""
        now = self._clock.now()
        for _ in range(3):  # the holder may free or expire the key between our two reads
            if await self._store.claim(user_id, key, fingerprint, now):
                return None
            record = await self._store.record(user_id, key)
            if record is None:
                continue
            if record.created_at <= now - KEY_LIFETIME:
                await self._store.expire(user_id, key, now - KEY_LIFETIME)
                continue
            if record.fingerprint != fingerprint:
                raise Conflict(KEY_REUSED, code="idempotency_key_reused")
            if record.reply is None:
                raise Conflict(KEY_IN_PROGRESS, code="idempotency_key_in_progress")
            body = self._box.open(record.reply.body.decode(), owner=_owner(user_id, key))
            if body is None:  # sealed under a secret key that has since changed: run it afresh
                await self._store.expire(user_id, key, record.created_at + timedelta(microseconds=1))
                continue
            return replace(record.reply, body=body.encode())
        raise Conflict(KEY_IN_PROGRESS, code="idempotency_key_in_progress")

    async def purge(self) -> int:
        """Housekeeping: forget the keys older than 24 hours."""
        return await self._store.purge(self._clock.now() - KEY_LIFETIME)


def _owner(user_id: str, key: str) -> str:
    return f"{user_id}\x00{key}"

"""argon2id password hashing, run in a worker thread so the event loop keeps serving."""

from __future__ import annotations

import asyncio
import secrets

from argon2 import PasswordHasher as Argon2Hasher
from argon2 import Type
from argon2.exceptions import InvalidHashError, VerificationError


class Argon2PasswordHasher:
    def __init__(self, time_cost: int = 2, memory_cost_kib: int = 19456, parallelism: int = 1) -> None:
        # Defaults follow OWASP's argon2id minimum (19 MiB, t=2, p=1).
        self._hasher = Argon2Hasher(
            time_cost=time_cost, memory_cost=memory_cost_kib, parallelism=parallelism, type=Type.ID
        )

    def hash_of_random_password(self) -> str:
        """A hash nobody knows the password of, to verify against when the account is unknown."""
        return self._hasher.hash(secrets.token_urlsafe(16))

    async def hash(self, password: str) -> str:
        return await asyncio.to_thread(self._hasher.hash, password)

    async def verify(self, password_hash: str, password: str) -> bool:
        return await asyncio.to_thread(self._verify, password_hash, password)

    def _verify(self, password_hash: str, password: str) -> bool:
        try:
            return self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

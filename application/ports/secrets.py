"""Secrets kept at rest: TOTP secrets, webhook signing secrets and the answers kept for
Idempotency-Key retries are sealed for one owner (adapters/security/secret_box.py)."""

from __future__ import annotations

from typing import Protocol


class SecretBox(Protocol):
    """Authenticated encryption of a secret, bound to its owner."""

    def seal(self, secret: str, owner: str) -> str: ...

    def open(self, sealed: str, owner: str) -> str | None:
        """None when the value was altered, belongs to another owner or the key changed."""
        ...

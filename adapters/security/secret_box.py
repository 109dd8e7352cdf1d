"""TOTP and webhook signing secrets encrypted at rest with AES-256-GCM (a key per purpose); the
owner's id is the associated data, so a sealed secret copied onto another account does not open.

The key is derived from the app's secret key for this purpose only. Changing the secret key makes
the stored secrets unreadable: people then sign in with a recovery code and set up again.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

PURPOSE = "perilscope-totp-secret"
VERSION = "v1"
NONCE_BYTES = 12


class AesGcmSecretBox:
    def __init__(self, secret_key: str, purpose: str = PURPOSE) -> None:
        # One key per purpose: a sealed TOTP secret never opens as a webhook secret, or back.
        self._aead = AESGCM(hashlib.sha256(f"{purpose}|{secret_key}".encode()).digest())

    def seal(self, secret: str, owner: str) -> str:
        nonce = os.urandom(NONCE_BYTES)
        sealed = nonce + self._aead.encrypt(nonce, secret.encode(), owner.encode())
        return f"{VERSION}:{base64.urlsafe_b64encode(sealed).decode()}"

    def open(self, sealed: str, owner: str) -> str | None:
        version, _, payload = sealed.partition(":")
        if version != VERSION:
            return None
        try:
            raw = base64.urlsafe_b64decode(payload.encode())
            return self._aead.decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], owner.encode()).decode()
        except (InvalidTag, ValueError, binascii.Error):
            return None

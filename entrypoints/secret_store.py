"""The signing secret of a server with none configured: made once, kept beside the database.

A publicly known key would let anyone forge sessions, so there is no built-in default: the
first start writes 48 random bytes to `var/secret_key` (mode 0600), and every later start and
every process on this machine reads the same file. Several machines must share one secret
through PERILSCOPE_SECRET_KEY (README, "Secret key")."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

SECRET_FILE_NAME = "secret_key"


def load_or_create_secret(directory: Path) -> str:
    path = directory / SECRET_FILE_NAME
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    directory.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(48)
    try:
        # O_EXCL: when two processes start at once, one writes and the other reads its secret.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read(path)
    with os.fdopen(descriptor, "w") as file:
        file.write(secret)
    return secret


def _read(path: Path) -> str:
    secret = path.read_text().strip()
    if not secret:
        raise RuntimeError(f"{path} is empty: delete it to have a new secret made, or set PERILSCOPE_SECRET_KEY.")
    return secret

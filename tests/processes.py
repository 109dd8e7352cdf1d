"""Helpers for tests that start real servers in processes of their own."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest


PERILSCOPE = Path(sys.executable).parent / "perilscope"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(ready: Callable[[], bool], process: subprocess.Popen, log: Path, what: str, seconds: float = 180) -> None:
    """Poll `ready` until it holds; fail with the process's log if it exits or takes too long."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{what} exited before it was ready:\n{log.read_text(errors='replace')[-4000:]}")
        try:
            if ready():
                return
        except (OSError, httpx.TransportError):
            pass
        time.sleep(0.2)
    pytest.fail(f"{what} was not ready within {seconds:.0f} s:\n{log.read_text(errors='replace')[-4000:]}")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def start_server(env: dict[str, str], log: Path) -> tuple[subprocess.Popen, str]:
    """`perilscope serve` on a free port with `env` over this process's environment, once /ready
    answers; its output goes to `log` (a file, never an undrained pipe). Returns it and its URL."""
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    with log.open("w") as log_file:
        server = subprocess.Popen(
            [PERILSCOPE, "serve", "--host", "127.0.0.1", "--port", str(port)],
            # Its files beside its log, in the test's temporary directory, unless `env` says otherwise.
            env={**os.environ, "PERILSCOPE_BASE_URL": base_url, "PERILSCOPE_FILES_DIR": str(log.parent / "files"), **env},
            stdout=log_file, stderr=log_file,
        )
    try:
        wait_until(lambda: httpx.get(f"{base_url}/ready", timeout=1).status_code == 200, server, log, "the server")
    except BaseException:
        stop(server)
        raise
    return server, base_url


def create_admin(env: dict[str, str], email: str, password: str = "Str0ng!pass") -> None:
    subprocess.run(
        [PERILSCOPE, "users", "create-admin", email, "--password", password],
        env={**os.environ, **env}, check=True, capture_output=True,
    )

"""Helpers for tests that start real servers in processes of their own."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(ready: Callable[[], bool], process: subprocess.Popen, log: Path, what: str, seconds: float = 60) -> None:
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

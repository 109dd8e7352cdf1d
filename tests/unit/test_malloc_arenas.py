"""The server and worker cap glibc's arenas (entrypoints/memory.py): on this Linux it takes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]


def test_the_c_allocator_arenas_are_capped_on_glibc() -> None:
    script = "from entrypoints.memory import limit_malloc_arenas\nprint(limit_malloc_arenas())\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=PROJECT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    libc = subprocess.run(["ldd", "--version"], capture_output=True, text=True).stdout.lower()
    assert done.stdout.strip() == ("True" if "glibc" in libc or "gnu libc" in libc else "False")

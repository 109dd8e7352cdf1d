"""The C allocator's settings for a server or worker process (issue #13: the embedded server under
300 MB). glibc gives each thread that allocates its own arena, up to 8 per core, and keeps what
a thread freed in that arena for it: the file store's and the batch's worker threads
(asyncio.to_thread) and aiosqlite's thread each held tens of MB that the event loop's thread
could not reuse. Two arenas keep threads from contending on one lock and most of the memory
shared; measured with bench/batch.py: see the issue's note."""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger("perilscope.memory")

M_ARENA_MAX = -8  # glibc's mallopt parameter (malloc.h)
ARENAS = 2


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's arenas; call before the process starts threads. False where the C library is
    not glibc (musl, macOS): nothing changes there."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        mallopt = libc.mallopt if libc is not None else None
    except (OSError, AttributeError):
        mallopt = None
    if mallopt is None:
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    done = bool(mallopt(M_ARENA_MAX, arenas))
    if not done:
        log.warning("the C allocator's arenas could not be limited", extra={"arenas": arenas})
    return done

"""How this process gives back the memory it frees (issue #27: every process under 300 MB).

A batch's processes read and write Arrow data and run DuckDB queries whose peaks (tens of MB a
chunk or a download) would otherwise stay in the process after they are freed."""

from __future__ import annotations

import ctypes

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 128 * 1024
_released = False


def release_freed_memory() -> None:
    """Makes the process give memory back to the system when it is freed (once; process-wide):
    without it a download's peak stays in the process. glibc raises its mmap threshold as large
    blocks are freed, so DuckDB's vectors and Arrow's buffers come from its heaps afterwards and
    stay there (100k detailed CSV rows: 334 MB peak, with 235); Arrow's default pool (mimalloc)
    keeps freed pages too: jemalloc returning them at once does not."""
    global _released
    if _released:
        return
    _released = True
    import pyarrow as pa  # here: the server loads pyarrow only when it reads or writes a dataset

    try:
        ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    except (OSError, AttributeError):  # not glibc
        pass
    try:
        pool = pa.jemalloc_memory_pool()
    except NotImplementedError:
        return
    pa.set_memory_pool(pool)
    pa.jemalloc_set_decay_ms(0)

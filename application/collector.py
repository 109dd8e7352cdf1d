"""The cyclic garbage collector paused while a large object graph is built and dropped again in
one go (an export's assembly decodes and merges hundreds of tally parts): its collections would
walk the growing tally again and again, a third of the decoding time at 200,000 rows, and more
the larger the job (bench/batch.py). Reference counting still frees everything without a cycle."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


class _Pauses:
    """Pauses in this process, nested or concurrent (coroutines): the collector resumes after the
    last ends, and only if it was running before the first."""

    count = 0
    resume = False


@contextmanager
def collector_paused() -> Iterator[None]:
    if _Pauses.count == 0:
        _Pauses.resume = gc.isenabled()
    _Pauses.count += 1
    gc.disable()
    try:
        yield
    finally:
        _Pauses.count -= 1
        if _Pauses.count == 0 and _Pauses.resume:
            gc.enable()

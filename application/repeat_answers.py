"""Answers shared by a job's repeated addresses across its chunks, in this process.

A portfolio repeats addresses (one building, many policies); a chunk is a few thousand rows, so
a cache per chunk would miss most repeats. This one keeps the latest answers of each job, bounded
by their bytes (an answer's export lines and detailed record are about 10 KB), so its memory does
not grow with the file; a repeat answered on another worker, or after its answer was dropped, is
answered again, which costs time, never correctness."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sized
from typing import Generic, TypeVar

V = TypeVar("V")
DEFAULT_BYTES = 16 * 1024 * 1024


def _length(answer: object) -> int:
    return len(answer) if isinstance(answer, Sized) else 1


class RepeatAnswers(Generic[V]):
    def __init__(self, max_bytes: int = DEFAULT_BYTES, size_of: Callable[[V], int] = _length) -> None:
        self._max_bytes = max_bytes
        self._size_of = size_of
        self._answers: OrderedDict[tuple[str, str], tuple[V, int]] = OrderedDict()
        self._bytes = 0

    @property
    def bytes_kept(self) -> int:
        return self._bytes

    def get(self, job_id: str, address: str) -> V | None:
        key = (job_id, address)
        kept = self._answers.get(key)
        if kept is None:
            return None
        self._answers.move_to_end(key)
        return kept[0]

    def put(self, job_id: str, address: str, answer: V) -> None:
        key = (job_id, address)
        size = self._size_of(answer) + len(address)
        if (previous := self._answers.pop(key, None)) is not None:
            self._bytes -= previous[1]
        if size > self._max_bytes:
            return  # larger than the whole bound: not kept
        self._answers[key] = (answer, size)
        self._bytes += size
        while self._bytes > self._max_bytes:
            _, (_, dropped) = self._answers.popitem(last=False)
            self._bytes -= dropped

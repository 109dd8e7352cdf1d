"""Answers shared by a job's repeated addresses across its chunks, in this process.

A portfolio repeats addresses (one building, many policies); a chunk is a few thousand rows, so
a cache per chunk would miss most repeats. This one keeps the latest answers of each job, bounded,
so its memory does not grow with the file; a repeat answered on another worker is answered again,
which costs time, never correctness."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

V = TypeVar("V")
DEFAULT_SIZE = 20_000  # a few KB each: tens of MB at most


class RepeatAnswers(Generic[V]):
    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self._size = size
        self._answers: OrderedDict[tuple[str, str], V] = OrderedDict()

    def get(self, job_id: str, address: str) -> V | None:
        key = (job_id, address)
        answer = self._answers.get(key)
        if answer is not None:
            self._answers.move_to_end(key)
        return answer

    def put(self, job_id: str, address: str, answer: V) -> None:
        self._answers[(job_id, address)] = answer
        self._answers.move_to_end((job_id, address))
        while len(self._answers) > self._size:
            self._answers.popitem(last=False)

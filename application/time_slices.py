"""Long CPU work on the event loop, a slice at a time.

A batch parses, answers and writes 100,000 rows on the server's one event loop; done in one go
that takes seconds in which no other request is served. Work that goes through TimeSlices gives
the loop back whenever it has run for a slice: the requests waiting meanwhile get their turn, and
the batch loses only the time they take. (A worker thread would not help the loop: with the GIL,
it would wait up to the interpreter's 5 ms switch interval for every step of every request.)"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TypeVar

# Short enough that a request needing a few turns of the loop still answers within tens of ms;
# long enough that the pauses themselves cost the batch next to nothing.
SLICE_SECONDS = 0.005

T = TypeVar("T")


class TimeSlices:
    def __init__(self, seconds: float = SLICE_SECONDS, clock: Callable[[], float] = time.perf_counter) -> None:
        self._seconds = seconds
        self._clock = clock
        self._slice_started = clock()

    def _due(self) -> bool:
        return self._clock() - self._slice_started >= self._seconds

    async def _pause(self) -> None:
        await asyncio.sleep(0)  # every callback ready meanwhile runs before the work goes on
        self._slice_started = self._clock()

    async def each(self, items: Iterable[T]) -> AsyncIterator[T]:
        """The items, with a pause after any item that ends a slice."""
        for item in items:
            yield item
            if self._due():
                await self._pause()

    async def pause_if_due(self) -> None:
        """For a loop that cannot go through `each` (its items come from an async source)."""
        if self._due():
            await self._pause()

    async def collect(self, items: Iterable[T]) -> list[T]:
        """list(items), pausing between items; for cheap items such as parsed CSV rows."""
        collected = []
        for item in items:
            collected.append(item)
            if self._due():
                await self._pause()
        return collected

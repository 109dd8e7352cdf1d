"""Long CPU work gives the event loop back once per used-up slice, and only then."""

from __future__ import annotations

import asyncio

from application.time_slices import TimeSlices


class SteppingClock:
    """Each item of work below takes one millisecond of this clock."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def _turns_of_others_during(work) -> tuple[object, int]:  # noqa: ANN001
    """(work's result, how many times another task ran while it did)."""
    turns = 0

    async def other_task() -> None:
        nonlocal turns
        while True:
            await asyncio.sleep(0)
            turns += 1

    other = asyncio.create_task(other_task())
    await asyncio.sleep(0)  # let it start and wait for its next turn
    started_with = turns
    result = await work
    ran = turns - started_with
    other.cancel()
    return result, ran


async def test_collect_pauses_once_per_used_up_slice() -> None:
    clock = SteppingClock()
    slices = TimeSlices(seconds=0.005, clock=clock)

    def items():  # noqa: ANN202
        for item in range(20):
            clock.now += 0.001
            yield item

    collected, others_ran = await _turns_of_others_during(slices.collect(items()))

    assert collected == list(range(20))
    assert others_ran == 4  # after items 5, 10, 15 and 20


async def test_each_pauses_between_items_once_the_slice_is_used_up() -> None:
    clock = SteppingClock()
    slices = TimeSlices(seconds=0.0025, clock=clock)

    async def consume() -> list[int]:
        seen = []
        async for item in slices.each(range(9)):
            clock.now += 0.001  # the work done with each item
            seen.append(item)
        return seen

    seen, others_ran = await _turns_of_others_during(consume())

    assert seen == list(range(9))
    assert others_ran == 3  # after items 3, 6 and 9


async def test_work_shorter_than_a_slice_never_pauses() -> None:
    slices = TimeSlices(seconds=60.0)
    collected, others_ran = await _turns_of_others_during(slices.collect(range(1000)))
    assert len(collected) == 1000 and others_ran == 0

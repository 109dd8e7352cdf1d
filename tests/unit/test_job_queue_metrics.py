"""The in-process queue reports its waiting and running jobs to the metrics port as they change."""

from __future__ import annotations

import asyncio

from adapters.jobs.in_process import InProcessJobQueue
from application.ports.batch import QueueDepth


class RecordedMetrics:
    def __init__(self) -> None:
        self.queue: list[tuple[int, int]] = []

    def lookup_answered(self, seconds: float, source: str, located: bool) -> None: ...

    def job_queue_changed(self, waiting: int, running: int) -> None:
        self.queue.append((waiting, running))


class HeldJobs:
    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def run(self, job_id: str) -> None:
        await self.release.wait()


async def test_waiting_and_running_jobs_are_reported() -> None:
    metrics, jobs = RecordedMetrics(), HeldJobs()
    queue = InProcessJobQueue(lambda: jobs, concurrency=1, metrics=metrics)
    await queue.enqueue("a")
    await queue.enqueue("b")
    await asyncio.sleep(0)
    assert metrics.queue[-1] == (1, 1)  # one runs, one waits for the single slot
    jobs.release.set()
    await queue.drain()
    await asyncio.sleep(0)
    assert metrics.queue[-1] == (0, 0)
    assert max(running for _, running in metrics.queue) == 1


async def test_the_queue_tells_its_depth() -> None:
    jobs = HeldJobs()
    queue = InProcessJobQueue(lambda: jobs, concurrency=1)
    assert await queue.depth() == QueueDepth(waiting=0, taken=0)
    for job_id in "abc":
        await queue.enqueue(job_id)
    await asyncio.sleep(0)
    assert await queue.depth() == QueueDepth(waiting=2, taken=1)
    jobs.release.set()
    await queue.drain()
    assert await queue.depth() == QueueDepth(waiting=0, taken=0)

"""The distributed job queue: Taskiq over Redis. Workers (`perilscope worker`, on any machine
that reaches Redis and the database) run the jobs; job state stays in our database."""

from __future__ import annotations

from redis.asyncio import Redis
from redis.exceptions import ResponseError
from taskiq.kicker import AsyncKicker
from taskiq_redis import RedisStreamBroker

from application.ports.batch import QueueDepth

BATCH_TASK = "perilscope.run_batch_job"  # split a job into chunks
CHUNK_TASK = "perilscope.run_batch_chunk"  # run the fairest chunk of any job


def make_broker(redis_url: str, queue_name: str = "perilscope:batch") -> RedisStreamBroker:
    # Redis streams acknowledge a task only after it ran, so a worker that dies mid-job
    # leaves it to be delivered again; our job rows make a rerun safe.
    # One task per read: XREADGROUP hands every message it returns to this consumer at once, so
    # with the library's default of 100 the first worker to read after a split took all of a
    # job's chunk tasks and ran them one by one while the other workers idled. Taskiq's own
    # prefetch bound (worker --max-prefetch) only applies after the read.
    return RedisStreamBroker(url=redis_url, queue_name=queue_name, xread_count=1)


class TaskiqJobQueue:
    def __init__(self, broker: RedisStreamBroker) -> None:
        self._broker = broker
        self._started = False

    async def depth(self) -> QueueDepth:
        """From the stream's consumer group: its lag (entries no worker has read yet) and its
        pending entries (read and not acknowledged: taskiq acknowledges after the task ran)."""
        async with Redis(connection_pool=self._broker.connection_pool) as redis:
            try:
                groups = await redis.xinfo_groups(self._broker.queue_name)
            except ResponseError:  # no stream yet: nothing was ever sent
                return QueueDepth(waiting=0, taken=0)
            group = next((g for g in groups if _text(g["name"]) == self._broker.consumer_group_name), None)
            if group is None:  # no worker has started: every entry waits
                return QueueDepth(waiting=await redis.xlen(self._broker.queue_name), taken=0)
            lag = group.get("lag")
            if lag is None:  # Redis cannot say after entries were deleted: count what follows the last read
                lag = len(await redis.xrange(self._broker.queue_name, min=f"({_text(group['last-delivered-id'])}"))
            return QueueDepth(waiting=int(lag), taken=int(group["pending"]))

    async def enqueue(self, job_id: str) -> None:
        await self._start()
        await self._kicker(BATCH_TASK).kiq(job_id)

    async def enqueue_chunks(self, count: int) -> None:
        await self._start()
        kicker = self._kicker(CHUNK_TASK)
        for _ in range(count):
            await kicker.kiq()

    def _kicker(self, task_name: str) -> AsyncKicker:
        # By name: the web process does not import the worker's task functions.
        return AsyncKicker(task_name=task_name, broker=self._broker, labels={})

    async def _start(self) -> None:
        if not self._started:
            await self._broker.startup()
            self._started = True

    async def stop(self) -> None:
        if self._started:
            await self._broker.shutdown()
            self._started = False


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value

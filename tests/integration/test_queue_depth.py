"""The Taskiq queue's depth, read from the real Redis stream: tasks no worker has read wait; a
task read and not yet acknowledged is taken; acknowledged, it is gone."""

from __future__ import annotations

import uuid

import pytest
from redis.asyncio import Redis

from adapters.jobs.taskiq_queue import TaskiqJobQueue, make_broker
from application.ports.batch import QueueDepth
from tests.conftest import _unavailable
from tests.integration.test_taskiq_worker import REDIS_URL, _redis_up


async def test_waiting_and_taken_tasks_of_the_redis_queue() -> None:
    if not _redis_up():
        _unavailable("Redis at 127.0.0.1:6379 is unavailable")
    broker = make_broker(REDIS_URL, f"perilscope:test:depth:{uuid.uuid4().hex[:8]}")
    queue = TaskiqJobQueue(broker)
    redis = Redis.from_url(REDIS_URL)
    try:
        assert await queue.depth() == QueueDepth(waiting=0, taken=0)  # nothing ever sent: no stream yet
        await queue.enqueue_chunks(3)
        await queue.enqueue("a-job")
        assert await queue.depth() == QueueDepth(waiting=4, taken=0)
        # A worker reads one task, as taskiq's does (the broker's own consumer group).
        read = await redis.xreadgroup(broker.consumer_group_name, "worker-1", {broker.queue_name: ">"}, count=1)
        assert await queue.depth() == QueueDepth(waiting=3, taken=1)
        message_id = read[0][1][0][0]
        await redis.xack(broker.queue_name, broker.consumer_group_name, message_id)  # it ran
        assert await queue.depth() == QueueDepth(waiting=3, taken=0)
        # An entry deleted from the stream (trimmed, or by hand): Redis no longer knows the lag.
        last = (await redis.xrevrange(broker.queue_name, count=1))[0][0]
        await redis.xdel(broker.queue_name, last)
        groups = await redis.xinfo_groups(broker.queue_name)
        assert await queue.depth() == QueueDepth(waiting=2, taken=0), groups
    finally:
        await redis.delete(broker.queue_name)
        await redis.aclose()
        await queue.stop()

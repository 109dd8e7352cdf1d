"""Batch worker for the Taskiq queue: `perilscope worker` (or `taskiq worker entrypoints.worker:broker`)."""

from __future__ import annotations

from adapters.jobs.taskiq_queue import BATCH_TASK, make_broker
from entrypoints.container import Container, build_container
from entrypoints.logging_setup import configure_logging
from entrypoints.settings import Settings

settings = Settings.from_env()
broker = make_broker(settings.redis_url, settings.job_queue_name)
_container: Container | None = None


def container() -> Container:
    global _container  # noqa: PLW0603 - one container per worker process
    if _container is None:
        _container = build_container(settings)
        configure_logging(settings.log_level)
    return _container


@broker.task(task_name=BATCH_TASK)
async def run_batch_job(job_id: str) -> None:
    await container().batch().run(job_id)

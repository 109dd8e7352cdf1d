"""Batch worker for the Taskiq queue: `perilscope worker` (or `taskiq worker entrypoints.worker:broker`).

Each worker process runs chunk tasks and the sweepers (entrypoints/sweeper.py), and with
PERILSCOPE_WORKER_METRICS_PORT serves its metrics (adapters/metrics/http_server.py)."""

from __future__ import annotations

from entrypoints.memory import limit_malloc_arenas

limit_malloc_arenas()  # before any thread starts

from taskiq import TaskiqEvents, TaskiqState

from adapters.jobs.taskiq_queue import BATCH_TASK, CHUNK_TASK, make_broker
from adapters.metrics.http_server import MetricsHttpServer
from entrypoints.container import Container, build_container
from entrypoints.logging_setup import configure_logging
from entrypoints.settings import Settings
from entrypoints.sweeper import ChunkSweeper, OrphanFileSweeper

settings = Settings.from_env()
broker = make_broker(settings.redis_url, settings.job_queue_name)
_container: Container | None = None
_sweepers: list[ChunkSweeper] = []
_metrics_server: MetricsHttpServer | None = None


def container() -> Container:
    global _container  # noqa: PLW0603 - one container per worker process
    if _container is None:
        _container = build_container(settings)
        configure_logging(settings.log_level)
    return _container


@broker.on_event(TaskiqEvents.WORKER_STARTUP)
async def start_sweeper(state: TaskiqState) -> None:
    global _metrics_server  # noqa: PLW0603 - one per worker process
    if settings.worker_metrics_port is not None and settings.metrics_token:
        # One port per process of `perilscope worker --workers N`: each its own scrape target.
        ports = range(settings.worker_metrics_port, settings.worker_metrics_port + max(settings.worker_processes, 1))
        _metrics_server = MetricsHttpServer(settings.worker_metrics_host, ports, settings.metrics_token)
        _metrics_server.start()
    # The reference data is loaded before the worker listens, so its first chunk is not slowed
    # (and its lease not put at risk) by the load.
    await container().reference_index().data()
    _sweepers.extend([ChunkSweeper(lambda: container().batch().sweep(), settings.batch_sweep_seconds),
                      OrphanFileSweeper(lambda: container().orphan_files().sweep(), settings.orphan_sweep_seconds)])
    for sweeper in _sweepers:
        await sweeper.start()


@broker.on_event(TaskiqEvents.WORKER_SHUTDOWN)
async def stop_sweeper(state: TaskiqState) -> None:
    for sweeper in _sweepers:
        await sweeper.stop()
    if _metrics_server is not None:
        _metrics_server.stop()
    if _container is not None:
        await _container.job_queue().stop()


@broker.task(task_name=BATCH_TASK)
async def run_batch_job(job_id: str) -> None:
    await container().batch().run(job_id)


@broker.task(task_name=CHUNK_TASK)
async def run_batch_chunk() -> None:
    await container().batch().run_chunk()

"""Factories of the adapters the embedded default (SQLite, in-process queue, local files) never
uses: S3, the Redis throttle and request window, the Taskiq queue. Each imports its SDK only when
called, i.e. only when the settings choose it, so an embedded server never loads boto3, redis or
taskiq (together ~100 MB of its resident memory; the README's server-memory figure counts on it).
tests/unit/test_lean_imports.py holds to it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from application.ports.files import FileStore

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from adapters.files.s3 import S3FileStore
    from adapters.jobs.taskiq_queue import TaskiqJobQueue
    from adapters.security.redis_throttle import RedisAttemptThrottle, RedisRequestWindow
    from application.ports.clock import Clock


def s3_file_store(endpoint_url: str | None, region: str | None, bucket: str) -> S3FileStore:
    from adapters.files.s3 import S3FileStore, s3_client

    return S3FileStore(client=s3_client(endpoint_url, region), bucket=bucket)


def throttle_redis(url: str) -> Redis:
    from adapters.security.redis_throttle import redis_client

    return redis_client(url)


def redis_attempt_throttle(redis: Redis, clock: Clock) -> RedisAttemptThrottle:
    from adapters.security.redis_throttle import RedisAttemptThrottle

    return RedisAttemptThrottle(redis, clock)


def redis_request_window(redis: Redis, clock: Clock) -> RedisRequestWindow:
    from adapters.security.redis_throttle import RedisRequestWindow

    return RedisRequestWindow(redis, clock)


def taskiq_job_queue(redis_url: str, queue_name: str) -> TaskiqJobQueue:
    from adapters.jobs.taskiq_queue import TaskiqJobQueue, make_broker

    return TaskiqJobQueue(make_broker(redis_url, queue_name))


# --- the batch results' query adapters ---------------------------------------------------------
# pyarrow, DuckDB and numpy (about 90 MB resident) load when an export is first downloaded, viewed
# or summed, not when the server starts: an idle server never needs them.

class Deferred:
    """An adapter made at its first use, then used as itself."""

    def __init__(self, make: Callable[[], object]) -> None:
        self._make = make
        self._made: object | None = None

    def __getattr__(self, name: str) -> Any:
        if self._made is None:
            self._made = self._make()
        return getattr(self._made, name)


def result_downloads(files: FileStore) -> Deferred:
    def make() -> object:
        from adapters.results.downloads import ResultDownloads

        return ResultDownloads(files=files)

    return Deferred(make)


def portfolio_queries(files: FileStore) -> Deferred:
    def make() -> object:
        from adapters.results.portfolio import PortfolioQueries

        return PortfolioQueries(files=files)

    return Deferred(make)


def viewer_queries(files: FileStore) -> Deferred:
    def make() -> object:
        from adapters.results.viewer import ViewerQueries

        return ViewerQueries(files=files)

    return Deferred(make)


def export_scores() -> Deferred:
    def make() -> object:
        from adapters.results.export_scores import ParquetExportScores

        return ParquetExportScores()

    return Deferred(make)

"""`Metrics` in Prometheus (prometheus_client). The metrics are module-level, as the library
expects: one set per process, which PROMETHEUS_MULTIPROC_DIR lets several processes share
(README, "Metrics")."""

from __future__ import annotations

import math

from prometheus_client import Counter, Gauge, Histogram

# Answers take milliseconds from the embedded data and up to seconds from third-party providers.
LOOKUP_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

LOOKUP_SECONDS = Histogram(
    "perilscope_lookup_seconds",
    "Time to answer one address from the providers (single searches and batch rows).",
    ["source", "located"],
    buckets=LOOKUP_BUCKETS,
)
BATCH_ROWS = Counter("perilscope_batch_rows_processed", "Batch rows whose answers are stored.")
# 'livesum': with several processes, the sum over the live ones.
JOBS_WAITING = Gauge("perilscope_batch_jobs_waiting", "Batch jobs queued in this server, not yet running.",
                     multiprocess_mode="livesum")
# A chunk is a few thousand rows: seconds on the embedded data, minutes with slow providers.
CHUNK_SECONDS = Histogram(
    "perilscope_batch_chunk_seconds", "Time to answer one batch chunk, by how it ended.", ["outcome"],
    buckets=(0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0),
)
CHUNKS_IN_FLIGHT = Gauge("perilscope_batch_chunks_in_flight", "Batch chunks being answered now.",
                         multiprocess_mode="livesum")
JOBS_RUNNING = Gauge("perilscope_batch_jobs_running", "Batch jobs running in this server.",
                     multiprocess_mode="livesum")
# The embedded server's local worker processes (entrypoints/local_workers.py): how many run now,
# and how many were started again after one died.
LOCAL_WORKERS_RUNNING = Gauge("perilscope_local_workers_running", "Local worker processes running beside this server.",
                              multiprocess_mode="livesum")
LOCAL_WORKER_RESTARTS = Counter("perilscope_local_worker_restarts",
                                "Local worker processes started again after one died.")
# Read from the queue itself when /metrics is: with Redis one queue shared by every process, so
# the latest reading, not a sum over processes.
QUEUE_WAITING = Gauge("perilscope_batch_queue_waiting",
                      "Batch tasks (jobs to split, chunks to run) in the job queue that no worker has taken yet.",
                      multiprocess_mode="mostrecent")
QUEUE_TAKEN = Gauge("perilscope_batch_queue_taken",
                    "Batch tasks taken by a worker and not yet done (running, or held by a worker that died).",
                    multiprocess_mode="mostrecent")


class PrometheusMetrics:
    def __init__(self) -> None:
        # A histogram's labelled child, looked up once per label set: labels() validates and
        # locks on every call, and a batch answers thousands of rows a second.
        self._lookup_seconds: dict[tuple[str, bool], Histogram] = {}

    def lookup_answered(self, seconds: float, source: str, located: bool) -> None:
        child = self._lookup_seconds.get((source, located))
        if child is None:
            child = self._lookup_seconds[(source, located)] = LOOKUP_SECONDS.labels(
                source=source, located="yes" if located else "no")
        child.observe(seconds)

    def job_queue_changed(self, waiting: int, running: int) -> None:
        JOBS_WAITING.set(waiting)
        JOBS_RUNNING.set(running)

    def queue_depth(self, waiting: int | None, taken: int | None) -> None:
        # NaN, not 0 and not the last reading, when the queue could not be asked.
        QUEUE_WAITING.set(math.nan if waiting is None else waiting)
        QUEUE_TAKEN.set(math.nan if taken is None else taken)

    def chunk_started(self) -> None:
        CHUNKS_IN_FLIGHT.inc()

    def chunk_ended(self, seconds: float, rows: int, outcome: str) -> None:
        CHUNKS_IN_FLIGHT.dec()
        CHUNK_SECONDS.labels(outcome=outcome).observe(seconds)
        if outcome == "done":
            BATCH_ROWS.inc(rows)

"""`Metrics` in Prometheus (prometheus_client). The metrics are module-level, as the library
expects: one set per process, which PROMETHEUS_MULTIPROC_DIR lets several processes share
(README, "Metrics")."""

from __future__ import annotations

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

    def chunk_started(self) -> None:
        CHUNKS_IN_FLIGHT.inc()

    def chunk_ended(self, seconds: float, rows: int, outcome: str) -> None:
        CHUNKS_IN_FLIGHT.dec()
        CHUNK_SECONDS.labels(outcome=outcome).observe(seconds)
        if outcome == "done":
            BATCH_ROWS.inc(rows)

"""What the application tells the people who run it (adapters/metrics: Prometheus). Calls are
cheap and never fail the work they measure."""

from __future__ import annotations

from typing import Protocol


class Metrics(Protocol):
    def lookup_answered(self, seconds: float, source: str, located: bool) -> None:
        """One address answered by the providers: `source` is 'single' (a search, the public
        API) or 'batch' (a row of a batch job)."""
        ...

    def job_queue_changed(self, waiting: int, running: int) -> None:
        """This process's batch jobs queued and running (the in-process queue)."""
        ...

    def queue_depth(self, waiting: int | None, taken: int | None) -> None:
        """The job queue's tasks waiting and taken, read when the metrics are (None: the queue
        could not be asked)."""
        ...

    def chunk_started(self) -> None:
        """A batch chunk is being answered in this process (chunks in flight go up by one)."""
        ...

    def chunk_ended(self, seconds: float, rows: int, outcome: str) -> None:
        """A chunk this process worked on ended: 'done' (its result kept), 'lost' (its lease
        passed to another worker: result dropped) or 'failed' (the attempt raised)."""
        ...


class NoMetrics:
    """Nothing measured: the default where nobody reads metrics (unit tests, the CLI)."""

    def lookup_answered(self, seconds: float, source: str, located: bool) -> None:
        return None

    def job_queue_changed(self, waiting: int, running: int) -> None:
        return None

    def queue_depth(self, waiting: int | None, taken: int | None) -> None:
        return None

    def chunk_started(self) -> None:
        return None

    def chunk_ended(self, seconds: float, rows: int, outcome: str) -> None:
        return None

"""What the application tells the people who run it (adapters/metrics: Prometheus). Calls are
cheap and never fail the work they measure."""

from __future__ import annotations

from typing import Protocol


class Metrics(Protocol):
    def lookup_answered(self, seconds: float, source: str, located: bool) -> None:
        """One address answered by the providers: `source` is 'single' (a search, the public
        API) or 'batch' (a row of a batch job)."""
        ...

    def batch_rows_processed(self, rows: int) -> None:
        """Rows of batch jobs whose answers are stored (counted once, when their result is kept)."""
        ...

    def job_queue_changed(self, waiting: int, running: int) -> None:
        """This process's batch jobs queued and running (the in-process queue)."""
        ...


class NoMetrics:
    """Nothing measured: the default where nobody reads metrics (unit tests, the CLI)."""

    def lookup_answered(self, seconds: float, source: str, located: bool) -> None:
        return None

    def batch_rows_processed(self, rows: int) -> None:
        return None

    def job_queue_changed(self, waiting: int, running: int) -> None:
        return None

"""The sweepers, run in every server and worker process. The chunk sweeper (application/batch_runner.py):
chunks of dead workers and lost tasks are queued again within a lease and a sweep, without
waiting for the broker to reclaim a dead consumer's messages or for new work to arrive. The
orphan file sweeper (application/orphan_files.py): files a crash left behind, deleted."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from entrypoints.periodic import Periodic


class ChunkSweeper(Periodic):
    name = "batch-chunk-sweep"

    def __init__(self, sweep: Callable[[], Awaitable[object]], every_seconds: float) -> None:
        super().__init__(every_seconds, jitter=0.2)
        self._sweep = sweep

    async def round(self) -> None:
        await self._sweep()


class OrphanFileSweeper(ChunkSweeper):
    """Files a crash left in the file store, that no row names (application/orphan_files.py)."""

    name = "orphan-file-sweep"

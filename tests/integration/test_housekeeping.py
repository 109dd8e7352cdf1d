"""The server's periodic purge (uploads, Idempotency-Keys): it runs on start, again after its interval, survives a
failing round, and stops with the app."""

from __future__ import annotations

import asyncio

from entrypoints.http.housekeeping import ReferenceWarmup, UploadPurger


class _Batch:
    def __init__(self) -> None:
        self.rounds = 0
        self.third_round = asyncio.Event()

    async def purge_uploads(self) -> int:
        self.rounds += 1
        if self.rounds == 3:
            self.third_round.set()
        if self.rounds == 1:
            raise RuntimeError("database restarting")  # logged; the next round tries again
        return 2


class _Keys:
    def __init__(self) -> None:
        self.rounds = 0

    async def purge(self) -> int:
        self.rounds += 1
        return 0


class _Container:
    def __init__(self, batch: _Batch) -> None:
        self._batch = batch
        self.keys = _Keys()

    def batch(self) -> _Batch:
        return self._batch

    def idempotency(self) -> _Keys:
        return self.keys


async def test_the_purge_repeats_survives_a_failure_and_stops() -> None:
    batch = _Batch()
    container = _Container(batch)
    purger = UploadPurger(container, every_seconds=0)  # type: ignore[arg-type]
    await purger.start()
    await asyncio.wait_for(batch.third_round.wait(), timeout=5)
    await purger.stop()
    rounds = batch.rounds
    await asyncio.sleep(0)
    assert rounds >= 3 and batch.rounds == rounds  # nothing runs after stop
    assert container.keys.rounds >= 2  # old Idempotency-Keys go too, also in the round whose upload purge failed


class _Index:
    def __init__(self) -> None:
        self.loads = 0
        self.loaded = asyncio.Event()

    async def data(self) -> None:
        self.loads += 1
        self.loaded.set()


class _WarmedContainer:
    def __init__(self, warm: bool) -> None:
        self.index = _Index()
        self._settings = type("S", (), {"warm_reference_data": warm})()

    def settings(self):  # noqa: ANN201
        return self._settings

    def reference_index(self) -> _Index:
        return self.index


async def test_the_reference_data_is_loaded_when_the_server_starts_unless_told_not() -> None:
    warmed = _WarmedContainer(warm=True)
    warmup = ReferenceWarmup(warmed)  # type: ignore[arg-type]
    await warmup.start()
    await asyncio.wait_for(warmed.index.loaded.wait(), 5)
    await warmup.stop()
    assert warmed.index.loads == 1

    cold = _WarmedContainer(warm=False)  # a test server
    running = asyncio.all_tasks()
    await ReferenceWarmup(cold).start()  # type: ignore[arg-type]
    assert asyncio.all_tasks() == running  # nothing was started in the background to load it
    assert cold.index.loads == 0

"""The embedded server's local workers are reaped and started again when one dies, after a wait
that grows while they keep dying and starts afresh once one has run steadily."""

from __future__ import annotations

from datetime import timedelta

from entrypoints.local_workers import LocalWorkers
from tests.fakes import FakeClock


class FakeProcess:
    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self.reaped = False

    def poll(self) -> int | None:
        if self.returncode is not None:
            self.reaped = True  # Popen.poll waits for an exited child: no zombie is left
        return self.returncode

    def kill_9(self) -> None:
        self.returncode = -9

    def terminate(self) -> None:
        self.returncode = 0

    def wait(self, timeout: float | None = None) -> int | None:
        return self.returncode


class Spawner:
    def __init__(self) -> None:
        self.started: list[FakeProcess] = []

    def __call__(self) -> FakeProcess:
        self.started.append(FakeProcess(1000 + len(self.started)))
        return self.started[-1]


def supervised(count: int) -> tuple[LocalWorkers, Spawner, FakeClock]:
    clock, spawn = FakeClock(), Spawner()
    return LocalWorkers(count, {}, clock=clock, spawn=spawn), spawn, clock  # type: ignore[arg-type]


def test_a_worker_killed_is_reaped_and_started_again_after_a_second() -> None:
    workers, spawn, clock = supervised(2)
    workers.check()
    assert workers.running == 2 and len(spawn.started) == 2
    first = spawn.started[0]
    first.kill_9()
    workers.check()
    assert first.reaped and workers.running == 1 and len(spawn.started) == 2  # not at once
    clock.advance(timedelta(seconds=1))
    workers.check()
    assert workers.running == 2 and len(spawn.started) == 3 and workers.restarts == 1
    assert first not in workers.processes


def test_the_wait_doubles_while_a_worker_keeps_dying_and_starts_afresh_after_a_steady_run() -> None:
    workers, spawn, clock = supervised(1)
    workers.check()
    waits = []
    for _ in range(4):
        spawn.started[-1].kill_9()
        workers.check()
        waited = 0
        while workers.running == 0:
            clock.advance(timedelta(seconds=1))
            waited += 1
            workers.check()
        waits.append(waited)
    assert waits == [1, 2, 4, 8]
    clock.advance(timedelta(minutes=5))  # a steady run
    spawn.started[-1].kill_9()
    workers.check()
    clock.advance(timedelta(seconds=1))
    workers.check()
    assert workers.running == 1 and workers.restarts == 5


async def test_supervision_runs_on_the_clock_and_stops_with_the_server() -> None:
    from tests.waiting import until

    workers, spawn, clock = supervised(1)
    await workers.start()
    spawn.started[0].kill_9()
    await until(lambda: clock.sleepers == 1)
    clock.advance(timedelta(seconds=1))  # the check reaps it...
    await until(lambda: spawn.started[0].reaped)
    await until(lambda: clock.sleepers == 1)
    clock.advance(timedelta(seconds=1))  # ...and the next, a second later, starts another
    await until(lambda: len(spawn.started) == 2)
    await workers.stop()
    assert spawn.started[1].returncode == 0 and workers.processes == []
    clock.advance(timedelta(minutes=1))  # stopped: nothing is started again
    await until(lambda: True)
    assert len(spawn.started) == 2

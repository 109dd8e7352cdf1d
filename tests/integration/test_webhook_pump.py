"""The server's webhook pump: rounds repeat, a round goes on while deliveries were attempted, a
failing round does not stop it, and stopping waits for first attempts under way."""

from __future__ import annotations

import asyncio

from entrypoints.http.webhook_pump import WebhookPump


class _Webhooks:
    def __init__(self) -> None:
        self.rounds = 0
        self.settled = False
        self.fifth_round = asyncio.Event()

    async def deliver_due(self) -> int:
        self.rounds += 1
        if self.rounds == 5:
            self.fifth_round.set()
        if self.rounds == 1:
            raise RuntimeError("database restarting")  # logged; the next round tries again
        return 0

    async def settle(self) -> None:
        self.settled = True


async def test_the_pump_repeats_survives_a_failure_and_stops() -> None:
    webhooks = _Webhooks()
    pump = WebhookPump(webhooks, every_seconds=0)  # type: ignore[arg-type]
    await pump.start()
    await asyncio.wait_for(webhooks.fifth_round.wait(), timeout=5)
    await pump.stop()
    rounds = webhooks.rounds
    await asyncio.sleep(0)
    assert webhooks.rounds == rounds and webhooks.settled  # nothing runs after stop


class _Backlog(_Webhooks):
    def __init__(self, attempted: list[int]) -> None:
        super().__init__()
        self.attempted = attempted
        self.drained = asyncio.Event()

    async def deliver_due(self) -> int:
        self.rounds += 1
        if self.rounds == len(self.attempted):
            self.drained.set()
        return self.attempted[self.rounds - 1] if self.rounds <= len(self.attempted) else 0


async def test_a_backlog_is_worked_off_without_waiting_for_the_next_tick() -> None:
    webhooks = _Backlog([20, 20, 4, 0])
    pump = WebhookPump(webhooks, every_seconds=3600)  # type: ignore[arg-type]
    await pump.start()
    await asyncio.wait_for(webhooks.drained.wait(), timeout=5)
    await pump.stop()
    assert webhooks.rounds == 4

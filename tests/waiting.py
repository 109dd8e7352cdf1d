"""Waiting in a test for what it needs, counted in turns of the event loop, never in seconds:
in-memory work is done in a bounded number of turns, whatever the machine's speed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(condition: Callable[[], bool], turns: int = 200) -> None:
    """Let other tasks run until `condition` holds; fail if it does not within `turns` turns."""
    for _ in range(turns):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError(f"the condition did not hold within {turns} turns of the event loop")


async def settle(turns: int = 50) -> None:
    """Let every task that can go on do so: what has not happened after this will not on its own."""
    for _ in range(turns):
        await asyncio.sleep(0)

"""Where a single lookup's rate-limit count is made (#29): with the windows in the database it is
deferred to the lookup's own write; with them elsewhere (Redis) it is made at once, as before."""

from __future__ import annotations

from dataclasses import replace

import pytest

from application.errors import TooManyRequests
from application.rate_limit import RequestRateLimit
from application.ports.throttling import WindowCount
from domain.system_settings import SystemSettings
from tests.fakes import FakeClock, InMemoryRequestWindow, InMemorySystemSettings


class DatabaseWindow(InMemoryRequestWindow):
    rides_on_writes = True


async def test_a_window_elsewhere_counts_at_once_and_leaves_nothing_to_count() -> None:
    window = InMemoryRequestWindow(FakeClock())
    limit = RequestRateLimit(InMemorySystemSettings(), window, per_minute=2)
    assert await limit.deferred("u1") is None and await limit.deferred("u1") is None
    assert sum(window.counts.values()) == 2
    with pytest.raises(TooManyRequests):
        await limit.deferred("u1")


async def test_a_database_window_is_left_to_the_lookups_write() -> None:
    window = DatabaseWindow(FakeClock())
    limit = RequestRateLimit(InMemorySystemSettings(), window, per_minute=2)
    assert await limit.deferred("u1") == WindowCount("requests:u1", 2, 60)
    assert window.counts == {}


async def test_switched_off_nothing_is_counted_anywhere() -> None:
    window = DatabaseWindow(FakeClock())
    settings = InMemorySystemSettings(replace(SystemSettings(), rate_limiting=False))
    assert await RequestRateLimit(settings, window, per_minute=2).deferred("u1") is None
    assert await RequestRateLimit(settings, InMemoryRequestWindow(FakeClock()), per_minute=2).deferred("u1") is None


def test_the_window_and_its_wait() -> None:
    window = WindowCount("k", 5, 60, at=1_000_000_020.5)  # 20.5 s into an epoch-aligned minute... of its own
    assert window.window_start == 1_000_000_020.5 - (1_000_000_020.5 % 60)
    assert window.wait_when_full() == pytest.approx(window.window_start + 60 - window.at)
    assert replace(window, at=window.window_start + 59.9).wait_when_full() == 1.0  # at least a second

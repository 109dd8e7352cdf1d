"""The collector pause: nested and overlapping pauses resume the collector once, after the last,
and never turn on a collector that was off before."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from application.collector import collector_paused


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    gc.enable() if was else gc.disable()


def test_overlapping_pauses_resume_after_the_last(collector_on: None) -> None:  # noqa: ARG001
    first, second = collector_paused(), collector_paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first ends while the second still runs (two coroutines)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_pause_ended_by_an_error_resumes_the_collector(collector_on: None) -> None:  # noqa: ARG001
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_off_before_stays_off(collector_on: None) -> None:  # noqa: ARG001
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()

"""A worker's metrics port cannot be tied up without the token: it listens on loopback unless told,
handles a bounded number of connections at once, and drops a request that is not sent in time."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from adapters.metrics.http_server import MetricsHttpServer
from entrypoints.settings import Settings
from tests.processes import free_port

TOKEN = "worker-metrics-token-0123456789"
BOUND = 4
SLOW_CLIENTS = 40


@pytest.fixture
def metrics_server() -> Iterator[MetricsHttpServer]:
    port = free_port()
    server = MetricsHttpServer("127.0.0.1", range(port, port + 1), TOKEN, max_connections=BOUND, timeout=0.5)
    assert server.start() == port
    yield server
    server.stop()


def test_the_worker_metrics_listen_on_loopback_unless_told(tmp_path: Path) -> None:
    base = {"PERILSCOPE_SECRET_KEY": "s" * 40, "PERILSCOPE_VAR_DIR": str(tmp_path), "PERILSCOPE_METRICS_TOKEN": TOKEN,
            "PERILSCOPE_WORKER_METRICS_PORT": "9464"}
    assert Settings.from_env(base).worker_metrics_host == "127.0.0.1"
    assert Settings.from_env({**base, "PERILSCOPE_WORKER_METRICS_HOST": "0.0.0.0"}).worker_metrics_host == "0.0.0.0"


def test_unfinished_requests_hold_at_most_the_bound_of_threads_and_are_dropped_in_time(
    metrics_server: MetricsHttpServer,
) -> None:
    slow = [_unfinished_request(metrics_server.port) for _ in range(SLOW_CLIENTS)]
    try:
        # Each connection is soon either closed by the server or held by a thread of its own.
        _wait_for(lambda: _closed(slow) + _handler_threads() >= SLOW_CLIENTS, "every connection taken")
        assert _handler_threads() <= BOUND, f"{_handler_threads()} threads held by unfinished requests"
        # The held ones time out (0.5 s here) and are closed too.
        _wait_for(lambda: _closed(slow) == SLOW_CLIENTS, "the unfinished requests dropped")
    finally:
        for connection in slow:
            connection.close()
    scraped = httpx.get(f"http://127.0.0.1:{metrics_server.port}/metrics", headers={"Authorization": f"Bearer {TOKEN}"},
                        timeout=10)
    assert scraped.status_code == 200 and "# HELP" in scraped.text


def test_a_scrape_without_the_token_is_refused(metrics_server: MetricsHttpServer) -> None:
    assert httpx.get(f"http://127.0.0.1:{metrics_server.port}/metrics", timeout=10).status_code == 401


def _unfinished_request(port: int) -> socket.socket:
    """A connection that sends half a request and waits, as a slow client would."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    connection.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    connection.setblocking(False)
    return connection


def _closed(connections: list[socket.socket]) -> int:
    """How many of `connections` the server has closed (or reset)."""
    closed = 0
    for connection in connections:
        try:
            closed += connection.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:
            pass  # open, nothing sent yet
        except ConnectionResetError:
            closed += 1
    return closed


def _handler_threads() -> int:
    return sum("process_request_thread" in thread.name for thread in threading.enumerate())


def _wait_for(condition: Callable[[], bool], what: str, seconds: float = 10) -> None:
    """Poll `condition` (an event on sockets and threads) until it holds, failing after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.01)

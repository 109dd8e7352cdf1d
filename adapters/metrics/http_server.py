"""A batch worker's own metrics over HTTP (`perilscope worker` has no web server): prometheus_client's
WSGI app on a thread of the worker process, answering only a bearer of the metrics token, like the
server's /metrics (README, "Metrics")."""

from __future__ import annotations

import functools
import hmac
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import REGISTRY, CollectorRegistry, make_wsgi_app, multiprocess
from prometheus_client.exposition import ThreadingWSGIServer

log = logging.getLogger("perilscope.metrics")
StartResponse = Callable[..., Any]


MAX_CONNECTIONS = 8  # a scraper or two, with room; more at once is not Prometheus
REQUEST_TIMEOUT_SECONDS = 5.0  # a scrape's request arrives at once; one that dribbles is dropped


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass  # a scrape every few seconds is no news


class BoundedWSGIServer(ThreadingWSGIServer):
    """prometheus_client's threading server with a bound: at most `max_connections` handled at
    once (one more is closed at once, not given a thread) and each socket read or write timed
    out, so unfinished requests cannot hold a thread each for ever."""

    def __init__(self, address: tuple[str, int], handler: type[WSGIRequestHandler],
                 max_connections: int = MAX_CONNECTIONS, timeout: float = REQUEST_TIMEOUT_SECONDS) -> None:
        self._slots = threading.BoundedSemaphore(max_connections)
        self._request_timeout = timeout
        super().__init__(address, handler)

    def process_request(self, request: socket.socket, client_address: tuple[str, int]) -> None:
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        request.settimeout(self._request_timeout)
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: socket.socket, client_address: tuple[str, int]) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: socket.socket, client_address: tuple[str, int]) -> None:
        pass  # a timed-out or reset connection is the client's affair, not the worker's log's


def metrics_registry() -> CollectorRegistry:
    """This process's metrics, or with PROMETHEUS_MULTIPROC_DIR those of every process writing there."""
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    return registry


def _guarded(app: Callable[[dict, StartResponse], Iterable[bytes]], token: str):  # noqa: ANN202
    expected = f"Bearer {token}".encode()

    def guarded(environ: dict, start_response: StartResponse) -> Iterable[bytes]:
        given = environ.get("HTTP_AUTHORIZATION", "").encode()
        if not hmac.compare_digest(given, expected):
            start_response("401 Unauthorized", [("Content-Type", "text/plain; charset=utf-8"),
                                                ("WWW-Authenticate", "Bearer")])
            return [b"Metrics need 'Authorization: Bearer <PERILSCOPE_METRICS_TOKEN>'.\n"]
        return app(environ, start_response)

    return guarded


class MetricsHttpServer:
    """Serves on the first free port of `ports` (one per worker process of a `--workers N` run, so
    each process is its own Prometheus target, as Prometheus expects)."""

    def __init__(self, host: str, ports: range, token: str, max_connections: int = MAX_CONNECTIONS,
                 timeout: float = REQUEST_TIMEOUT_SECONDS) -> None:
        self._host = host
        self._ports = ports
        self._token = token
        self._bounds = {"max_connections": max_connections, "timeout": timeout}
        self._server: BoundedWSGIServer | None = None
        self.port: int | None = None

    def start(self) -> int | None:
        app = _guarded(make_wsgi_app(metrics_registry()), self._token)
        server_class = functools.partial(BoundedWSGIServer, **self._bounds)
        for port in self._ports:
            try:
                self._server = make_server(self._host, port, app, server_class, handler_class=_QuietHandler)
            except OSError:
                continue  # another worker process of this machine serves there
            self.port = port
            threading.Thread(target=self._server.serve_forever, name="worker-metrics", daemon=True).start()
            log.info("worker metrics served", extra={"host": self._host, "port": port})
            return port
        log.error("no free port for the worker's metrics", extra={"host": self._host, "ports": str(self._ports)})
        return None

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

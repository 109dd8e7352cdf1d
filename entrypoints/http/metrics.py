"""Prometheus metrics over HTTP: requests by route template (not by raw path, so ids in paths do
not multiply the series) and status, their latency, and /metrics itself, which answers only a
bearer of PERILSCOPE_METRICS_TOKEN (README, "Metrics")."""

from __future__ import annotations

import asyncio
import hmac
import logging

from litestar import Request, Response, get
from litestar.middleware.base import DefineMiddleware
from litestar.plugins.prometheus import PrometheusConfig
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from adapters.metrics.http_server import metrics_registry
from application.errors import NotAuthenticated, NotFound
from entrypoints.container import Container
from entrypoints.http.dependencies import AppSettings, bearer_token, container_of

METRICS_PATH = "/metrics"
QUEUE_DEPTH_SECONDS = 2.0  # a scrape waits no longer for the queue (Prometheus's own timeout is 10 s)
log = logging.getLogger("perilscope.metrics")
NOT_ENABLED = "Not found."  # like any unknown path: a server without a token does not say it has metrics


def http_metrics_middleware() -> DefineMiddleware:
    """perilscope_http_requests_total and perilscope_http_request_duration_seconds by method, route
    template and status (Litestar's middleware over prometheus_client)."""
    return PrometheusConfig(
        app_name="perilscope", prefix="perilscope_http", group_path=True, exclude=[METRICS_PATH],
    ).middleware


@get(METRICS_PATH, include_in_schema=False)
async def metrics(request: Request, settings: AppSettings) -> Response[bytes]:
    if not settings.metrics_token:
        raise NotFound(NOT_ENABLED)
    token = bearer_token(request) or ""
    if not hmac.compare_digest(token.encode(), settings.metrics_token.encode()):
        raise NotAuthenticated("Metrics need 'Authorization: Bearer <PERILSCOPE_METRICS_TOKEN>'.")
    await _read_queue_depth(container_of(request))
    return Response(generate_latest(metrics_registry()), media_type=CONTENT_TYPE_LATEST)


async def _read_queue_depth(container: Container) -> None:
    """The job queue's depth as of this scrape; a queue that does not answer in time (Redis down)
    leaves it unknown, and the scrape still answers."""
    try:
        async with asyncio.timeout(QUEUE_DEPTH_SECONDS):
            depth = await container.job_queue().depth()
    except Exception:  # noqa: BLE001 - the other metrics are still worth serving
        log.warning("the job queue's depth could not be read", exc_info=True)
        container.metrics().queue_depth(None, None)
        return
    container.metrics().queue_depth(depth.waiting, depth.taken)


ROUTES = [metrics]

"""Prometheus metrics over HTTP: requests by route template (not by raw path, so ids in paths do
not multiply the series) and status, their latency, and /metrics itself, which answers only a
bearer of PERILSCOPE_METRICS_TOKEN (README, "Metrics")."""

from __future__ import annotations

import hmac
import os

from litestar import Request, Response, get
from litestar.middleware.base import DefineMiddleware
from litestar.plugins.prometheus import PrometheusConfig
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest, multiprocess

from application.errors import NotAuthenticated, NotFound
from entrypoints.http.dependencies import AppSettings, bearer_token

METRICS_PATH = "/metrics"
NOT_ENABLED = "Not found."  # like any unknown path: a server without a token does not say it has metrics


def http_metrics_middleware() -> DefineMiddleware:
    """perilscope_http_requests_total and perilscope_http_request_duration_seconds by method, route
    template and status (Litestar's middleware over prometheus_client)."""
    return PrometheusConfig(
        app_name="perilscope", prefix="perilscope_http", group_path=True, exclude=[METRICS_PATH],
    ).middleware


@get(METRICS_PATH, include_in_schema=False, sync_to_thread=False)
def metrics(request: Request, settings: AppSettings) -> Response[bytes]:
    if not settings.metrics_token:
        raise NotFound(NOT_ENABLED)
    token = bearer_token(request) or ""
    if not hmac.compare_digest(token.encode(), settings.metrics_token.encode()):
        raise NotAuthenticated("Metrics need 'Authorization: Bearer <PERILSCOPE_METRICS_TOKEN>'.")
    return Response(generate_latest(_registry()), media_type=CONTENT_TYPE_LATEST)


def _registry() -> CollectorRegistry:
    """This process's metrics, or with PROMETHEUS_MULTIPROC_DIR those of every process of the server."""
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    return registry


ROUTES = [metrics]

"""The Litestar application, built from a container."""

from __future__ import annotations

from litestar import Litestar, Request
from litestar.static_files import create_static_files_router

from entrypoints.container import Container
from entrypoints.http.compression import COMPRESSION
from entrypoints.http.control_characters import refuse_control_characters
from entrypoints.http.cross_site import refuse_cross_site_requests
from entrypoints.http.dependencies import DEPENDENCIES
from entrypoints.http.errors import EXCEPTION_HANDLERS
from entrypoints.http.housekeeping import ReferenceWarmup, UploadPurger
from entrypoints.http.json_depth import refuse_deep_json
from entrypoints.local_workers import LocalWorkers
from entrypoints.sweeper import ChunkSweeper, OrphanFileSweeper
from entrypoints.http.webhook_pump import WebhookPump
from entrypoints.http.metrics import ROUTES as METRICS_ROUTES
from entrypoints.http.metrics import http_metrics_middleware
from entrypoints.http.openapi import openapi_config
from entrypoints.http.rate_limit_headers import rate_limit_headers_middleware
from entrypoints.http.request_id import request_id_middleware
from entrypoints.http.routes import ROUTE_HANDLERS
from entrypoints.http.security_headers import security_headers_hook
from entrypoints.http.spa import spa_routes
from entrypoints.http.swagger import ASSETS_URL, SWAGGER_ASSETS, SelfHostedSwagger

MAX_REQUEST_BODY_BYTES = 1 * 1024 * 1024  # uploads raise this on their own route


async def refuse_bad_requests(request: Request) -> None:
    """Every refusal that comes before a handler, in one hook: Litestar runs only the most
    specific `before_request`, so a second one elsewhere would replace this one."""
    await refuse_deep_json(request)  # first: the control-character check decodes the body
    await refuse_control_characters(request)
    await refuse_cross_site_requests(request)


def create_app(container: Container) -> Litestar:
    settings = container.settings()
    # Swagger UI's files come from a Python package, so /schema works offline.
    swagger_assets = create_static_files_router(path=ASSETS_URL, directories=[SWAGGER_ASSETS], name="swagger-assets")

    async def dispose_engine() -> None:
        container.search_store().close()
        await container.engine().dispose()

    async def close_http_client() -> None:
        await container.http_client().aclose()

    async def resume_batch_jobs() -> None:
        # Jobs live in the database: whatever was queued or running when the server stopped runs again.
        await container.batch().resume_unfinished()

    async def stop_batch_jobs() -> None:
        await container.job_queue().stop()

    upload_purger = UploadPurger(container)
    chunk_sweeper = ChunkSweeper(lambda: container.batch().sweep(), settings.batch_sweep_seconds)
    orphan_sweeper = OrphanFileSweeper(lambda: container.orphan_files().sweep(), settings.orphan_sweep_seconds)
    webhook_pump = WebhookPump(container.webhooks())
    local_workers = LocalWorkers.for_settings(settings)
    reference_warmup = ReferenceWarmup(container)

    async def close_webhook_sender() -> None:
        await container.webhook_sender().aclose()

    app = Litestar(
        route_handlers=[*ROUTE_HANDLERS, *METRICS_ROUTES, swagger_assets, *spa_routes(settings.web_dist)],
        dependencies=DEPENDENCIES,
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[http_metrics_middleware(), request_id_middleware, rate_limit_headers_middleware],
        # Secure cookies and HSTS go together: both when the public base URL is https.
        before_send=[security_headers_hook(https=settings.secure_cookies)],
        before_request=refuse_bad_requests,
        openapi_config=openapi_config(render_plugins=[SelfHostedSwagger()]),
        request_max_body_size=MAX_REQUEST_BODY_BYTES,
        on_startup=[resume_batch_jobs, upload_purger.start, chunk_sweeper.start, orphan_sweeper.start,
                    webhook_pump.start, local_workers.start, reference_warmup.start],
        on_shutdown=[reference_warmup.stop, local_workers.stop, upload_purger.stop, chunk_sweeper.stop, orphan_sweeper.stop, stop_batch_jobs,
                     webhook_pump.stop, close_webhook_sender,
                     dispose_engine, close_http_client],
        debug=False,
        # JSON, downloads and the web app's assets (a 280 kB bundle is 88 kB on the wire with gzip).
        compression_config=COMPRESSION,
        logging_config=None,  # our JSON logging (entrypoints/logging_setup.py) stays in charge
    )
    app.state.container = container
    return app

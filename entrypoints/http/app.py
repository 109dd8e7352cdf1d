"""The Litestar application, built from a container."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from litestar import Litestar
from litestar.config.compression import CompressionConfig
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.static_files import create_static_files_router

from entrypoints.container import Container
from entrypoints.http.cross_site import refuse_cross_site_requests
from entrypoints.http.dependencies import DEPENDENCIES
from entrypoints.http.errors import EXCEPTION_HANDLERS
from entrypoints.http.housekeeping import UploadPurger
from entrypoints.http.request_id import request_id_middleware
from entrypoints.http.routes import ROUTE_HANDLERS
from entrypoints.http.spa import spa_routes

# Swagger UI 5 (which renders OpenAPI 3.1) as shipped inside the swagger-ui-py wheel.
SWAGGER_ASSETS = Path(str(files("swagger_ui") / "static"))
MAX_REQUEST_BODY_BYTES = 1 * 1024 * 1024  # uploads raise this on their own route


def openapi_config() -> OpenAPIConfig:
    # Swagger UI's files come from a Python package, so /schema works offline.
    swagger = SwaggerRenderPlugin(
        path="/",
        js_url="/schema-assets/swagger-ui-bundle.js",
        css_url="/schema-assets/swagger-ui.css",
        standalone_preset_js_url="/schema-assets/swagger-ui-standalone-preset.js",
        favicon='<link rel="icon" type="image/png" href="/schema-assets/favicon-32x32.png">',
    )
    return OpenAPIConfig(title="PerilScope API", version="1.0.0", path="/schema", render_plugins=[swagger])


def create_app(container: Container) -> Litestar:
    settings = container.settings()
    swagger_assets = create_static_files_router(
        path="/schema-assets", directories=[SWAGGER_ASSETS], name="swagger-assets"
    )

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

    app = Litestar(
        route_handlers=[*ROUTE_HANDLERS, swagger_assets, *spa_routes(settings.web_dist)],
        dependencies=DEPENDENCIES,
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[request_id_middleware],
        before_request=refuse_cross_site_requests,
        openapi_config=openapi_config(),
        request_max_body_size=MAX_REQUEST_BODY_BYTES,
        on_startup=[resume_batch_jobs, upload_purger.start],
        on_shutdown=[upload_purger.stop, stop_batch_jobs, dispose_engine, close_http_client],
        debug=False,
        # gzip for JSON and the web app's assets (a 280 kB bundle is 88 kB on the wire).
        compression_config=CompressionConfig(backend="gzip", minimum_size=1024, gzip_compress_level=6),
        logging_config=None,  # our JSON logging (entrypoints/logging_setup.py) stays in charge
    )
    app.state.container = container
    return app

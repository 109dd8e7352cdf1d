"""Serves the built React app: files from web/dist, and index.html for client-side routes."""

from __future__ import annotations

from pathlib import Path

from litestar import MediaType, Request, Response, get
from litestar.datastructures import CacheControlHeader
from litestar.exceptions import NotFoundException
from litestar.openapi import ResponseSpec
from litestar.params import FromPath
from litestar.response import File
from litestar.static_files import create_static_files_router

from entrypoints.http.dependencies import AppSettings

# Paths the API owns: an unknown one under these must stay a JSON 404, never the app's HTML.
API_PREFIXES = ("api", "schema", "health", "ready")


@get("/{path:path}", include_in_schema=False, sync_to_thread=False)
def spa_fallback(request: Request, settings: AppSettings, path: FromPath[str]) -> Response | File:
    first_segment = path.lstrip("/").split("/", 1)[0]
    if first_segment in API_PREFIXES:
        raise NotFoundException(f"No API route at {request.url.path}")
    dist = settings.web_dist
    candidate = (dist / path.lstrip("/")).resolve()
    # Top-level files of the build (favicon, robots.txt); everything else is a client route.
    if candidate.parent == dist.resolve() and candidate.is_file():
        return File(candidate)
    return _index(dist)


@get("/", include_in_schema=False, sync_to_thread=False)
def index_page(settings: AppSettings) -> Response | File:
    return _index(settings.web_dist)


@get(
    "/forgot-password",
    tags=["auth"],
    summary="The web app's page for asking a reset link (HTML); the request itself is the POST",
    media_type=MediaType.HTML,
    sync_to_thread=False,
    responses={
        503: ResponseSpec(
            data_container=str, media_type=MediaType.HTML, description="The web app is not built", generate_examples=False
        )
    },
)
def forgot_password_page(settings: AppSettings) -> Response | File:
    """/forgot-password takes the reset request by POST (SPEC §7) and shows the app's page by GET."""
    return _index(settings.web_dist)


def _index(dist: Path) -> Response | File:
    index = dist / "index.html"
    if not index.is_file():
        return Response(
            "<h1>PerilScope</h1><p>The web app is not built yet: run <code>make run</code>.</p>",
            media_type="text/html",
            status_code=503,
        )
    return File(index, content_disposition_type="inline", media_type="text/html", headers={"Cache-Control": "no-cache"})


def spa_routes(dist: Path) -> list:
    assets = create_static_files_router(
        path="/assets",
        directories=[dist / "assets"],
        name="web-assets",
        # Vite puts a content hash in every asset name, so a file never changes.
        cache_control=CacheControlHeader(max_age=31_536_000, public=True, immutable=True),
    )
    return [assets, index_page, forgot_password_page, spa_fallback]

"""Liveness and readiness probes."""

from __future__ import annotations

from litestar import Response, get
from litestar.openapi import ResponseSpec
from sqlalchemy import text

from entrypoints.http.dependencies import Database


@get("/health", tags=["system"], summary="Liveness: the process answers")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@get(
    "/ready",
    tags=["system"],
    summary="Readiness: the database answers",
    responses={503: ResponseSpec(dict[str, str], description="The database does not answer", generate_examples=False)},
)
async def ready(database: Database) -> Response[dict[str, str]]:
    try:
        async with database.connect() as connection:
            await connection.execute(text("SELECT 1"))
    except Exception:  # noqa: BLE001 - any failure means not ready
        return Response({"status": "unavailable", "database": "unreachable"}, status_code=503)
    return Response({"status": "ok", "database": "ok"})


ROUTES = [health, ready]

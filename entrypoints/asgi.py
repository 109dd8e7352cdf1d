"""ASGI entry point: `uvicorn entrypoints.asgi:app`."""

from entrypoints.memory import limit_malloc_arenas

limit_malloc_arenas()  # before any thread starts

from entrypoints.container import build_container
from entrypoints.http.app import create_app
from entrypoints.logging_setup import configure_logging

container = build_container()
configure_logging(container.settings().log_level)
app = create_app(container)

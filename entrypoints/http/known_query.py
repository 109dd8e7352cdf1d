"""The public API's GET operations refuse query parameters they do not read (a 400 that names them),
so a listing's `page=2` or `cursor=...` is never silently ignored and the first page answered as if
it were the one asked for, nor a misspelt `include_ocupants` answered without the occupants."""

from __future__ import annotations

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.types import Guard

from application.errors import InvalidInput


def only_query(*names: str) -> Guard:
    """A guard that answers 400 (code unknown_query_parameter) to any query parameter but `names`."""
    known = frozenset(names)

    def guard(connection: ASGIConnection, _handler: BaseRouteHandler) -> None:
        unknown = sorted({name for name in connection.query_params if name not in known})
        if unknown:
            accepted = ", ".join(sorted(known)) or "none"
            raise InvalidInput(
                f"Unknown query parameter(s): {', '.join(name[:40] for name in unknown[:5])}. "
                f"This operation reads: {accepted}.",
                code="unknown_query_parameter",
                details={"unknown": unknown[:5], "accepted": sorted(known)},
            )

    return guard

"""JSON lines on stderr: one object per record, with any `extra` fields kept."""

from __future__ import annotations

import json
import logging
import sys
import traceback
from datetime import UTC, datetime
from types import TracebackType

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None] | tuple[None, None, None]


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        entry.update({k: v for k, v in record.__dict__.items() if k not in _STANDARD})
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)

    def formatException(self, ei: ExcInfo) -> str:  # noqa: N802 - logging.Formatter's name
        """Where it failed, without what it failed on: an exception's text can quote the data it
        was handling (a database error its parameters, a parser the line it read), and uploaded
        addresses and request bodies must never reach the logs. So each exception in the chain
        appears as its type and its stack of file, line and function, never its message."""
        exc = ei[1]
        parts: list[str] = []
        seen: set[int] = set()
        while exc is not None and id(exc) not in seen:
            seen.add(id(exc))
            stack = traceback.extract_tb(exc.__traceback__)
            frames = "".join(f'\n  File "{frame.filename}", line {frame.lineno}, in {frame.name}' for frame in stack)
            parts.append(f"{type(exc).__module__}.{type(exc).__qualname__} (message withheld){frames}")
            exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
        return "\ncaused by: ".join(parts)


def configure_logging(level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # The access log above replaces uvicorn's own.
    logging.getLogger("uvicorn.access").disabled = True
    # httpx logs each request URL at INFO, and Google's key travels in the query string.
    logging.getLogger("httpx").setLevel(logging.WARNING)

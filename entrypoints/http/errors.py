"""Every error leaves as {"status": "error", "error": message}; internals never leave the server."""

from __future__ import annotations

import logging
import uuid

from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from application.errors import (
    ApplicationError,
    Conflict,
    Forbidden,
    InvalidInput,
    NotAuthenticated,
    NotFound,
    ProviderUnavailable,
    QuotaExceeded,
    ServiceBusy,
    TooManyRequests,
)
from domain.batch_input import UploadError
from entrypoints.http.request_id import request_id_of

log = logging.getLogger("perilscope.http")

STATUS_BY_ERROR: dict[type[ApplicationError], int] = {
    InvalidInput: 400,
    NotAuthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    QuotaExceeded: 429,
    TooManyRequests: 429,
    ProviderUnavailable: 503,
    ServiceBusy: 503,
}


def error_response(request: Request, status: int, message: str, **extra: object) -> Response:
    # Routing 404s happen before the middleware runs, so they get their id here.
    request_id = request_id_of(request) or uuid.uuid4().hex
    body = {"status": "error", "error": message, "request_id": request_id, **extra}
    return Response(body, status_code=status, media_type=MediaType.JSON)


def application_error(request: Request, exc: ApplicationError) -> Response:
    status = next((code for kind, code in STATUS_BY_ERROR.items() if isinstance(exc, kind)), 400)
    return error_response(request, status, exc.message)


def http_error(request: Request, exc: HTTPException) -> Response:
    if isinstance(exc, ValidationException):
        return error_response(request, 400, _validation_message(exc))
    message = exc.detail if exc.status_code < 500 else "Internal server error"
    response = error_response(request, exc.status_code, message)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


def upload_error(request: Request, exc: UploadError) -> Response:
    return error_response(request, 413 if exc.too_large else 400, exc.message)


def unhandled_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error", extra={"request_id": request_id_of(request), "path": request.url.path})
    return error_response(request, HTTP_500_INTERNAL_SERVER_ERROR, "Internal server error")


def _validation_message(exc: ValidationException) -> str:
    problems = exc.extra if isinstance(exc.extra, list) else []
    parts = []
    for problem in problems:
        if isinstance(problem, dict):
            key = problem.get("key")
            text = problem.get("message", "is invalid")
            parts.append(f"{key}: {text}" if key else str(text))
    return "Invalid request: " + "; ".join(parts) if parts else "Invalid request"


EXCEPTION_HANDLERS = {
    ApplicationError: application_error,
    UploadError: upload_error,
    HTTPException: http_error,
    Exception: unhandled_error,
}

"""Every error leaves as {"status": "error", "error": message, "request_id": ..., "code": ...};
internals never leave the server, and neither request bodies nor uploads reach the logs."""

from __future__ import annotations

import logging
import math
import uuid
from typing import Any

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
    StorageFull,
    TooLarge,
    TooManyRequests,
)
from domain.batch_input import UploadError
from entrypoints.http.openapi import ErrorBody
from entrypoints.http.request_id import request_id_of

log = logging.getLogger("perilscope.http")

STATUS_BY_ERROR: dict[type[ApplicationError], int] = {
    InvalidInput: 400,
    NotAuthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    StorageFull: 413,
    TooLarge: 413,
    QuotaExceeded: 429,
    TooManyRequests: 429,
    ProviderUnavailable: 503,
    ServiceBusy: 503,
}

# Litestar's own exceptions (routing, body size, methods) carry only a status.
CODE_BY_STATUS = {
    400: "invalid_input",
    401: "not_authenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    500: "internal_error",
    503: "service_unavailable",
}


def error_response(
    request: Request, status: int, message: str, code: str | None = None, details: dict[str, Any] | None = None
) -> Response:
    # Routing 404s happen before the middleware runs, so they get their id here.
    request_id = request_id_of(request) or uuid.uuid4().hex
    body = ErrorBody(
        status="error", error=message, request_id=request_id, code=code or CODE_BY_STATUS.get(status, "error"),
        details=details,
    )
    return Response(body, status_code=status, media_type=MediaType.JSON)


def application_error(request: Request, exc: ApplicationError) -> Response:
    status = next((code for kind, code in STATUS_BY_ERROR.items() if isinstance(exc, kind)), 400)
    response = error_response(request, status, exc.message, exc.code, exc.details)
    if isinstance(exc, TooManyRequests) and exc.retry_after:
        response.headers["Retry-After"] = str(math.ceil(exc.retry_after))
    if exc.code == "daily_limit_reached" and exc.details:  # the public API's plan: where the caller stands
        for name in ("limit", "remaining", "reset"):
            response.headers[f"X-RateLimit-{name.title()}"] = str(exc.details[name])
    return response


def http_error(request: Request, exc: HTTPException) -> Response:
    if isinstance(exc, ValidationException):
        return error_response(request, 400, _validation_message(exc), "validation_error")
    message = exc.detail if exc.status_code < 500 else "Internal server error"
    response = error_response(request, exc.status_code, message)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


def upload_error(request: Request, exc: UploadError) -> Response:
    if exc.too_large:
        return error_response(request, 413, exc.message, "payload_too_large")
    return error_response(request, 400, exc.message, "invalid_upload")


def unhandled_error(request: Request, exc: Exception) -> Response:
    # Method and path only: the body, the query and the upload stay out of the logs, and the
    # formatter (entrypoints/logging_setup.py) leaves out the exception's own text, which can quote them.
    log.exception(
        "unhandled error", extra={"request_id": request_id_of(request), "method": request.method, "path": request.url.path}
    )
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

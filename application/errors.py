"""Failures a use case reports; the HTTP layer maps each kind to one status code.

Each kind carries a machine-readable `code` (STYLE.md §5) that the web app can branch on
instead of reading the prose; a raise site may pass a more precise one."""

from __future__ import annotations


class ApplicationError(Exception):
    """Base: `message` is safe to show to the person who made the request."""

    code = "error"

    def __init__(self, message: str, code: str | None = None, details: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.message = message
        # Facts a program may act on, e.g. {"limit": 10} beside quota_exceeded.
        self.details = details
        if code is not None:
            self.code = code


class InvalidInput(ApplicationError):
    code = "invalid_input"


class NotAuthenticated(ApplicationError):
    code = "not_authenticated"


class Forbidden(ApplicationError):
    code = "forbidden"


class NotFound(ApplicationError):
    code = "not_found"


class Conflict(ApplicationError):
    code = "conflict"


class TooManyRequests(ApplicationError):
    code = "rate_limited"

    def __init__(
        self,
        message: str,
        retry_after: float | None = None,
        code: str | None = None,
        details: dict[str, object] | None = None,
    ) -> None:
        super().__init__(message, code, details)
        self.retry_after = retry_after  # seconds, when known: sent as Retry-After


class QuotaExceeded(ApplicationError):
    code = "quota_exceeded"


class TooLarge(ApplicationError):
    """The request asks for more than one request may (say, more addresses than a batch takes)."""

    code = "payload_too_large"


class StorageFull(ApplicationError):
    """Storing this would take the user past their storage cap."""

    code = "storage_full"


class ProviderUnavailable(ApplicationError):
    """A third-party data provider refused, failed or timed out; trying again later may work."""

    code = "provider_unavailable"


class ServiceBusy(ApplicationError):
    """A shared resource (the embedded database's single writer) stayed busy too long; trying again shortly works."""

    code = "service_busy"

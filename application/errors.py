"""Failures a use case reports; the HTTP layer maps each kind to one status code."""

from __future__ import annotations


class ApplicationError(Exception):
    """Base: `message` is safe to show to the person who made the request."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(ApplicationError):
    pass


class NotAuthenticated(ApplicationError):
    pass


class Forbidden(ApplicationError):
    pass


class NotFound(ApplicationError):
    pass


class Conflict(ApplicationError):
    pass


class TooManyRequests(ApplicationError):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after  # seconds, when known: sent as Retry-After


class QuotaExceeded(ApplicationError):
    pass


class StorageFull(ApplicationError):
    """Storing this would take the user past their storage cap."""


class ProviderUnavailable(ApplicationError):
    """A third-party data provider refused, failed or timed out; trying again later may work."""

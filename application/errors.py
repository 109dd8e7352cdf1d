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
    pass


class QuotaExceeded(ApplicationError):
    pass


class ProviderUnavailable(ApplicationError):
    """A third-party data provider refused, failed or timed out; trying again later may work."""


class ServiceBusy(ApplicationError):
    """A shared resource (the embedded database's single writer) stayed busy too long; trying again shortly works."""

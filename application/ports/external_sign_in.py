"""Ports of third-party sign-in (application/external_sign_in.py): the identity providers and the
sealed record of a sign-in under way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ExternalIdentity:
    issuer: str
    subject: str
    email: str | None  # only a verified address, else None
    name: str | None
    picture: str | None


@dataclass(frozen=True, slots=True)
class PendingSignIn:
    """What the callback must match: kept by the browser in a signed, short-lived cookie."""

    provider: str
    state: str
    code_verifier: str
    nonce: str | None  # only for providers that issue ID tokens


class ExternalIdentityProvider(Protocol):
    def configured(self) -> list[ProviderInfo]: ...

    async def authorization_url(self, provider: str, redirect_uri: str) -> tuple[str, PendingSignIn]: ...

    async def complete(self, provider: str, redirect_uri: str, code: str, pending: PendingSignIn) -> ExternalIdentity:
        """Exchange the code and prove the identity; raises ExternalSignInFailed."""
        ...


class PendingSignInSealer(Protocol):
    def seal(self, pending: PendingSignIn) -> str: ...

    def unseal(self, sealed: str) -> PendingSignIn | None:
        """None when the value was altered, signed with another key, or is older than its lifetime."""
        ...

"""Ports of the account use cases (application/accounts.py): users, tokens, password resets,
who signed a request and their stored role."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, Self

from domain.accounts import Role, User


@dataclass(frozen=True, slots=True)
class RefreshTokenRecord:
    id: str
    user_id: str
    family_id: str
    token_hash: str
    expires_at: datetime
    persistent: bool
    revoked_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class PasswordResetRecord:
    id: str
    user_id: str
    token_hash: str
    expires_at: datetime
    used_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class SearchActivity:
    month_searches: int
    total_searches: int
    last_search_at: datetime | None


class UserRepository(Protocol):
    async def add(self, user: User) -> None: ...
    async def by_id(self, user_id: str) -> User | None: ...
    async def by_email(self, email: str) -> User | None: ...
    async def update_profile(self, user_id: str, display_name: str | None, photo_url: str | None) -> None: ...
    async def set_password_hash(self, user_id: str, password_hash: str) -> None: ...
    async def set_role(self, user_id: str, role: Role) -> None: ...
    async def by_external_identity(self, issuer: str, subject: str) -> User | None: ...
    async def link_external_identity(self, user_id: str, issuer: str, subject: str) -> None: ...


class RefreshTokenRepository(Protocol):
    async def add(self, record: RefreshTokenRecord) -> None: ...
    async def by_hash(self, token_hash: str) -> RefreshTokenRecord | None: ...
    async def revoke(self, token_id: str, at: datetime) -> bool:
        """Revoke one token; False when it was already revoked (a concurrent reuse)."""
        ...
    async def revoked_at(self, token_id: str) -> datetime | None:
        """When the token was revoked, as stored now (read again, never from an earlier read)."""
        ...
    async def family_alive(self, family_id: str, now: datetime) -> bool:
        """True while the family has a token neither revoked nor expired."""
        ...
    async def revoke_family(self, family_id: str, at: datetime) -> None: ...
    async def revoke_all_for_user(self, user_id: str, at: datetime, except_family: str | None = None) -> None: ...


class PasswordResetRepository(Protocol):
    async def add(self, record: PasswordResetRecord) -> None: ...
    async def by_hash(self, token_hash: str) -> PasswordResetRecord | None: ...
    async def mark_used(self, reset_id: str, at: datetime) -> bool:
        """Mark used; False when it was used already, so a token works once even under races."""
        ...
    async def invalidate_unused(self, user_id: str, at: datetime) -> None:
        """Mark every unused link of the user used, so only a link issued after this works."""
        ...


class SearchActivityReader(Protocol):
    async def activity(self, user_id: str, month: str) -> SearchActivity: ...


class UnitOfWork(Protocol):
    users: UserRepository
    refresh_tokens: RefreshTokenRepository
    password_resets: PasswordResetRepository
    search_activity: SearchActivityReader

    async def __aenter__(self) -> Self: ...
    async def __aexit__(self, *exc: object) -> None: ...
    async def commit(self) -> None: ...


class UnitOfWorkFactory(Protocol):
    def __call__(self) -> UnitOfWork: ...


class PasswordHasher(Protocol):
    async def hash(self, password: str) -> str: ...
    async def verify(self, password_hash: str, password: str) -> bool: ...


class PasswordStrength(Protocol):
    async def weakness(self, password: str, personal: list[str]) -> str | None:
        """Why the password is too easy to guess (common, breached, built from `personal` words
        such as the email), as a sentence for the user; None when it is acceptable."""
        ...


@dataclass(frozen=True, slots=True)
class AccessClaims:
    """Who signed the request. Deliberately no role: a token outlives a demotion, so every
    decision that depends on the role asks `UserRoles`, which reads the database."""

    user_id: str
    # An administrator who must set up two-factor sign-in first: only the set-up calls accept it.
    mfa_enrolment_only: bool = False


class UserRoles(Protocol):
    async def role_of(self, user_id: str) -> Role | None:
        """The stored role (None for a deleted account), at most a few seconds old."""
        ...

    def forget(self, user_id: str) -> None:
        """Drop a cached role after a change, so this process sees it at once."""
        ...


class AccessTokenIssuer(Protocol):
    @property
    def lifetime_seconds(self) -> int: ...
    def issue(self, user: User, mfa_enrolment_only: bool = False) -> str: ...
    def verify(self, token: str) -> AccessClaims | None: ...


@dataclass(frozen=True, slots=True)
class SecondFactorRequired:
    """The password (or the provider) was right; a one-time code must follow with this token."""

    mfa_token: str


class SecondFactor(Protocol):
    """What sign-in asks of two-factor sign-in (application/mfa.py implements it)."""

    async def challenge(self, user: User, persistent: bool) -> str | None:
        """A short-lived token for the second step, or None when the user has no second factor."""
        ...

    async def enrolment_only(self, user: User) -> bool:
        """True for an administrator who must set up two-factor sign-in before anything else."""
        ...

"""The records and ports of two-factor sign-in (application/mfa.py); adapters implement the ports."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True)
class RecoveryCodeRecord:
    id: str
    code_hash: str  # argon2id, like a password
    used: bool


@dataclass(frozen=True, slots=True)
class MfaEnrolment:
    user_id: str
    sealed_secret: str
    enabled: bool
    last_used_step: int | None
    pending_challenge: str | None  # SHA-256 of the one sign-in challenge that may still finish
    recovery_codes: tuple[RecoveryCodeRecord, ...] = ()

    @property
    def unused_recovery_codes(self) -> list[RecoveryCodeRecord]:
        return [code for code in self.recovery_codes if not code.used]


@dataclass(frozen=True, slots=True)
class MfaChallenge:
    """What the second sign-in step must match, carried by the browser in a signed token."""

    user_id: str
    challenge_id: str
    persistent: bool


class MfaStore(Protocol):
    async def enrolment(self, user_id: str) -> MfaEnrolment | None: ...

    async def is_enabled(self, user_id: str) -> bool: ...

    async def start_enrolment(self, user_id: str, sealed_secret: str, at: datetime) -> None:
        """Keep a new, not yet confirmed secret, replacing any unconfirmed one."""
        ...

    async def enable(self, user_id: str, step: int, recovery_code_hashes: list[str], at: datetime) -> bool:
        """Turn it on with its first used step and recovery codes; False when it was on already."""
        ...

    async def use_step(self, user_id: str, step: int) -> bool:
        """Record `step` as used; False when this or a later step was used already (a replay)."""
        ...

    async def use_recovery_code(self, code_id: str, at: datetime) -> bool:
        """Mark one code used; False when it was used already, so each works once even under races."""
        ...

    async def set_challenge(self, user_id: str, challenge_hash: str) -> None: ...

    async def take_challenge(self, user_id: str, challenge_hash: str) -> bool:
        """Clear the pending challenge if it is this one; False when it is not (used or replaced)."""
        ...

    async def remove(self, user_id: str) -> None: ...


class OneTimeCodes(Protocol):
    """RFC 6238 TOTP."""

    def new_secret(self) -> str: ...

    def provisioning_uri(self, secret: str, account_name: str, issuer: str) -> str: ...

    def matching_step(self, secret: str, code: str, at: datetime) -> int | None:
        """The time step within the allowed drift whose code this is, or None."""
        ...


class QrCodes(Protocol):
    def svg(self, text: str) -> str: ...


class ChallengeSealer(Protocol):
    def seal(self, challenge: MfaChallenge) -> str: ...

    def unseal(self, token: str) -> MfaChallenge | None:
        """None when altered, signed with another key, or older than its 5-minute lifetime."""
        ...

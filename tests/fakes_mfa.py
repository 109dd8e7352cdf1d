"""An in-memory two-factor store, and the accounts world of tests/fakes.py with two-factor sign-in wired in."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import datetime

from adapters.security.mfa_challenge import SignedMfaChallenge
from adapters.security.secret_box import AesGcmSecretBox
from adapters.security.totp import PyotpCodes, SegnoQrCodes
from application.mfa import MfaGate, MfaService
from application.ports.mfa import MfaEnrolment, RecoveryCodeRecord
from adapters.security.access_tokens import JwtAccessTokens
from application.accounts import AccountPolicy, AccountService
from adapters.security.password_strength import ZxcvbnPasswordStrength
from tests.fakes import (
    AccountsWorld,
    CountingHasher,
    FakeClock,
    FakeHasher,
    InMemoryRoles,
    InMemoryThrottle,
    InMemorySystemSettings,
    InMemoryUnitOfWork,
    Store,
)

SECRET = "test-secret-" + "s" * 32


class InMemoryMfaStore:
    def __init__(self) -> None:
        self.rows: dict[str, MfaEnrolment] = {}

    async def enrolment(self, user_id: str) -> MfaEnrolment | None:
        return self.rows.get(user_id)

    async def is_enabled(self, user_id: str) -> bool:
        row = self.rows.get(user_id)
        return bool(row and row.enabled)

    async def start_enrolment(self, user_id: str, sealed_secret: str, at: datetime) -> None:
        if not await self.is_enabled(user_id):
            self.rows[user_id] = MfaEnrolment(user_id, sealed_secret, False, None, None)

    async def enable(self, user_id: str, step: int, recovery_code_hashes: list[str], at: datetime) -> bool:
        row = self.rows.get(user_id)
        if row is None or row.enabled:
            return False
        codes = tuple(RecoveryCodeRecord(str(uuid.uuid4()), h, False) for h in recovery_code_hashes)
        self.rows[user_id] = replace(row, enabled=True, last_used_step=step, recovery_codes=codes)
        return True

    async def use_step(self, user_id: str, step: int) -> bool:
        row = self.rows[user_id]
        if row.last_used_step is not None and row.last_used_step >= step:
            return False
        self.rows[user_id] = replace(row, last_used_step=step)
        return True

    async def use_recovery_code(self, code_id: str, at: datetime) -> bool:
        for user_id, row in self.rows.items():
            for index, code in enumerate(row.recovery_codes):
                if code.id == code_id:
                    if code.used:
                        return False
                    codes = list(row.recovery_codes)
                    codes[index] = replace(code, used=True)
                    self.rows[user_id] = replace(row, recovery_codes=tuple(codes))
                    return True
        return False

    async def set_challenge(self, user_id: str, challenge_hash: str) -> None:
        self.rows[user_id] = replace(self.rows[user_id], pending_challenge=challenge_hash)

    async def take_challenge(self, user_id: str, challenge_hash: str) -> bool:
        row = self.rows.get(user_id)
        if row is None or row.pending_challenge != challenge_hash:
            return False
        self.rows[user_id] = replace(row, pending_challenge=None)
        return True

    async def remove(self, user_id: str) -> None:
        self.rows.pop(user_id, None)


@dataclass
class MfaWorld:
    accounts: AccountsWorld
    mfa: MfaService
    gate: MfaGate
    store: InMemoryMfaStore
    settings: InMemorySystemSettings
    box: AesGcmSecretBox


def in_memory_mfa() -> MfaWorld:
    store = Store()
    clock = FakeClock()
    mfa_store = InMemoryMfaStore()
    settings = InMemorySystemSettings()
    sealer = SignedMfaChallenge(SECRET, now=lambda: clock.now().timestamp())
    gate = MfaGate(store=mfa_store, sealer=sealer, settings=settings)
    throttle = InMemoryThrottle(clock)
    hasher = CountingHasher()
    service = AccountService(
        uow=lambda: InMemoryUnitOfWork(store),
        hasher=hasher,
        tokens=JwtAccessTokens(SECRET, lifetime_seconds=900),
        throttle=throttle,
        clock=clock,
        policy=AccountPolicy(reset_url_base="https://app.example"),
        dummy_hash="fake$" + "unguessable" * 3,
        settings=settings,
        roles=InMemoryRoles(store),
        strength=ZxcvbnPasswordStrength(),
        second_factor=gate,
    )
    box = AesGcmSecretBox(SECRET)
    mfa = MfaService(
        store=mfa_store,
        codes=PyotpCodes(),
        qr=SegnoQrCodes(),
        box=box,
        sealer=sealer,
        hasher=FakeHasher(),
        throttle=throttle,
        clock=clock,
        accounts=service,
        gate=gate,
        uow=lambda: InMemoryUnitOfWork(store),
    )
    return MfaWorld(AccountsWorld(service, store, clock, throttle, hasher), mfa, gate, mfa_store, settings, box)

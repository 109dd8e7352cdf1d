"""In-memory adapters for use-case tests: a unit of work over plain dicts, a fake hasher and a clock you can advance."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Self

from adapters.security.access_tokens import JwtAccessTokens
from adapters.security.password_strength import ZxcvbnPasswordStrength
from application.accounts import AccountPolicy, AccountService
from application.ports import PasswordResetRecord, RefreshTokenRecord, SearchActivity
from domain.system_settings import SystemSettings
from domain.accounts import Role, User
from domain.throttling import ThrottleRule, ThrottleState, next_attempt, refunded


class FakeClock:
    def __init__(self, start: datetime = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)) -> None:
        self._now = start

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> None:
        self._now += delta

    def monotonic(self) -> float:
        return self._now.timestamp()


class FakeHasher:
    """Reversible on purpose: the use cases' logic is under test, not argon2."""

    async def hash(self, password: str) -> str:
        return f"fake${password}"

    async def verify(self, password_hash: str, password: str) -> bool:
        return password_hash == f"fake${password}"


@dataclass
class Store:
    users: dict[str, User] = field(default_factory=dict)
    external: dict[tuple[str, str], str] = field(default_factory=dict)
    refresh_tokens: dict[str, RefreshTokenRecord] = field(default_factory=dict)
    resets: dict[str, PasswordResetRecord] = field(default_factory=dict)
    searches: list[tuple[str, datetime]] = field(default_factory=list)


class InMemoryUsers:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def add(self, user: User) -> None:
        self._s.users[user.id] = user

    async def by_id(self, user_id: str) -> User | None:
        return self._s.users.get(user_id)

    async def by_email(self, email: str) -> User | None:
        return next((u for u in self._s.users.values() if u.email == email), None)

    async def update_profile(self, user_id: str, display_name: str | None, photo_url: str | None) -> None:
        self._s.users[user_id] = replace(self._s.users[user_id], display_name=display_name, photo_url=photo_url)

    async def set_password_hash(self, user_id: str, password_hash: str) -> None:
        self._s.users[user_id] = replace(self._s.users[user_id], password_hash=password_hash)

    async def set_role(self, user_id: str, role: Role) -> None:
        self._s.users[user_id] = replace(self._s.users[user_id], role=role)

    async def by_external_identity(self, issuer: str, subject: str) -> User | None:
        user_id = self._s.external.get((issuer, subject))
        return self._s.users.get(user_id) if user_id else None

    async def link_external_identity(self, user_id: str, issuer: str, subject: str) -> None:
        self._s.external[(issuer, subject)] = user_id


class InMemoryRefreshTokens:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def add(self, record: RefreshTokenRecord) -> None:
        self._s.refresh_tokens[record.id] = record

    async def by_hash(self, token_hash: str) -> RefreshTokenRecord | None:
        return next((r for r in self._s.refresh_tokens.values() if r.token_hash == token_hash), None)

    async def revoke(self, token_id: str, at: datetime) -> bool:
        record = self._s.refresh_tokens[token_id]
        if record.revoked_at is not None:
            return False
        self._s.refresh_tokens[token_id] = replace(record, revoked_at=at)
        return True

    async def revoke_family(self, family_id: str, at: datetime) -> None:
        self._revoke_where(lambda r: r.family_id == family_id, at)

    async def revoke_all_for_user(self, user_id: str, at: datetime, except_family: str | None = None) -> None:
        self._revoke_where(lambda r: r.user_id == user_id and r.family_id != except_family, at)

    def _revoke_where(self, matches, at: datetime) -> None:  # noqa: ANN001
        for key, record in list(self._s.refresh_tokens.items()):
            if matches(record) and record.revoked_at is None:
                self._s.refresh_tokens[key] = replace(record, revoked_at=at)


class InMemoryPasswordResets:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def add(self, record: PasswordResetRecord) -> None:
        self._s.resets[record.id] = record

    async def by_hash(self, token_hash: str) -> PasswordResetRecord | None:
        return next((r for r in self._s.resets.values() if r.token_hash == token_hash), None)

    async def mark_used(self, reset_id: str, at: datetime) -> bool:
        record = self._s.resets[reset_id]
        if record.used_at is not None:
            return False
        self._s.resets[reset_id] = replace(record, used_at=at)
        return True

    async def invalidate_unused(self, user_id: str, at: datetime) -> None:
        for key, record in list(self._s.resets.items()):
            if record.user_id == user_id and record.used_at is None:
                self._s.resets[key] = replace(record, used_at=at)


class InMemorySearchActivity:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def activity(self, user_id: str, month: str) -> SearchActivity:
        mine = sorted(at for uid, at in self._s.searches if uid == user_id)
        in_month = [at for at in mine if f"{at.year:04d}-{at.month:02d}" == month]
        return SearchActivity(len(in_month), len(mine), mine[-1] if mine else None)


class InMemoryUnitOfWork:
    """Works on a copy of the store; commit publishes it, leaving without commit discards it."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def __aenter__(self) -> Self:
        self._work = copy.deepcopy(self._store)
        self.users = InMemoryUsers(self._work)
        self.refresh_tokens = InMemoryRefreshTokens(self._work)
        self.password_resets = InMemoryPasswordResets(self._work)
        self.search_activity = InMemorySearchActivity(self._work)
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def commit(self) -> None:
        for name in ("users", "external", "refresh_tokens", "resets", "searches"):
            setattr(self._store, name, copy.deepcopy(getattr(self._work, name)))


class InMemorySystemSettings:
    def __init__(self, settings: SystemSettings | None = None) -> None:
        self.settings = settings or SystemSettings()

    async def current(self) -> SystemSettings:
        return self.settings

    async def save(self, settings: SystemSettings, saved_by: str) -> None:
        self.settings = settings


class InMemoryThrottle:
    """The model of domain/throttling.py over a dict (the adapters do the same atomically)."""

    def __init__(self, clock: FakeClock) -> None:
        self._clock = clock
        self.states: dict[str, ThrottleState] = {}

    async def attempt(self, key: str, rule: ThrottleRule) -> float:
        state, wait = next_attempt(rule, self.states.get(key), self._clock.now().timestamp())
        if state is not None:
            self.states[key] = state
        return wait

    async def refund(self, key: str) -> None:
        state = refunded(self.states.get(key))
        if state is not None:
            self.states[key] = state

    async def clear(self, key: str) -> None:
        self.states.pop(key, None)


class InMemoryRoles:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def role_of(self, user_id: str) -> Role | None:
        user = self._s.users.get(user_id)
        return user.role if user else None

    def forget(self, user_id: str) -> None:
        return None


class CountingHasher(FakeHasher):
    def __init__(self) -> None:
        self.verifications = 0

    async def verify(self, password_hash: str, password: str) -> bool:
        self.verifications += 1
        return await super().verify(password_hash, password)


@dataclass
class AccountsWorld:
    service: AccountService
    store: Store
    clock: FakeClock
    throttle: InMemoryThrottle
    hasher: CountingHasher


def in_memory_accounts(policy: AccountPolicy | None = None) -> AccountsWorld:
    store = Store()
    clock = FakeClock()
    throttle = InMemoryThrottle(clock)
    hasher = CountingHasher()
    service = AccountService(
        uow=lambda: InMemoryUnitOfWork(store),
        hasher=hasher,
        tokens=JwtAccessTokens("test-secret-" + "s" * 32, lifetime_seconds=900),
        throttle=throttle,
        clock=clock,
        policy=policy or AccountPolicy(reset_url_base="https://app.example"),
        dummy_hash="fake$" + "unguessable" * 3,
        settings=InMemorySystemSettings(),
        roles=InMemoryRoles(store),
        strength=ZxcvbnPasswordStrength(),
    )
    return AccountsWorld(service, store, clock, throttle, hasher)

"""In-memory stores of the public API's keys, plans and daily counts, and a world that wires them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from adapters.security.api_tokens import JwtApiTokens
from application.api_keys import ApiKeyService
from application.api_plans import ApiPlans
from application.ports.idempotency import KeyRecord, StoredReply
from application.ports.public_api import ApiKeyRecord, StoredAnswer
from domain.accounts import Role
from domain.api_access import DEFAULT_PLAN, UserPlan
from tests.fakes import DictRoles, FakeClock

SECRET = "test-secret-" + "s" * 32


class InMemoryApiKeys:
    def __init__(self) -> None:
        self.rows: dict[str, ApiKeyRecord] = {}

    async def add(self, record: ApiKeyRecord) -> None:
        self.rows[record.id] = record

    async def active_for(self, user_id: str) -> list[ApiKeyRecord]:
        mine = [r for r in self.rows.values() if r.user_id == user_id and r.active]
        return sorted(mine, key=lambda r: r.created_at, reverse=True)

    async def by_hash(self, key_hash: str) -> ApiKeyRecord | None:
        return next((r for r in self.rows.values() if r.key_hash == key_hash), None)

    async def by_id(self, key_id: str) -> ApiKeyRecord | None:
        return self.rows.get(key_id)

    async def revoke(self, user_id: str, key_id: str, at: datetime) -> bool:
        record = self.rows.get(key_id)
        if record is None or record.user_id != user_id or not record.active:
            return False
        self.rows[key_id] = replace(record, revoked_at=at)
        return True

    async def mark_used(self, key_id: str, at: datetime) -> None:
        self.rows[key_id] = replace(self.rows[key_id], last_used_at=at)


class InMemoryPlans:
    def __init__(self) -> None:
        self.plans: dict[str, UserPlan] = {}

    async def plan_of(self, user_id: str) -> UserPlan:
        return self.plans.get(user_id, DEFAULT_PLAN)

    async def set_plan(self, user_id: str, plan: UserPlan) -> None:
        self.plans[user_id] = plan


class InMemoryDailyUsage:
    def __init__(self) -> None:
        self.used_by_day: dict[tuple[str, str], int] = {}

    async def charge(self, user_id: str, day: str, limit: int, count: int = 1) -> int | None:
        used = self.used_by_day.get((user_id, day), 0)
        if count < 1 or used + count > limit:
            return None
        self.used_by_day[(user_id, day)] = used + count
        return used + count

    async def release(self, user_id: str, day: str, count: int = 1) -> None:
        self.used_by_day[(user_id, day)] -= count

    async def used(self, user_id: str, day: str) -> int:
        return self.used_by_day.get((user_id, day), 0)

    async def totals(self, day: str) -> tuple[int, int]:
        counts = [used for (_, d), used in self.used_by_day.items() if d == day and used > 0]
        return sum(counts), len(counts)


class InMemoryAnswers:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, StoredAnswer]] = []

    async def add(self, user_id: str, address: str, answer: dict, at: datetime) -> None:
        self.rows.append((user_id, address, StoredAnswer(at, answer)))

    async def history(
        self, user_id: str, address: str, since: datetime, until: datetime, limit: int, offset: int = 0
    ) -> list[StoredAnswer]:
        mine = [a for u, line, a in self.rows if u == user_id and line == address and since <= a.answered_at < until]
        return sorted(mine, key=lambda a: a.answered_at, reverse=True)[offset : offset + limit]


@dataclass
class ApiWorld:
    keys: ApiKeyService
    plans: ApiPlans
    store: InMemoryApiKeys
    usage: InMemoryDailyUsage
    clock: FakeClock
    tokens: JwtApiTokens
    users: dict[str, Role]


def in_memory_api() -> ApiWorld:
    clock = FakeClock()
    store = InMemoryApiKeys()
    usage = InMemoryDailyUsage()
    users: dict[str, Role] = {}
    tokens = JwtApiTokens(SECRET, lifetime_seconds=900, now=lambda: clock.now().timestamp())
    return ApiWorld(
        keys=ApiKeyService(store, tokens, clock),
        plans=ApiPlans(InMemoryPlans(), usage, DictRoles(users), clock),
        store=store,
        usage=usage,
        clock=clock,
        tokens=tokens,
        users=users,
    )


class InMemoryIdempotencyKeys:
    """`IdempotencyStore` in a dict; `claim` is check-and-insert with no await between, as atomic
    as the database's unique constraint."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], KeyRecord] = {}

    async def claim(self, user_id: str, key: str, fingerprint: str, at: datetime) -> bool:
        if (user_id, key) in self.rows:
            return False
        self.rows[(user_id, key)] = KeyRecord(fingerprint, at, None)
        return True

    async def record(self, user_id: str, key: str) -> KeyRecord | None:
        return self.rows.get((user_id, key))

    async def complete(self, user_id: str, key: str, reply: StoredReply) -> None:
        self.rows[(user_id, key)] = replace(self.rows[(user_id, key)], reply=reply)

    async def release(self, user_id: str, key: str) -> None:
        record = self.rows.get((user_id, key))
        if record is not None and record.reply is None:
            del self.rows[(user_id, key)]

    async def expire(self, user_id: str, key: str, created_before: datetime) -> None:
        record = self.rows.get((user_id, key))
        if record is not None and record.created_at < created_before:
            del self.rows[(user_id, key)]

    async def purge(self, created_before: datetime) -> int:
        old = [k for k, record in self.rows.items() if record.created_at < created_before]
        for k in old:
            del self.rows[k]
        return len(old)

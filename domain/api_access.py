"""The public API's keys, scopes and plans (SPEC §7, §9): pure rules, no storage."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from enum import StrEnum

KEY_PREFIX = "ps_live_"
KEY_RANDOM_BYTES = 24  # 32 url-safe characters
# What the server keeps in clear to let a user recognise a key in the list: `ps_live_` and 4 more.
SHOWN_PREFIX_LENGTH = len(KEY_PREFIX) + 4
KEY_NAME_MAX_LENGTH = 100
KEYS_PER_USER = 20
# "Last used" is kept to the minute: a key used many times a second is written once a minute.
LAST_USED_PRECISION = timedelta(minutes=1)


class ApiScope(StrEnum):
    READ = "read"  # look-ups of single addresses
    BATCH = "batch"  # batches of addresses


class Plan(StrEnum):
    STANDARD = "standard"
    PREMIUM = "premium"
    ENTERPRISE = "enterprise"


# SPEC §9: Standard 100 requests per day, Premium 1,000; Enterprise a number set per customer.
PLAN_DAILY_LIMITS = {Plan.STANDARD: 100, Plan.PREMIUM: 1000}
MAX_CUSTOM_DAILY_LIMIT = 10_000_000


class PlanError(ValueError):
    """A plan and daily limit that do not go together; the message says what to send."""


@dataclass(frozen=True, slots=True)
class UserPlan:
    plan: Plan
    custom_daily_limit: int | None = None  # Enterprise only

    def __post_init__(self) -> None:
        if self.plan is Plan.ENTERPRISE:
            limit = self.custom_daily_limit
            if limit is None or not 1 <= limit <= MAX_CUSTOM_DAILY_LIMIT:
                raise PlanError(
                    f"The Enterprise plan needs daily_limit, a whole number from 1 to {MAX_CUSTOM_DAILY_LIMIT:,}."
                )
        elif self.custom_daily_limit is not None:
            raise PlanError(
                f"The {self.plan.value} plan has a fixed daily limit of {PLAN_DAILY_LIMITS[self.plan]:,}: "
                "send daily_limit only with the enterprise plan."
            )

    @property
    def daily_limit(self) -> int:
        return self.custom_daily_limit if self.custom_daily_limit is not None else PLAN_DAILY_LIMITS[self.plan]


DEFAULT_PLAN = UserPlan(Plan.STANDARD)


def new_api_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(KEY_RANDOM_BYTES)


def api_key_hash(key: str) -> str:
    """SHA-256 suffices (no slow hash): the key is 192 random bits, not a guessable password."""
    return hashlib.sha256(key.encode()).hexdigest()


def shown_prefix(key: str) -> str:
    return key[:SHOWN_PREFIX_LENGTH]


def looks_like_api_key(text: str) -> bool:
    return text.startswith(KEY_PREFIX) and len(text) <= 200


def parse_scopes(text: str) -> frozenset[ApiScope]:
    """'read batch' (space- or comma-separated, OAuth style) to scopes; ValueError for unknown ones."""
    words = [word for word in text.replace(",", " ").split() if word]
    known = {scope.value for scope in ApiScope}
    unknown = [word for word in words if word not in known]
    if unknown or not words:
        raise ValueError(f"Scopes must be one or more of: {', '.join(sorted(known))}.")
    return frozenset(ApiScope(word) for word in words)


def day_key(moment: datetime) -> str:
    """Daily limits are counted per calendar day in UTC."""
    return moment.astimezone(UTC).date().isoformat()


def next_reset(moment: datetime) -> datetime:
    """The next UTC midnight, when every daily count starts again."""
    day = moment.astimezone(UTC).date() + timedelta(days=1)
    return datetime.combine(day, time.min, tzinfo=UTC)


# An address_id names an address as the public API's search read it: the address line itself,
# url-safe, so the id stays valid for ever and needs nothing stored.
ADDRESS_ID_PREFIX = "adr_"


def address_id(one_line: str) -> str:
    return ADDRESS_ID_PREFIX + base64.urlsafe_b64encode(one_line.encode()).rstrip(b"=").decode()


def address_of(identifier: str) -> str | None:
    """The address line an id names; None for anything that is not an id of ours."""
    if not identifier.startswith(ADDRESS_ID_PREFIX):
        return None
    encoded = identifier[len(ADDRESS_ID_PREFIX):]
    try:
        text = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    if not text.strip() or not text.isprintable():
        return None
    return text if address_id(text) == identifier else None  # one id per address

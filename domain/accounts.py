"""Accounts: roles, the password policy and e-mail rules (SPEC §5, §6)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class Role(StrEnum):
    USER = "user"
    ADMIN = "admin"

    @property
    def label(self) -> str:
        return "Administrator Account" if self is Role.ADMIN else "Regular User Account"


# The fixed set the sign-up checklist names; the web app shows the same characters.
SPECIAL_CHARACTERS = '!@#$%^&*(),.?":{}|<>'
PASSWORD_MIN_LENGTH = 8
PASSWORD_MAX_LENGTH = 128  # bounds the hashing cost of a hostile request

PASSWORD_RULES: tuple[tuple[str, str], ...] = (
    ("length", f"At least {PASSWORD_MIN_LENGTH} characters"),
    ("digit", "A number"),
    ("lower", "A lowercase letter"),
    ("upper", "An uppercase letter"),
    ("special", f"A special character ({SPECIAL_CHARACTERS})"),
)


PASSWORD_TOO_LONG = f"Passwords can be at most {PASSWORD_MAX_LENGTH} characters long. Please choose a shorter one."


def unmet_password_rules(password: str) -> list[str]:
    """The descriptions of every rule the password fails; empty when it passes (length above the
    maximum is its own message, PASSWORD_TOO_LONG, since the checklist names only the minimum)."""
    checks = {
        "length": PASSWORD_MIN_LENGTH <= len(password),
        "digit": any(c.isdigit() for c in password),
        "lower": any(c.islower() for c in password),
        "upper": any(c.isupper() for c in password),
        "special": any(c in SPECIAL_CHARACTERS for c in password),
    }
    return [text for key, text in PASSWORD_RULES if not checks[key]]


_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]{2,}$")


def normalize_email(email: str) -> str:
    return email.strip().lower()


def is_valid_email(email: str) -> bool:
    return len(email) <= 254 and _EMAIL.fullmatch(email) is not None


@dataclass(frozen=True, slots=True)
class User:
    id: str
    email: str
    display_name: str | None
    photo_url: str | None
    role: Role
    created_at: datetime
    password_hash: str | None = None  # None for accounts created by third-party sign-in

"""Access tokens: a verified token is remembered until it expires, and only until then."""

from __future__ import annotations

import base64
import json

import time
from datetime import UTC, datetime

from adapters.security.access_tokens import JwtAccessTokens
from domain.accounts import Role, User

SECRET = "test-secret-" + "s" * 32
ANN = User(id="u1", email="ann@example.com", display_name=None, photo_url=None, role=Role.USER, created_at=datetime.now(UTC))


class Clock:
    def __init__(self, at: float) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


def test_a_remembered_token_still_expires() -> None:
    clock = Clock(time.time())
    tokens = JwtAccessTokens(SECRET, lifetime_seconds=900, now=clock)
    token = tokens.issue(ANN)
    assert tokens.verify(token).user_id == "u1"
    assert tokens.verify(token).user_id == "u1"  # from memory
    clock.at += 901
    assert tokens.verify(token) is None


def test_bad_tokens_are_never_remembered() -> None:
    tokens = JwtAccessTokens(SECRET)
    token = tokens.issue(ANN)
    tampered = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    assert tokens.verify(tampered) is None
    assert tokens.verify(tampered) is None
    other = JwtAccessTokens("other-secret-" + "o" * 32)
    assert other.verify(token) is None
    assert tokens.verify(token).user_id == ANN.id


def test_tokens_carry_no_role_to_trust() -> None:
    """Roles come from the database on every decision; a token cannot claim one."""
    admin = User(id="a1", email="boss@example.com", display_name=None, photo_url=None, role=Role.ADMIN,
                 created_at=datetime.now(UTC))
    token = JwtAccessTokens(SECRET).issue(admin)
    payload = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    assert "role" not in payload and payload["sub"] == "a1"

"""The second sign-in step's token: a signed JWT valid for 5 minutes, signed with a key derived
from the app secret for this purpose only, so it can never pass as an access token."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import OctKey
from joserfc.jwt import JWTClaimsRegistry

from application.ports.mfa import MfaChallenge
from domain.mfa import CHALLENGE_LIFETIME_SECONDS

PURPOSE = "perilscope-mfa-challenge"


class SignedMfaChallenge:
    def __init__(
        self, secret: str, lifetime_seconds: int = CHALLENGE_LIFETIME_SECONDS, now: Callable[[], float] = time.time
    ) -> None:
        self._key = OctKey.import_key(hashlib.sha256(f"{PURPOSE}|{secret}".encode()).digest())
        self._lifetime = lifetime_seconds
        self._now = now

    def seal(self, challenge: MfaChallenge) -> str:
        now = int(self._now())
        claims = {
            "aud": PURPOSE,
            "iat": now,
            "exp": now + self._lifetime,
            "sub": challenge.user_id,
            "jti": challenge.challenge_id,
            "persistent": challenge.persistent,
        }
        return jwt.encode({"alg": "HS256"}, claims, self._key)

    def unseal(self, token: str) -> MfaChallenge | None:
        try:
            claims = jwt.decode(token, self._key, algorithms=["HS256"]).claims
            JWTClaimsRegistry(
                now=lambda: int(self._now()),
                aud={"essential": True, "value": PURPOSE},
                exp={"essential": True},
                sub={"essential": True},
                jti={"essential": True},
            ).validate(claims)
            return MfaChallenge(
                user_id=str(claims["sub"]), challenge_id=str(claims["jti"]), persistent=claims.get("persistent") is True
            )
        except (JoseError, ValueError, KeyError, TypeError):
            return None

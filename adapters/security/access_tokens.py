"""Short-lived HS256 access tokens (joserfc, authlib's JOSE library) with issuer, audience and expiry checked."""

from __future__ import annotations

import time
from collections.abc import Callable

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import OctKey
from joserfc.jwt import JWTClaimsRegistry

from application.ports.accounts import AccessClaims
from domain.accounts import User

ISSUER = "perilscope"
AUDIENCE = "perilscope-api"
ENROLMENT_ONLY_CLAIM = "mfa_enrolment_only"


VERIFIED_CACHE_SIZE = 4096


class JwtAccessTokens:
    def __init__(
        self, secret: str, lifetime_seconds: int = 900, now: Callable[[], float] = time.time
    ) -> None:
        self._key = OctKey.import_key(secret.encode())
        self._lifetime = lifetime_seconds
        self._now = now
        # Every request of a session carries the same token: its signature is checked once, and
        # later uses only check the expiry (access tokens cannot be revoked, so nothing is lost).
        self._verified: dict[str, tuple[AccessClaims, int]] = {}
        self._claims = JWTClaimsRegistry(
            iss={"essential": True, "value": ISSUER},
            aud={"essential": True, "value": AUDIENCE},
            exp={"essential": True},
            sub={"essential": True},
        )

    @property
    def lifetime_seconds(self) -> int:
        return self._lifetime

    def issue(self, user: User, mfa_enrolment_only: bool = False) -> str:
        now = int(time.time())
        claims = {
            "iss": ISSUER,
            "aud": AUDIENCE,
            "sub": user.id,
            "iat": now,
            "exp": now + self._lifetime,
        }
        if mfa_enrolment_only:
            claims[ENROLMENT_ONLY_CLAIM] = True
        return jwt.encode({"alg": "HS256"}, claims, self._key)

    def verify(self, token: str) -> AccessClaims | None:
        cached = self._verified.get(token)
        if cached is not None:
            claims, expires_at = cached
            if self._now() < expires_at:
                return claims
            del self._verified[token]
            return None
        try:
            decoded = jwt.decode(token, self._key, algorithms=["HS256"])
            self._claims.validate(decoded.claims)
            expires_at = int(decoded.claims["exp"])
            claims = AccessClaims(
                user_id=decoded.claims["sub"],
                mfa_enrolment_only=decoded.claims.get(ENROLMENT_ONLY_CLAIM) is True,
            )
        except (JoseError, ValueError, KeyError, TypeError):
            return None
        if self._now() >= expires_at:
            return None
        if len(self._verified) >= VERIFIED_CACHE_SIZE:
            del self._verified[next(iter(self._verified))]  # the oldest
        self._verified[token] = (claims, expires_at)
        return claims

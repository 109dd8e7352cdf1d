"""The pending sign-in (state, PKCE verifier, nonce) as a signed, short-lived JWT for an HttpOnly cookie.

Signed with a key derived from the app secret for this purpose only, so the value can never pass
as an access token (or the other way round).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import OctKey
from joserfc.jwt import JWTClaimsRegistry

from application.ports.external_sign_in import PendingSignIn

LIFETIME_SECONDS = 600
PURPOSE = "perilscope-oidc-pending"


class SignedPendingSignIn:
    def __init__(self, secret: str, lifetime_seconds: int = LIFETIME_SECONDS, now: Callable[[], float] = time.time):
        self._key = OctKey.import_key(hashlib.sha256(f"{PURPOSE}|{secret}".encode()).digest())
        self._lifetime = lifetime_seconds
        self._now = now

    @property
    def lifetime_seconds(self) -> int:
        return self._lifetime

    def seal(self, pending: PendingSignIn) -> str:
        now = int(self._now())
        claims = {
            "aud": PURPOSE,
            "iat": now,
            "exp": now + self._lifetime,
            "provider": pending.provider,
            "state": pending.state,
            "verifier": pending.code_verifier,
            "nonce": pending.nonce,
        }
        return jwt.encode({"alg": "HS256"}, claims, self._key)

    def unseal(self, sealed: str) -> PendingSignIn | None:
        try:
            claims = jwt.decode(sealed, self._key, algorithms=["HS256"]).claims
            JWTClaimsRegistry(
                now=lambda: int(self._now()),
                aud={"essential": True, "value": PURPOSE},
                exp={"essential": True},
                provider={"essential": True},
                state={"essential": True},
                verifier={"essential": True},
            ).validate(claims)
            return PendingSignIn(
                provider=claims["provider"],
                state=claims["state"],
                code_verifier=claims["verifier"],
                nonce=claims.get("nonce"),
            )
        except (JoseError, ValueError, KeyError, TypeError):
            return None

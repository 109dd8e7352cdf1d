"""Short-lived HS256 bearer tokens of the public API (joserfc, as access_tokens.py). Their audience
differs from the web session's, so neither kind of token is accepted where the other is expected."""

from __future__ import annotations

import time
from collections.abc import Callable

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import OctKey
from joserfc.jwt import JWTClaimsRegistry

from application.ports.public_api import ApiCaller
from domain.api_access import parse_scopes

ISSUER = "perilscope"
AUDIENCE = "perilscope-public-api"
TOKEN_USE = "api"  # said in the token too, for anyone who reads it


class JwtApiTokens:
    def __init__(self, secret: str, lifetime_seconds: int = 900, now: Callable[[], float] = time.time) -> None:
        # A key of its own, derived from the secret: a web token could not verify here even if
        # the audience check were ever dropped.
        self._key = OctKey.import_key(("public-api:" + secret).encode())
        self._lifetime = lifetime_seconds
        self._now = now
        self._claims = JWTClaimsRegistry(
            now=lambda: int(self._now()),
            iss={"essential": True, "value": ISSUER},
            aud={"essential": True, "value": AUDIENCE},
            token_use={"essential": True, "value": TOKEN_USE},
            exp={"essential": True},
            sub={"essential": True},
            key_id={"essential": True},
            scope={"essential": True},
        )

    @property
    def lifetime_seconds(self) -> int:
        return self._lifetime

    def issue(self, caller: ApiCaller) -> str:
        now = int(self._now())
        claims = {
            "iss": ISSUER,
            "aud": AUDIENCE,
            "token_use": TOKEN_USE,
            "sub": caller.user_id,
            "key_id": caller.key_id,
            "scope": " ".join(sorted(caller.scopes)),
            "iat": now,
            "exp": now + self._lifetime,
        }
        return jwt.encode({"alg": "HS256"}, claims, self._key)

    def verify(self, token: str) -> ApiCaller | None:
        try:
            decoded = jwt.decode(token, self._key, algorithms=["HS256"])
            self._claims.validate(decoded.claims)  # expiry included, on our clock
            return ApiCaller(
                user_id=str(decoded.claims["sub"]),
                key_id=str(decoded.claims["key_id"]),
                scopes=parse_scopes(str(decoded.claims["scope"])),
            )
        except (JoseError, ValueError, KeyError, TypeError):
            return None

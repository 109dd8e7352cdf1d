"""API keys of the public API: a signed-in user creates, lists and revokes them; an integrator
signs in with one (`X-API-Key`) or with a short-lived bearer token bought with one."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from application.ports.public_api import ApiCaller, ApiKeyRecord, ApiKeyStore, ApiTokenIssuer
from application.errors import Forbidden, InvalidInput, NotAuthenticated, NotFound
from application.ports.accounts import AccessClaims
from application.ports.clock import Clock
from domain.api_access import (
    KEY_NAME_MAX_LENGTH,
    KEYS_PER_USER,
    LAST_USED_PRECISION,
    ApiScope,
    api_key_hash,
    looks_like_api_key,
    new_api_key,
    parse_scopes,
    shown_prefix,
)

INVALID_KEY = "The API key is not valid or was revoked. Create a key on /settings and send it as X-API-Key."
INVALID_TOKEN = "The bearer token is not valid or has expired. Get a new one from POST /api/v1/auth/token."
NO_CREDENTIALS = "Send your API key as the X-API-Key header, or a bearer token from POST /api/v1/auth/token."
KEY_NOT_FOUND = "No API key with this id belongs to you."


@dataclass(frozen=True, slots=True)
class CreatedKey:
    record: ApiKeyRecord
    key: str  # shown once, at creation; the server keeps only its hash


@dataclass(frozen=True, slots=True)
class IssuedToken:
    token: str
    expires_in: int
    caller: ApiCaller


def missing_scope(scope: ApiScope) -> Forbidden:
    return Forbidden(f"This API key (or token) lacks the '{scope.value}' scope. Create a key with it on /settings.",
                     code="insufficient_scope")


class ApiKeyService:
    def __init__(self, store: ApiKeyStore, tokens: ApiTokenIssuer, clock: Clock) -> None:
        self._store = store
        self._tokens = tokens
        self._clock = clock

    async def create(self, caller: AccessClaims, name: str, scopes: list[str]) -> CreatedKey:
        name = name.strip()
        if not name or len(name) > KEY_NAME_MAX_LENGTH:
            raise InvalidInput(f"Give the key a name of 1 to {KEY_NAME_MAX_LENGTH} characters.")
        try:
            granted = parse_scopes(" ".join(scopes))
        except ValueError as error:
            raise InvalidInput(str(error)) from error
        if len(await self._store.active_for(caller.user_id)) >= KEYS_PER_USER:
            raise InvalidInput(f"You have {KEYS_PER_USER} keys, the most allowed: revoke one you no longer use first.",
                               code="too_many_keys")
        key = new_api_key()
        record = ApiKeyRecord(
            id=str(uuid.uuid4()),
            user_id=caller.user_id,
            name=name,
            prefix=shown_prefix(key),
            key_hash=api_key_hash(key),
            scopes=granted,
            created_at=self._clock.now(),
        )
        await self._store.add(record)
        return CreatedKey(record, key)

    async def keys(self, caller: AccessClaims) -> list[ApiKeyRecord]:
        return await self._store.active_for(caller.user_id)

    async def revoke(self, caller: AccessClaims, key_id: str) -> None:
        if not await self._store.revoke(caller.user_id, key_id, self._clock.now()):
            raise NotFound(KEY_NOT_FOUND)  # another user's key is not found either, never forbidden

    async def by_key(self, key: str) -> ApiCaller:
        """The caller an `X-API-Key` stands for; a revoked key fails from the moment it is revoked."""
        record = await self._store.by_hash(api_key_hash(key)) if looks_like_api_key(key) else None
        if record is None or not record.active:
            raise NotAuthenticated(INVALID_KEY, code="invalid_api_key")
        await self._note_use(record)
        return ApiCaller(record.user_id, record.id, record.scopes)

    async def by_token(self, token: str) -> ApiCaller:
        """The caller a bearer token stands for; the key it was bought with must still be active,
        so revoking a key also ends its tokens at once."""
        caller = self._tokens.verify(token)
        if caller is None:
            raise NotAuthenticated(INVALID_TOKEN, code="invalid_token")
        record = await self._store.by_id(caller.key_id)
        if record is None or not record.active or record.user_id != caller.user_id:
            raise NotAuthenticated(INVALID_KEY, code="invalid_api_key")
        await self._note_use(record)
        return caller

    async def _note_use(self, record: ApiKeyRecord) -> None:
        now = self._clock.now()
        if record.last_used_at is None or record.last_used_at <= now - LAST_USED_PRECISION:
            await self._store.mark_used(record.id, now)

    async def issue_token(self, key: str, scope: str) -> IssuedToken:
        """A bearer token for some or all of the key's scopes (all when `scope` is empty)."""
        caller = await self.by_key(key)
        if scope.strip():
            try:
                wanted = parse_scopes(scope)
            except ValueError as error:
                raise InvalidInput(str(error)) from error
            lacking = wanted - caller.scopes
            if lacking:
                raise missing_scope(min(lacking))
            caller = ApiCaller(caller.user_id, caller.key_id, wanted)
        return IssuedToken(self._tokens.issue(caller), self._tokens.lifetime_seconds, caller)


def require_scope(caller: ApiCaller, scope: ApiScope) -> None:
    if scope not in caller.scopes:
        raise missing_scope(scope)

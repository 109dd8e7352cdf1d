"""The authorization-code flow with PKCE (S256) and, for OpenID Connect, a nonce-checked ID token.

authlib's httpx client does the OAuth2 calls; joserfc checks the ID token's signature and claims.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable

import httpx
from authlib.common.security import generate_token
from authlib.integrations.base_client import OAuthError

with warnings.catch_warnings():
    # authlib 1.9 announces a future move to 'httpx2'; its httpx client is what we use today.
    warnings.simplefilter("ignore", DeprecationWarning)
    from authlib.integrations.httpx_client import AsyncOAuth2Client
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from joserfc.jwt import JWTClaimsRegistry

from adapters.identity.oidc_providers import (
    BUILT_IN,
    PROVIDER_NAMES,
    USER_READERS,
    ClientCredentials,
    ProviderMetadata,
    discover,
    identity_from_oidc_claims,
)
from application.errors import NotFound
from application.external_sign_in import UNAVAILABLE, UNKNOWN_PROVIDER, ExternalSignInFailed, not_confirmed
from application.ports.external_sign_in import ExternalIdentity, PendingSignIn, ProviderInfo

log = logging.getLogger("perilscope.identity")

ID_TOKEN_ALGORITHMS = ["RS256", "ES256", "PS256"]  # asymmetric only: never 'none' or a secret-keyed HS*
CLOCK_LEEWAY_SECONDS = 60


class OidcIdentityProvider:
    def __init__(
        self,
        clients: Iterable[ClientCredentials],
        transport: httpx.AsyncBaseTransport | None = None,
        timeout_seconds: float = 10.0,
    ) -> None:
        self._clients = {client.provider: client for client in clients}
        self._transport = transport  # tests pass httpx.MockTransport
        self._timeout = timeout_seconds
        self._discovered: dict[str, ProviderMetadata] = {}

    def configured(self) -> list[ProviderInfo]:
        return [ProviderInfo(provider, PROVIDER_NAMES[provider]) for provider in self._clients]

    async def authorization_url(self, provider: str, redirect_uri: str) -> tuple[str, PendingSignIn]:
        credentials = self._credentials(provider)
        try:
            meta = await self._metadata(credentials)
        except (httpx.HTTPError, ValueError, KeyError) as error:
            log.warning("discovery of sign-in provider %s failed: %r", provider, error)
            raise ExternalSignInFailed(UNAVAILABLE) from error
        code_verifier = generate_token(64)
        nonce = generate_token(32) if meta.issues_id_tokens else None
        extra = {"nonce": nonce} if nonce else {}
        async with self._oauth(credentials, meta, redirect_uri) as oauth:
            url, state = oauth.create_authorization_url(meta.authorize_url, code_verifier=code_verifier, **extra)
        return url, PendingSignIn(provider=provider, state=state, code_verifier=code_verifier, nonce=nonce)

    async def complete(self, provider: str, redirect_uri: str, code: str, pending: PendingSignIn) -> ExternalIdentity:
        credentials = self._credentials(provider)
        try:
            meta = await self._metadata(credentials)
            async with self._oauth(credentials, meta, redirect_uri) as oauth:
                token = await oauth.fetch_token(meta.token_url, code=code, code_verifier=pending.code_verifier)
                if meta.issues_id_tokens:
                    return await self._from_id_token(oauth, meta, credentials, token, pending.nonce)
                return await USER_READERS[provider](oauth, meta)
        except (OAuthError, httpx.HTTPError, JoseError, KeyError, ValueError, TypeError, IndexError) as error:
            # The details go to the log; the person sees one clear sentence.
            log.warning("third-party sign-in via %s refused: %r", provider, error)
            raise ExternalSignInFailed(not_confirmed(PROVIDER_NAMES[provider])) from error

    async def _from_id_token(
        self,
        oauth: AsyncOAuth2Client,
        meta: ProviderMetadata,
        credentials: ClientCredentials,
        token: dict,
        nonce: str | None,
    ) -> ExternalIdentity:
        id_token = token.get("id_token")
        if not id_token or not nonce:
            raise ValueError("the provider returned no ID token")
        jwks = await oauth.request("GET", meta.jwks_uri or "", withhold_token=True)
        jwks.raise_for_status()
        decoded = jwt.decode(id_token, KeySet.import_key_set(jwks.json()), algorithms=ID_TOKEN_ALGORITHMS)
        claims = decoded.claims
        JWTClaimsRegistry(
            leeway=CLOCK_LEEWAY_SECONDS,
            iss={"essential": True, "values": [meta.issuer, *meta.also_issued_by]},
            aud={"essential": True, "value": credentials.client_id},
            sub={"essential": True},
            exp={"essential": True},
            iat={"essential": True},
            nonce={"essential": True, "value": nonce},  # binds the token to this browser's sign-in
        ).validate(claims)
        if isinstance(claims["aud"], list) and len(claims["aud"]) > 1 and claims.get("azp") != credentials.client_id:
            raise ValueError("ID token was issued to another party")
        if not claims.get("email") and meta.userinfo_url:
            info = await self._userinfo(oauth, meta)
            if info.get("sub") == claims["sub"]:  # OIDC Core §5.3.2: else the answer is about someone else
                claims = {**info, **claims}
        return identity_from_oidc_claims(meta.issuer, claims)

    async def _userinfo(self, oauth: AsyncOAuth2Client, meta: ProviderMetadata) -> dict:
        response = await oauth.get(meta.userinfo_url or "")
        response.raise_for_status()
        info = response.json()
        return info if isinstance(info, dict) else {}

    def _credentials(self, provider: str) -> ClientCredentials:
        credentials = self._clients.get(provider)
        if credentials is None:
            raise NotFound(UNKNOWN_PROVIDER)
        return credentials

    async def _metadata(self, credentials: ClientCredentials) -> ProviderMetadata:
        if credentials.provider in BUILT_IN:
            return BUILT_IN[credentials.provider]
        if credentials.provider not in self._discovered:
            async with httpx.AsyncClient(transport=self._transport, timeout=self._timeout) as http:
                self._discovered[credentials.provider] = await discover(http, credentials.issuer_url or "")
        return self._discovered[credentials.provider]

    def _oauth(self, credentials: ClientCredentials, meta: ProviderMetadata, redirect_uri: str) -> AsyncOAuth2Client:
        return AsyncOAuth2Client(
            client_id=credentials.client_id,
            client_secret=credentials.client_secret,
            scope=meta.scope,
            redirect_uri=redirect_uri,
            code_challenge_method="S256",
            token_endpoint_auth_method=meta.token_auth_method,
            transport=self._transport,
            timeout=self._timeout,
        )

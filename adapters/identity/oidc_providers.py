"""What we know about each sign-in provider: endpoints, scopes, and how to read who the person is.

Google and a generic issuer ('oidc', found by discovery) are OpenID Connect: they return a signed
ID token. GitHub, Facebook and X are plain OAuth2: we ask their user API with the access token.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from application.ports.external_sign_in import ExternalIdentity

PROVIDER_NAMES = {"google": "Google", "github": "GitHub", "facebook": "Facebook", "x": "X", "oidc": "Single sign-on"}
FACEBOOK_GRAPH = "https://graph.facebook.com/v21.0"


@dataclass(frozen=True, slots=True)
class ClientCredentials:
    provider: str
    client_id: str
    client_secret: str
    issuer_url: str | None = None  # only for 'oidc'


@dataclass(frozen=True, slots=True)
class ProviderMetadata:
    id: str
    issuer: str  # users are keyed by (issuer, subject), so this must never change for a provider
    authorize_url: str
    token_url: str
    scope: str
    userinfo_url: str | None = None
    jwks_uri: str | None = None  # set for OpenID Connect providers: their ID token is checked against it
    token_auth_method: str = "client_secret_post"
    also_issued_by: tuple[str, ...] = ()  # other spellings of `issuer` in ID tokens

    @property
    def issues_id_tokens(self) -> bool:
        return self.jwks_uri is not None

    @property
    def name(self) -> str:
        return PROVIDER_NAMES[self.id]


BUILT_IN: dict[str, ProviderMetadata] = {
    "google": ProviderMetadata(
        id="google",
        issuer="https://accounts.google.com",
        also_issued_by=("accounts.google.com",),
        authorize_url="https://accounts.google.com/o/oauth2/v2/auth",
        token_url="https://oauth2.googleapis.com/token",
        userinfo_url="https://openidconnect.googleapis.com/v1/userinfo",
        jwks_uri="https://www.googleapis.com/oauth2/v3/certs",
        scope="openid email profile",
    ),
    "github": ProviderMetadata(
        id="github",
        issuer="https://github.com",
        authorize_url="https://github.com/login/oauth/authorize",
        token_url="https://github.com/login/oauth/access_token",
        userinfo_url="https://api.github.com/user",
        scope="read:user user:email",
    ),
    "facebook": ProviderMetadata(
        id="facebook",
        issuer="https://www.facebook.com",
        authorize_url="https://www.facebook.com/v21.0/dialog/oauth",
        token_url=f"{FACEBOOK_GRAPH}/oauth/access_token",
        userinfo_url=f"{FACEBOOK_GRAPH}/me?fields=id,name,email,picture",
        scope="public_profile email",
    ),
    "x": ProviderMetadata(
        id="x",
        issuer="https://x.com",
        authorize_url="https://x.com/i/oauth2/authorize",
        token_url="https://api.x.com/2/oauth2/token",
        userinfo_url="https://api.x.com/2/users/me?user.fields=profile_image_url",
        scope="users.read tweet.read",
        token_auth_method="client_secret_basic",  # X wants confidential clients to use Basic auth
    ),
}


async def discover(http: httpx.AsyncClient, issuer_url: str) -> ProviderMetadata:
    """A generic OpenID Connect issuer, from its discovery document."""
    issuer = issuer_url.rstrip("/")
    response = await http.get(f"{issuer}/.well-known/openid-configuration")
    response.raise_for_status()
    document = response.json()
    if document.get("issuer", "").rstrip("/") != issuer:
        # OIDC Discovery §4.3: a document naming another issuer must not be used.
        raise ValueError(f"discovery document names issuer {document.get('issuer')!r}, expected {issuer!r}")
    return ProviderMetadata(
        id="oidc",
        issuer=document["issuer"],
        authorize_url=document["authorization_endpoint"],
        token_url=document["token_endpoint"],
        userinfo_url=document.get("userinfo_endpoint"),
        jwks_uri=document["jwks_uri"],
        scope="openid email profile",
    )


def identity_from_oidc_claims(issuer: str, claims: dict[str, Any]) -> ExternalIdentity:
    """ID token or userinfo claims. An e-mail counts only when the provider says it is verified."""
    verified = claims.get("email_verified") in (True, "true")
    return ExternalIdentity(
        issuer=issuer,
        subject=str(claims["sub"]),
        email=claims.get("email") if verified else None,
        name=claims.get("name") or claims.get("preferred_username"),
        picture=claims.get("picture"),
    )


# --- plain OAuth2 providers: the user API answers who the person is ---------------------------------

UserReader = Callable[[httpx.AsyncClient, ProviderMetadata], Awaitable[ExternalIdentity]]


async def _get_json(http: httpx.AsyncClient, url: str) -> Any:
    response = await http.get(url, headers={"Accept": "application/json"})
    response.raise_for_status()
    return response.json()


async def read_github_user(http: httpx.AsyncClient, meta: ProviderMetadata) -> ExternalIdentity:
    user = await _get_json(http, meta.userinfo_url or "")
    # /user shows only a public e-mail, and not whether it is verified; /user/emails says both.
    emails = await _get_json(http, "https://api.github.com/user/emails")
    verified = [entry for entry in emails if entry.get("verified")]
    primary = next((entry for entry in verified if entry.get("primary")), verified[0] if verified else None)
    return ExternalIdentity(
        issuer=meta.issuer,
        subject=str(user["id"]),
        email=primary["email"] if primary else None,
        name=user.get("name") or user.get("login"),
        picture=user.get("avatar_url"),
    )


async def read_facebook_user(http: httpx.AsyncClient, meta: ProviderMetadata) -> ExternalIdentity:
    user = await _get_json(http, meta.userinfo_url or "")
    picture = (user.get("picture") or {}).get("data") or {}
    return ExternalIdentity(
        issuer=meta.issuer,
        subject=str(user["id"]),
        email=user.get("email"),  # Facebook only returns a confirmed address, and only with the 'email' scope
        name=user.get("name"),
        picture=None if picture.get("is_silhouette") else picture.get("url"),
    )


async def read_x_user(http: httpx.AsyncClient, meta: ProviderMetadata) -> ExternalIdentity:
    body = await _get_json(http, meta.userinfo_url or "")
    user = body["data"]
    return ExternalIdentity(
        issuer=meta.issuer,
        subject=str(user["id"]),
        email=None,  # X gives no e-mail without extra approval; the account gets a placeholder address
        name=user.get("name") or user.get("username"),
        picture=user.get("profile_image_url"),
    )


USER_READERS: dict[str, UserReader] = {
    "github": read_github_user,
    "facebook": read_facebook_user,
    "x": read_x_user,
}

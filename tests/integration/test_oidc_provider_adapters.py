"""Google, GitHub, Facebook and X sign-in adapters on their documented response shapes.

httpx.MockTransport answers for the providers: no network.
"""

from __future__ import annotations

import base64
import json
import time
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from adapters.identity.oidc_client import OidcIdentityProvider
from adapters.identity.oidc_providers import ClientCredentials
from adapters.identity.pending_state import SignedPendingSignIn
from application.external_sign_in import UNAVAILABLE, ExternalSignInFailed
from application.ports.external_sign_in import PendingSignIn

REDIRECT = "https://app.example/api/auth/oidc/{}/callback"


class ProviderDouble:
    """Answers the provider's endpoints by URL and records every request."""

    def __init__(self, routes: dict[str, object]) -> None:
        self.routes = routes
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        url = str(request.url).split("?")[0]
        answer = self.routes.get(url)
        if answer is None:
            return httpx.Response(404, json={"error": "not found"})
        if callable(answer):
            return answer(request)
        status, body = answer if isinstance(answer, tuple) else (200, answer)
        return httpx.Response(status, json=body)

    def token_request(self) -> dict[str, list[str]]:
        request = next(r for r in self.requests if r.method == "POST")
        return parse_qs(request.content.decode())


def adapter(provider: str, double: ProviderDouble, issuer_url: str | None = None) -> OidcIdentityProvider:
    credentials = ClientCredentials(provider, f"{provider}-client", f"{provider}-secret", issuer_url)
    return OidcIdentityProvider([credentials], transport=httpx.MockTransport(double))


async def sign_in(provider: str, double: ProviderDouble) -> tuple[str, PendingSignIn, object]:
    identity_provider = adapter(provider, double)
    url, pending = await identity_provider.authorization_url(provider, REDIRECT.format(provider))
    identity = await identity_provider.complete(provider, REDIRECT.format(provider), "the-code", pending)
    return url, pending, identity


GITHUB_TOKEN = {
    "access_token": "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    "token_type": "bearer",
    "scope": "read:user,user:email",
}
GITHUB_USER = {
    "login": "octocat",
    "id": 583231,
    "avatar_url": "https://avatars.githubusercontent.com/u/583231?v=4",
    "name": "The Octocat",
    "email": None,
    "type": "User",
}
GITHUB_EMAILS = [
    {"email": "old@example.com", "verified": False, "primary": False, "visibility": None},
    {"email": "octocat@github.com", "verified": True, "primary": True, "visibility": "public"},
]


async def test_github_reads_user_and_primary_verified_email() -> None:
    double = ProviderDouble({
        "https://github.com/login/oauth/access_token": GITHUB_TOKEN,
        "https://api.github.com/user": GITHUB_USER,
        "https://api.github.com/user/emails": GITHUB_EMAILS,
    })
    url, pending, identity = await sign_in("github", double)
    query = parse_qs(urlsplit(url).query)
    assert url.startswith("https://github.com/login/oauth/authorize?")
    assert query["scope"] == ["read:user user:email"] and query["code_challenge_method"] == ["S256"]
    assert "nonce" not in query and pending.nonce is None
    assert identity.issuer == "https://github.com" and identity.subject == "583231"
    assert identity.email == "octocat@github.com" and identity.name == "The Octocat"
    assert identity.picture == GITHUB_USER["avatar_url"]
    token_request = double.token_request()
    assert token_request["code"] == ["the-code"] and token_request["code_verifier"] == [pending.code_verifier]
    assert token_request["client_secret"] == ["github-secret"]
    user_call = next(r for r in double.requests if r.url.path == "/user")
    assert user_call.headers["authorization"] == f"Bearer {GITHUB_TOKEN['access_token']}"


async def test_github_without_a_verified_email_gives_none() -> None:
    double = ProviderDouble({
        "https://github.com/login/oauth/access_token": GITHUB_TOKEN,
        "https://api.github.com/user": {**GITHUB_USER, "name": None, "email": "public@example.com"},
        "https://api.github.com/user/emails": [{"email": "public@example.com", "verified": False, "primary": True}],
    })
    _, _, identity = await sign_in("github", double)
    assert identity.email is None and identity.name == "octocat"


async def test_facebook_reads_me_with_picture() -> None:
    me = {
        "id": "10158412345678901",
        "name": "Fay Book",
        "email": "fay@example.com",
        "picture": {
            "data": {
                "height": 50,
                "is_silhouette": False,
                "url": "https://platform-lookaside.fbsbx.com/p.jpg",
                "width": 50,
            }
        },
    }
    double = ProviderDouble({
        "https://graph.facebook.com/v21.0/oauth/access_token": {
            "access_token": "EAAG",
            "token_type": "bearer",
            "expires_in": 5183944,
        },
        "https://graph.facebook.com/v21.0/me": me,
    })
    url, _, identity = await sign_in("facebook", double)
    assert url.startswith("https://www.facebook.com/v21.0/dialog/oauth?")
    me_call = next(r for r in double.requests if r.url.path.endswith("/me"))
    assert parse_qs(me_call.url.query.decode())["fields"] == ["id,name,email,picture"]
    assert (identity.issuer, identity.subject) == ("https://www.facebook.com", "10158412345678901")
    assert identity.email == "fay@example.com" and identity.picture == "https://platform-lookaside.fbsbx.com/p.jpg"


async def test_facebook_silhouette_and_missing_email() -> None:
    me = {"id": "1", "name": "No Mail", "picture": {"data": {"is_silhouette": True, "url": "https://x/silhouette.jpg"}}}
    double = ProviderDouble({
        "https://graph.facebook.com/v21.0/oauth/access_token": {"access_token": "EAAG", "token_type": "bearer"},
        "https://graph.facebook.com/v21.0/me": me,
    })
    _, _, identity = await sign_in("facebook", double)
    assert identity.email is None and identity.picture is None and identity.name == "No Mail"


async def test_x_uses_basic_auth_pkce_and_users_me() -> None:
    double = ProviderDouble({
        "https://api.x.com/2/oauth2/token": {
            "token_type": "bearer",
            "expires_in": 7200,
            "access_token": "VGhpcyBpcyBhbiBleGFtcGxl",
            "scope": "users.read tweet.read",
        },
        "https://api.x.com/2/users/me": {
            "data": {
                "id": "2244994945",
                "name": "X Dev",
                "username": "XDevelopers",
                "profile_image_url": "https://pbs.twimg.com/profile_images/1/x_normal.jpg",
            }
        },
    })
    url, pending, identity = await sign_in("x", double)
    query = parse_qs(urlsplit(url).query)
    assert url.startswith("https://x.com/i/oauth2/authorize?") and query["code_challenge_method"] == ["S256"]
    token_call = next(r for r in double.requests if r.method == "POST")
    assert token_call.headers["authorization"] == "Basic " + base64.b64encode(b"x-client:x-secret").decode()
    assert double.token_request()["code_verifier"] == [pending.code_verifier]
    assert (identity.issuer, identity.subject, identity.email) == ("https://x.com", "2244994945", None)
    assert identity.name == "X Dev" and identity.picture.endswith("x_normal.jpg")


async def google_sign_in(signing_key: RSAKey, published_key: RSAKey | None = None, **claim_changes: object):
    nonce: dict[str, str] = {}

    def token_endpoint(request: httpx.Request) -> httpx.Response:
        now = int(time.time())
        claims = {
            "iss": "accounts.google.com",  # Google uses both spellings
            "aud": "google-client",
            "azp": "google-client",
            "sub": "110169484474386276334",
            "email": "gina@gmail.com",
            "email_verified": True,
            "name": "Gina G",
            "picture": "https://lh3.googleusercontent.com/a/photo",
            "iat": now,
            "exp": now + 3600,
            "nonce": nonce["value"],
            **claim_changes,
        }
        id_token = jwt.encode({"alg": "RS256", "kid": "google-kid-1"}, claims, signing_key)
        token = {"access_token": "ya29.a0", "expires_in": 3599, "token_type": "Bearer", "id_token": id_token}
        return httpx.Response(200, json=token)

    double = ProviderDouble({
        "https://oauth2.googleapis.com/token": token_endpoint,
        "https://www.googleapis.com/oauth2/v3/certs": {"keys": [(published_key or signing_key).as_dict(private=False)]},
    })
    identity_provider = adapter("google", double)
    url, pending = await identity_provider.authorization_url("google", REDIRECT.format("google"))
    nonce["value"] = pending.nonce
    return url, await identity_provider.complete("google", REDIRECT.format("google"), "4/0Ab", pending)


@pytest.fixture(scope="module")
def google_key() -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": "google-kid-1"})


async def test_google_id_token_is_verified_and_read(google_key: RSAKey) -> None:
    url, identity = await google_sign_in(google_key)
    query = parse_qs(urlsplit(url).query)
    assert url.startswith("https://accounts.google.com/o/oauth2/v2/auth?")
    assert query["scope"] == ["openid email profile"]
    assert len(query["nonce"][0]) >= 20
    assert identity.issuer == "https://accounts.google.com"  # one issuer, whichever spelling the token used
    assert (identity.subject, identity.email, identity.name) == ("110169484474386276334", "gina@gmail.com", "Gina G")


async def test_google_unverified_email_is_not_used(google_key: RSAKey) -> None:
    _, identity = await google_sign_in(google_key, email_verified=False)
    assert identity.email is None and identity.subject == "110169484474386276334"


@pytest.mark.parametrize(
    "changes",
    [
        {"nonce": "replayed-nonce"},
        {"aud": "another-app"},
        {"iss": "https://evil.example"},
        {"exp": int(time.time()) - 3600},
    ],
    ids=["nonce", "audience", "issuer", "expired"],
)
async def test_google_id_token_failing_a_check_is_refused(google_key: RSAKey, changes: dict) -> None:
    with pytest.raises(ExternalSignInFailed, match="Google did not confirm your identity"):
        await google_sign_in(google_key, **changes)


async def test_google_id_token_signed_by_another_key_is_refused(google_key: RSAKey) -> None:
    forger = RSAKey.generate_key(2048, parameters={"kid": "google-kid-1"})
    with pytest.raises(ExternalSignInFailed):
        await google_sign_in(forger, published_key=google_key)


async def test_token_endpoint_error_is_refused() -> None:
    double = ProviderDouble({"https://github.com/login/oauth/access_token": (400, {"error": "bad_verification_code"})})
    with pytest.raises(ExternalSignInFailed, match="GitHub did not confirm your identity"):
        await sign_in("github", double)


async def test_discovery_naming_another_issuer_is_refused() -> None:
    double = ProviderDouble({
        "https://sso.example/.well-known/openid-configuration": {
            "issuer": "https://evil.example",
            "authorization_endpoint": "https://evil.example/auth",
            "token_endpoint": "https://evil.example/token",
            "jwks_uri": "https://evil.example/jwks",
        }
    })
    with pytest.raises(ExternalSignInFailed) as failure:
        sso = adapter("oidc", double, issuer_url="https://sso.example")
        await sso.authorization_url("oidc", REDIRECT.format("oidc"))
    assert failure.value.message == UNAVAILABLE


# --- the signed pending-state cookie ---------------------------------------------------------------

PENDING = PendingSignIn(provider="google", state="s" * 30, code_verifier="v" * 64, nonce="n" * 32)


def test_pending_state_round_trips() -> None:
    sealer = SignedPendingSignIn("k" * 40)
    assert sealer.unseal(sealer.seal(PENDING)) == PENDING


def test_pending_state_refuses_tampering_other_keys_and_age() -> None:
    clock = [1_000_000.0]
    sealer = SignedPendingSignIn("k" * 40, now=lambda: clock[0])
    sealed = sealer.seal(PENDING)
    header, payload, signature = sealed.split(".")
    forged_claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    forged_claims["state"] = "attacker-state"
    forged_payload = base64.urlsafe_b64encode(json.dumps(forged_claims).encode()).rstrip(b"=").decode()
    assert sealer.unseal(f"{header}.{forged_payload}.{signature}") is None
    assert SignedPendingSignIn("other" * 10, now=lambda: clock[0]).unseal(sealed) is None
    assert sealer.unseal("not-a-jwt") is None
    clock[0] += 599
    assert sealer.unseal(sealed) == PENDING
    clock[0] += 2
    assert sealer.unseal(sealed) is None


def test_pending_state_is_not_an_access_token() -> None:
    from adapters.security.access_tokens import JwtAccessTokens

    secret = "k" * 40
    assert JwtAccessTokens(secret).verify(SignedPendingSignIn(secret).seal(PENDING)) is None

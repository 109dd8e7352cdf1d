"""Third-party sign-in end to end: our app against a real local OpenID Connect provider over HTTP."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncIterator, Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from adapters.identity.pending_state import SignedPendingSignIn
from application.external_sign_in import CANCELLED, REQUEST_EXPIRED, not_confirmed
from entrypoints.container import Container
from entrypoints.http.app import create_app
from entrypoints.settings import OidcClient
from tests.conftest import STRONG_PASSWORD
from tests.oidc_test_provider import CLIENT_ID, CLIENT_SECRET, LocalOpenIDProvider

APP = "http://testserver.local"
CALLBACK = f"{APP}/api/auth/oidc/oidc/callback"
REFUSED_BY_PROVIDER = not_confirmed("Single sign-on")


@pytest.fixture(scope="module")
def provider() -> Iterator[LocalOpenIDProvider]:
    idp = LocalOpenIDProvider(redirect_uris=[CALLBACK]).start()
    yield idp
    idp.stop()


@pytest.fixture
def idp(provider: LocalOpenIDProvider) -> LocalOpenIDProvider:
    provider.bad_nonce = provider.bad_audience = provider.bad_issuer = provider.expired_id_token = False
    provider.token_requests.clear()
    provider.authorize_requests.clear()
    return provider


@pytest.fixture
async def app(container: Container, idp: LocalOpenIDProvider) -> AsyncIterator[httpx.AsyncClient]:
    """Our app, configured with the local provider as the generic 'oidc' issuer."""
    settings = dataclasses.replace(
        container.settings(), oidc_clients=(OidcClient("oidc", CLIENT_ID, CLIENT_SECRET, issuer_url=idp.issuer),)
    )
    container.settings.override(settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(container)), base_url=APP) as client:
        yield client


@pytest.fixture
async def browser_at_provider() -> AsyncIterator[httpx.AsyncClient]:
    """The browser's requests to the provider: real HTTP to 127.0.0.1."""
    async with httpx.AsyncClient(timeout=10) as client:
        yield client


async def start_sign_in(app: httpx.AsyncClient, browser: httpx.AsyncClient) -> str:
    """Login at our app, approve at the provider; returns the callback URL the provider sends back."""
    start = await app.get("/api/auth/oidc/oidc/login")
    assert start.status_code == 302, start.text
    approved = await browser.get(start.headers["location"])
    assert approved.status_code == 302, approved.text
    callback = approved.headers["location"]
    assert callback.startswith(CALLBACK + "?")
    return callback


def login_error(response: httpx.Response) -> str:
    assert response.status_code == 302
    location = urlsplit(response.headers["location"])
    assert location.path == "/login"
    return parse_qs(location.query)["error"][0]


async def assert_no_session(app: httpx.AsyncClient, response: httpx.Response) -> None:
    assert "ps_refresh" not in response.cookies
    assert app.cookies.get("ps_refresh") is None
    assert (await app.post("/api/auth/refresh")).status_code == 204  # signed out


async def test_providers_lists_only_configured_ones(app: httpx.AsyncClient) -> None:
    assert (await app.get("/api/auth/providers")).json() == {"providers": [{"id": "oidc", "name": "Single sign-on"}]}


async def test_no_providers_when_none_is_configured(client: httpx.AsyncClient) -> None:
    assert (await client.get("/api/auth/providers")).json() == {"providers": []}


async def test_named_providers_have_their_names(container: Container) -> None:
    configured = tuple(OidcClient(p, "id", "secret") for p in ("google", "github", "facebook", "x"))
    container.settings.override(dataclasses.replace(container.settings(), oidc_clients=configured))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(container)), base_url=APP) as client:
        body = (await client.get("/api/auth/providers")).json()
        start = await client.get("/api/auth/oidc/github/login")
    assert [p["name"] for p in body["providers"]] == ["Google", "GitHub", "Facebook", "X"]
    assert start.status_code == 302
    assert start.headers["location"].startswith("https://github.com/login/oauth/authorize?")


async def test_unknown_or_unconfigured_provider_is_a_json_404(app: httpx.AsyncClient) -> None:
    for path in ("/api/auth/oidc/google/login", "/api/auth/oidc/nope/login", "/api/auth/oidc/nope/callback?code=x"):
        response = await app.get(path)
        assert response.status_code == 404, path
        assert response.json()["status"] == "error"


async def test_code_flow_signs_in_and_maps_again_to_the_same_user(
    app: httpx.AsyncClient, browser_at_provider: httpx.AsyncClient, idp: LocalOpenIDProvider
) -> None:
    start = await app.get("/api/auth/oidc/oidc/login")
    assert start.status_code == 302
    sent = parse_qs(urlsplit(start.headers["location"]).query)
    assert start.headers["location"].startswith(f"{idp.issuer}/authorize?")
    assert sent["redirect_uri"] == [CALLBACK] and sent["client_id"] == [CLIENT_ID]
    assert sent["code_challenge_method"] == ["S256"] and len(sent["code_challenge"][0]) == 43
    assert len(sent["state"][0]) >= 20 and len(sent["nonce"][0]) >= 20
    state_cookie = start.headers["set-cookie"]
    assert "ps_oidc_state=" in state_cookie and "HttpOnly" in state_cookie
    assert "Path=/api/auth/oidc" in state_cookie and "SameSite=lax" in state_cookie and "Max-Age=600" in state_cookie

    approved = await browser_at_provider.get(start.headers["location"])
    callback = await app.get(approved.headers["location"])
    assert callback.status_code == 302 and callback.headers["location"] == "/data-processing?signed_in=1"
    assert "ps_refresh" in callback.cookies
    # The PKCE verifier went to the token endpoint, and the state cookie is spent.
    assert len(idp.token_requests[-1]["code_verifier"]) >= 43
    assert app.cookies.get("ps_oidc_state") is None

    first = await app.post("/api/auth/refresh")
    assert first.status_code == 200
    user = first.json()["user"]
    assert user["email"] == "pat@idp.example" and user["displayName"] == "Pat Provider" and user["role"] == "user"
    me = await app.get("/api/auth/me", headers={"Authorization": f"Bearer {first.json()['access_token']}"})
    assert me.json()["user"]["uid"] == user["uid"]

    app.cookies.clear()
    again = await app.get(await start_sign_in(app, browser_at_provider))
    assert again.headers["location"] == "/data-processing?signed_in=1"
    second = await app.post("/api/auth/refresh")
    assert second.json()["user"]["uid"] == user["uid"]


async def test_tampered_state_is_refused(app: httpx.AsyncClient, browser_at_provider: httpx.AsyncClient) -> None:
    callback = await start_sign_in(app, browser_at_provider)
    query = parse_qs(urlsplit(callback).query)
    tampered = f"{CALLBACK}?code={query['code'][0]}&state={query['state'][0][:-2]}xx"
    response = await app.get(tampered)
    assert login_error(response) == REQUEST_EXPIRED
    await assert_no_session(app, response)


async def test_altered_state_cookie_is_refused(app: httpx.AsyncClient, browser_at_provider: httpx.AsyncClient) -> None:
    callback = await start_sign_in(app, browser_at_provider)
    sealed = app.cookies.get("ps_oidc_state")
    app.cookies.set("ps_oidc_state", sealed[:-3] + ("AAA" if not sealed.endswith("AAA") else "BBB"),
                    domain="testserver.local", path="/api/auth/oidc")
    response = await app.get(callback)
    assert login_error(response) == REQUEST_EXPIRED
    await assert_no_session(app, response)


async def test_missing_state_cookie_is_refused(app: httpx.AsyncClient, browser_at_provider: httpx.AsyncClient) -> None:
    callback = await start_sign_in(app, browser_at_provider)
    app.cookies.clear()
    response = await app.get(callback)
    assert login_error(response) == REQUEST_EXPIRED
    await assert_no_session(app, response)


async def test_expired_state_cookie_is_refused(
    app: httpx.AsyncClient, browser_at_provider: httpx.AsyncClient, container: Container
) -> None:
    offset = [0.0]
    container.pending_sign_in_sealer.override(
        SignedPendingSignIn(container.settings().secret_key, now=lambda: time.time() + offset[0])
    )
    callback = await start_sign_in(app, browser_at_provider)
    offset[0] = 601  # the browser came back after more than 10 minutes
    response = await app.get(callback)
    assert login_error(response) == REQUEST_EXPIRED
    await assert_no_session(app, response)


async def test_replayed_callback_is_refused(app: httpx.AsyncClient, browser_at_provider: httpx.AsyncClient) -> None:
    callback = await start_sign_in(app, browser_at_provider)
    sealed = app.cookies.get("ps_oidc_state")
    assert (await app.get(callback)).headers["location"] == "/data-processing?signed_in=1"
    app.cookies.clear()

    # Replayed as is: the state cookie was spent by the first use.
    replay = await app.get(callback)
    assert login_error(replay) == REQUEST_EXPIRED
    await assert_no_session(app, replay)
    # Replayed with a copy of the cookie: the provider's code works once only.
    app.cookies.set("ps_oidc_state", sealed, domain="testserver.local", path="/api/auth/oidc")
    replay_with_cookie = await app.get(callback)
    assert login_error(replay_with_cookie) == REFUSED_BY_PROVIDER
    await assert_no_session(app, replay_with_cookie)


@pytest.mark.parametrize("switch", ["bad_nonce", "bad_audience", "bad_issuer", "expired_id_token"])
async def test_an_id_token_that_fails_a_check_is_refused(
    app: httpx.AsyncClient, browser_at_provider: httpx.AsyncClient, idp: LocalOpenIDProvider, switch: str
) -> None:
    setattr(idp, switch, True)
    response = await app.get(await start_sign_in(app, browser_at_provider))
    assert login_error(response) == REFUSED_BY_PROVIDER
    await assert_no_session(app, response)


async def test_cancel_at_the_provider_says_so(app: httpx.AsyncClient) -> None:
    start = await app.get("/api/auth/oidc/oidc/login")
    state = parse_qs(urlsplit(start.headers["location"]).query)["state"][0]
    response = await app.get(f"{CALLBACK}?error=access_denied&state={state}")
    assert login_error(response) == CANCELLED
    await assert_no_session(app, response)


async def test_provider_email_does_not_take_over_a_local_account(
    app: httpx.AsyncClient, browser_at_provider: httpx.AsyncClient
) -> None:
    assert (await app.post("/api/auth/signup", json={"email": "pat@idp.example", "password": STRONG_PASSWORD})).status_code == 201
    local = (await app.post("/api/auth/login", json={"email": "pat@idp.example", "password": STRONG_PASSWORD})).json()
    await app.get(await start_sign_in(app, browser_at_provider))
    external = (await app.post("/api/auth/refresh")).json()["user"]
    assert external["uid"] != local["user"]["uid"]
    assert external["email"].endswith("@external.invalid")

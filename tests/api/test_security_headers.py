"""Security headers on every response: the app's page, assets, API answers, errors, routing
404s and the Swagger page; no-store on API answers; HSTS and Secure cookies only over https."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from httpx import AsyncClient

from entrypoints.container import Container
from entrypoints.http.app import create_app
from tests.conftest import STRONG_PASSWORD, sign_up_and_log_in

EVERY_KIND_OF_ANSWER = [
    ("GET", "/"),  # the app's page
    ("GET", "/data-processing"),  # a client-side route
    ("GET", "/health"),
    ("GET", "/api/auth/me"),  # 401
    ("GET", "/api/nope"),  # JSON 404 under /api
    ("DELETE", "/api/auth/me"),  # routing 405
    ("POST", "/api/auth/login"),  # 400 for a missing body
    ("GET", "/schema"),
    ("GET", "/schema/openapi.json"),
]


@pytest.mark.parametrize(("method", "path"), EVERY_KIND_OF_ANSWER)
async def test_every_answer_carries_the_security_headers(client: AsyncClient, method: str, path: str) -> None:
    response = await client.request(method, path)
    headers = response.headers
    csp = headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp and "script-src 'self';" in csp
    assert "unsafe-inline" not in csp.split("script-src", 1)[1].split(";", 1)[0]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "strict-origin-when-cross-origin"
    assert "camera=()" in headers["permissions-policy"] and "geolocation=()" in headers["permissions-policy"]
    assert "strict-transport-security" not in headers  # the test base URL is http


async def test_the_policy_allows_no_inline_code_and_swagger_needs_none(client: AsyncClient) -> None:
    for path in ("/", "/schema"):
        csp = (await client.get(path)).headers["content-security-policy"]
        assert "style-src 'self';" in csp and "unsafe" not in csp, path
    # Swagger UI runs from this server's files, with no inline script for the policy to refuse.
    swagger = await client.get("/schema")
    assert "<script>" not in swagger.text and "<style>" not in swagger.text
    assert 'src="/schema/swagger-init.js"' in swagger.text
    init = await client.get("/schema/swagger-init.js")
    assert init.status_code == 200 and "SwaggerUIBundle" in init.text
    assert (await client.get("/schema-assets/swagger-ui-bundle.js")).status_code == 200


async def test_api_answers_are_never_stored(client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "no-store@example.com")
    assert (await client.get("/api/auth/me", headers=user["headers"])).headers["cache-control"] == "no-store"
    assert (await client.get("/api/recent-searches", headers=user["headers"])).headers["cache-control"] == "no-store"
    assert (await client.get("/api/auth/me")).headers["cache-control"] == "no-store"  # errors too
    login = await client.post("/api/auth/login", json={"email": "no-store@example.com", "password": STRONG_PASSWORD})
    assert login.headers["cache-control"] == "no-store"
    forgot = await client.post("/forgot-password", json={"email": "no-store@example.com"})
    assert forgot.headers["cache-control"] == "no-store"
    # The app's page keeps its own rule (revalidate), and a health probe may be cached by nobody in particular.
    assert (await client.get("/")).headers.get("cache-control") != "no-store"


@pytest.fixture
async def https_client(container: Container) -> AsyncIterator[AsyncClient]:
    import dataclasses

    container.settings.override(dataclasses.replace(container.settings(), base_url="https://perilscope.example"))
    try:
        app = create_app(container)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="https://perilscope.example") as client:
            yield client
    finally:
        container.settings.reset_override()


async def test_https_base_url_adds_hsts_and_secure_cookies(https_client: AsyncClient) -> None:
    page = await https_client.get("/")
    assert page.headers["strict-transport-security"] == "max-age=63072000; includeSubDomains"
    await https_client.post("/api/auth/signup", json={"email": "hsts@example.com", "password": STRONG_PASSWORD})
    login = await https_client.post("/api/auth/login", json={"email": "hsts@example.com", "password": STRONG_PASSWORD})
    assert login.status_code == 200
    cookie = login.headers["set-cookie"]
    assert "ps_refresh=" in cookie and "Secure" in cookie and "HttpOnly" in cookie
    assert "strict-transport-security" in login.headers

"""Who may call what: every route of the app, called anonymously, as a regular user and as an
admin. A route missing from ACCESS fails the suite, so a new route must declare its access."""

from __future__ import annotations

import re

import pytest
from httpx import AsyncClient

from entrypoints.container import Container
from tests.conftest import sign_up_admin, sign_up_and_log_in

PUBLIC, USER, ADMIN = "public", "user", "admin"
METRICS_TOKEN = "metrics token"  # /metrics: the bearer of PERILSCOPE_METRICS_TOKEN only (test_metrics.py)
API_KEY = "api key"  # the public API: an API key or its bearer token, never a web session

ACCESS: dict[tuple[str, str], str] = {
    ("GET", "/health"): PUBLIC,
    ("GET", "/metrics"): METRICS_TOKEN,
    ("GET", "/ready"): PUBLIC,
    ("POST", "/api/auth/signup"): PUBLIC,
    ("POST", "/api/auth/login"): PUBLIC,
    ("POST", "/api/auth/refresh"): PUBLIC,  # the refresh cookie is the credential
    ("POST", "/api/auth/logout"): PUBLIC,
    ("POST", "/forgot-password"): PUBLIC,
    ("GET", "/forgot-password"): PUBLIC,  # the web app's page at the same path
    ("POST", "/api/auth/reset-password"): PUBLIC,  # the emailed token is the credential
    ("POST", "/api/auth/verify-token"): PUBLIC,  # the token in the body is what is checked
    ("GET", "/api/auth/providers"): PUBLIC,
    ("GET", "/api/auth/oidc/{provider}/login"): PUBLIC,
    ("GET", "/api/auth/oidc/{provider}/callback"): PUBLIC,
    ("POST", "/api/auth/login/mfa"): PUBLIC,  # the signed mfa_token from the password step is the credential
    ("POST", "/api/send-email"): PUBLIC,
    ("POST", "/api/auth/change-password"): USER,
    ("GET", "/api/auth/me"): USER,
    ("PATCH", "/api/auth/me"): USER,
    ("GET", "/api/auth/get-user-info/{uid}"): USER,
    ("GET", "/api/auth/get-search-stats"): USER,
    ("GET", "/api/auth/mfa"): USER,
    ("POST", "/api/auth/mfa/enrol"): USER,
    ("POST", "/api/auth/mfa/confirm"): USER,
    ("POST", "/api/auth/mfa/disable"): USER,
    ("GET", "/api/nearby-search"): USER,
    ("GET", "/api/recent-searches"): USER,
    ("GET", "/api/search-results/{search_id}"): USER,
    ("GET", "/api/search-results/{search_id}/export"): USER,
    ("GET", "/api/place-photo"): USER,
    ("POST", "/api/upload-csv"): USER,
    ("POST", "/api/batch-jobs"): USER,
    ("GET", "/api/batch-jobs"): USER,
    ("GET", "/api/batch-jobs/{job_id}"): USER,
    ("POST", "/api/batch-jobs/{job_id}/rerun-failed"): USER,
    ("GET", "/api/list-exported-files"): USER,
    ("DELETE", "/api/exports/{filename}"): USER,
    ("GET", "/api/exports/{filename}/detailed"): USER,
    ("GET", "/api/exports/{filename}/portfolio"): USER,
    ("GET", "/api/exports/{filename}/rows"): USER,
    ("GET", "/api/view-export/{filename}"): USER,
    ("GET", "/api/download/{filename}"): USER,
    ("POST", "/api/search"): USER,
    ("POST", "/api/match-yelp"): USER,
    ("POST", "/api/export"): USER,
    ("GET", "/api/api-keys"): USER,
    ("POST", "/api/api-keys"): USER,
    ("DELETE", "/api/api-keys/{key_id}"): USER,
    ("POST", "/api/admin/update-user-plan"): ADMIN,
    # The public API: the API key in the body is the credential.
    ("POST", "/api/v1/auth/token"): PUBLIC,
    ("GET", "/api/v1/auth/verify"): API_KEY,
    ("GET", "/api/v1/risk-assessment"): API_KEY,
    ("GET", "/api/v1/search/address"): API_KEY,
    ("GET", "/api/v1/data/risk/{address_id}"): API_KEY,
    ("GET", "/api/v1/data/history/{address_id}"): API_KEY,
    ("GET", "/api/webhooks/secret"): USER,
    ("POST", "/api/webhooks/secret/rotate"): USER,
    ("GET", "/api/webhooks/deliveries"): USER,
    ("GET", "/api/v1/webhooks/deliveries"): API_KEY,
    ("POST", "/api/v1/search/batch"): API_KEY,
    ("POST", "/api/v1/batch-assessment"): API_KEY,
    ("GET", "/api/v1/export/status/{export_id}"): API_KEY,
    ("POST", "/api/v1/export/create"): API_KEY,
    ("GET", "/api/v1/export/download/{export_id}"): API_KEY,
    ("GET", "/api/v1/exports"): API_KEY,
    ("GET", "/api/admin/list-users"): ADMIN,
    ("GET", "/api/admin/user-info/{uid}"): ADMIN,
    ("POST", "/api/admin/update-user-role"): ADMIN,
    ("GET", "/api/admin/search-stats"): ADMIN,
    ("GET", "/api/admin/settings"): ADMIN,
    ("PUT", "/api/admin/settings"): ADMIN,
}
# Served to everyone and holding no data: the OpenAPI page, its assets and the web app.
NOT_API = re.compile(r"^/(schema|schema-assets|assets)(/|$)|^/$|^/\{path")


def app_routes(client: AsyncClient) -> set[tuple[str, str]]:
    app = client._transport.app  # type: ignore[attr-defined]
    found = set()
    for route in app.routes:
        path = re.sub(r"\{(\w+):\w+\}", r"{\1}", route.path)
        if NOT_API.search(path):
            continue
        found |= {(method, path) for method in route.methods if method not in {"HEAD", "OPTIONS"}}
    return found


async def test_every_route_declares_who_may_call_it(client: AsyncClient) -> None:
    routes = app_routes(client)
    assert routes - ACCESS.keys() == set(), "add these routes to ACCESS"
    assert ACCESS.keys() - routes == set(), "these routes no longer exist"


@pytest.mark.parametrize(("method", "path"), sorted(ACCESS))
async def test_route_permissions(client: AsyncClient, container: Container, method: str, path: str) -> None:
    access = ACCESS[(method, path)]
    admin = await sign_up_admin(client, container, "root@example.com")
    regular = await sign_up_and_log_in(client, "someone@example.com")

    async def call(caller: dict | None) -> int:
        url = path.replace("{uid}", caller["uid"] if caller else "nobody")
        url = re.sub(r"\{\w+\}", "unknown", url)
        headers = caller["headers"] if caller else {}
        return (await client.request(method, url, headers=headers, json={})).status_code

    anonymous, as_user, as_admin = await call(None), await call(regular), await call(admin)
    if access == METRICS_TOKEN:  # no session opens it; without the setting it is not there
        assert anonymous == as_user == as_admin == 404
        return
    if access == PUBLIC:
        assert anonymous not in (401, 403)
        return
    assert anonymous == 401
    if access == API_KEY:
        assert as_user == as_admin == 401
        return
    assert as_admin not in (401, 403)
    if access == ADMIN:
        assert as_user == 403
    else:
        assert as_user not in (401, 403)

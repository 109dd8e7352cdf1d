"""Sessions and accounts against an attacker (issue: hardening), over HTTP on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from httpx import AsyncClient
from joserfc import jwt
from joserfc.jwk import OctKey
from sqlalchemy import select

from adapters.db.account_tables import OutboxMailRow
from entrypoints.container import Container
from tests.conftest import STRONG_PASSWORD, sign_up_admin, sign_up_and_log_in
from tests.fakes import FakeClock

SEATTLE = "701 5th Ave, Seattle, WA 98104"
PUBLISHED_SECRET = "dev-only-secret-change-me-in-production-please"


def forged_token(user_id: str, secret: str) -> str:
    now = int(time.time())
    claims = {"iss": "perilscope", "aud": "perilscope-api", "sub": user_id, "role": "admin", "iat": now, "exp": now + 600}
    return jwt.encode({"alg": "HS256"}, claims, OctKey.import_key(secret.encode()))


async def _outbox(container: Container, to: str) -> list[OutboxMailRow]:
    async with container.session_factory()() as session:
        return list(await session.scalars(select(OutboxMailRow).where(OutboxMailRow.to_address == to).order_by(OutboxMailRow.id)))


# --- 1. forged tokens -------------------------------------------------------------------------


async def test_a_token_signed_with_the_published_secret_is_refused(client: AsyncClient, container: Container) -> None:
    admin = await sign_up_admin(client, container, "boss@example.com")
    forged = {"Authorization": f"Bearer {forged_token(admin['uid'], PUBLISHED_SECRET)}"}
    for path in ("/api/admin/list-users", "/api/auth/me", "/api/recent-searches"):
        assert (await client.get(path, headers=forged)).status_code == 401, path


# --- 2. the role comes from the database ----------------------------------------------------------


async def test_a_demoted_admin_is_limited_from_the_next_request(client: AsyncClient, container: Container) -> None:
    boss = await sign_up_admin(client, container, "boss@example.com")
    other = await sign_up_admin(client, container, "other@example.com")
    ann = await sign_up_and_log_in(client, "ann@example.com")
    assert (await client.get(f"/api/auth/get-user-info/{ann['uid']}", headers=boss["headers"])).status_code == 200

    demoted = await client.post("/api/admin/update-user-role", json={"uid": boss["uid"], "role": "user"}, headers=other["headers"])
    assert demoted.status_code == 200
    # The same, still unexpired access token: no more admin reach, and the monthly limit applies.
    assert (await client.get(f"/api/auth/get-user-info/{ann['uid']}", headers=boss["headers"])).status_code == 403
    limit = container.settings().monthly_search_limit
    statuses = [
        (await client.get("/api/nearby-search", params={"address": SEATTLE}, headers=boss["headers"])).status_code
        for _ in range(limit + 1)
    ]
    assert statuses == [200] * limit + [429]


# --- 3. throttles ----------------------------------------------------------------------------


async def test_guessing_backs_off_with_retry_after_and_the_owner_gets_back_in(client: AsyncClient, container: Container) -> None:
    clock = FakeClock(datetime.now(UTC))
    container.clock.override(clock)
    await sign_up_and_log_in(client, "d@example.com")
    statuses = [
        (await client.post("/api/auth/login", json={"email": "d@example.com", "password": "Wr0ng!pass"})).status_code
        for _ in range(6)
    ]
    assert statuses == [401] * 5 + [429]
    refused = await client.post("/api/auth/login", json={"email": "d@example.com", "password": STRONG_PASSWORD})
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "30"
    assert "wait 30 seconds" in refused.json()["error"]
    clock.advance(timedelta(seconds=31))
    assert (await client.post("/api/auth/login", json={"email": "d@example.com", "password": STRONG_PASSWORD})).status_code == 200


async def test_reset_mails_to_one_account_are_capped(client: AsyncClient, container: Container) -> None:
    await sign_up_and_log_in(client, "victim@example.com")
    for _ in range(10):
        response = await client.post("/forgot-password", json={"email": "victim@example.com"})
        assert response.status_code == 200
    resets = [m for m in await _outbox(container, "victim@example.com") if m.subject == "Reset your PerilScope password"]
    assert len(resets) == 3
    # ...and one address asking for many accounts is throttled alike for known and unknown ones.
    statuses = [(await client.post("/forgot-password", json={"email": f"x{n}@example.com"})).status_code for n in range(5)]
    assert statuses[-1] == 429


async def test_sign_ups_from_one_address_are_throttled(client: AsyncClient, container: Container) -> None:
    allowed = container.account_policy().signups_per_address.free
    statuses = [
        (await client.post("/api/auth/signup", json={"email": f"bot{n}@example.com", "password": STRONG_PASSWORD})).status_code
        for n in range(allowed + 1)
    ]
    assert statuses == [201] * allowed + [429]


# --- 4. login CSRF ------------------------------------------------------------------------------


async def test_cross_site_form_posts_cannot_sign_a_browser_in(client: AsyncClient) -> None:
    await sign_up_and_log_in(client, "attacker@example.com")
    body = '{"email": "attacker@example.com", "password": "Str0ng!pass", "remember_me": true}'
    as_form = await client.post("/api/auth/login", content=body, headers={"Content-Type": "text/plain"})
    assert as_form.status_code == 415 and "application/json" in as_form.json()["error"]
    assert "ps_refresh" not in as_form.cookies

    for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}, {"Origin": "https://evil.example"}):
        refused = await client.post("/api/auth/login", content=body, headers={"Content-Type": "application/json", **headers})
        assert refused.status_code == 403 and "another site" in refused.json()["error"], headers
        assert (await client.post("/api/auth/refresh", headers=headers)).status_code == 403
        assert (await client.post("/api/auth/logout", headers=headers)).status_code == 403

    ours = {"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin", "Origin": "http://testserver.local"}
    assert (await client.post("/api/auth/login", content=body, headers=ours)).status_code == 200
    assert (await client.post("/api/auth/refresh", headers={"Origin": "http://testserver.local"})).status_code == 200


async def test_json_routes_refuse_form_bodies(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    for path in ("/api/export", "/api/send-email", "/api/auth/change-password", "/forgot-password"):
        response = await client.post(path, content='{"data": []}', headers={**ann["headers"], "Content-Type": "text/plain"})
        assert response.status_code == 415, path


# --- 5. sessions after a password change ------------------------------------------------------------


async def test_changing_the_password_signs_out_every_other_session(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    this_device = client.cookies.get("ps_refresh")
    other_device = (
        await client.post("/api/auth/login", json={"email": "ann@example.com", "password": STRONG_PASSWORD, "remember_me": True})
    ).cookies["ps_refresh"]
    client.cookies.clear()
    client.cookies.set("ps_refresh", this_device, path="/api/auth")  # the change comes from this browser
    changed = await client.post(
        "/api/auth/change-password",
        json={"current_password": STRONG_PASSWORD, "new_password": "N3w!Orchid-lamp"},
        headers=ann["headers"],
    )
    assert changed.status_code == 200
    client.cookies.set("ps_refresh", other_device, path="/api/auth")
    assert (await client.post("/api/auth/refresh")).status_code == 401
    client.cookies.set("ps_refresh", this_device, path="/api/auth")
    assert (await client.post("/api/auth/refresh")).status_code == 200


# --- 6. no account enumeration ------------------------------------------------------------------


async def test_forgot_password_answers_identically_for_known_and_unknown(client: AsyncClient, container: Container) -> None:
    await sign_up_and_log_in(client, "known@example.com")
    known = await client.post("/forgot-password", json={"email": "known@example.com"})
    unknown = await client.post("/forgot-password", json={"email": "nobody@example.com"})
    assert (known.status_code, known.json()) == (unknown.status_code, unknown.json())
    assert dict(known.headers).keys() == dict(unknown.headers).keys()
    assert len(await _outbox(container, "known@example.com")) == 2  # welcome, then the reset link
    assert await _outbox(container, "nobody@example.com") == []


async def test_sign_up_with_a_taken_email_mails_the_owner(client: AsyncClient, container: Container) -> None:
    await client.post("/api/auth/signup", json={"email": "ann@example.com", "password": STRONG_PASSWORD})
    await client.post("/api/auth/signup", json={"email": "ann@example.com", "password": "An0ther!pass"})
    subjects = [m.subject for m in await _outbox(container, "ann@example.com")]
    assert subjects == ["Welcome to PerilScope", "You already have a PerilScope account"]


# --- 7. password policy ------------------------------------------------------------------------


async def test_common_and_overlong_passwords_get_clear_messages(client: AsyncClient) -> None:
    common = await client.post("/api/auth/signup", json={"email": "c@example.com", "password": "Password1!"})
    assert common.status_code == 400 and "too common or easy to guess" in common.json()["error"]
    long = await client.post("/api/auth/signup", json={"email": "c@example.com", "password": "Aa1!" + "x" * 200})
    assert long.status_code == 400 and "at most 128 characters" in long.json()["error"]

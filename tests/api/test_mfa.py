"""Two-factor sign-in over HTTP, on SQLite and PostgreSQL, with a clock the test moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import unquote, urlsplit

import httpx
import pyotp
import pytest
from dependency_injector import providers
from httpx import AsyncClient
from sqlalchemy import select

from adapters.db.account_tables import OutboxMailRow
from adapters.db.mfa_tables import UserMfaRow
from application.mfa import ENROL_BEFORE_REQUIRING, MFA_SETUP_REQUIRED, REQUIRED_FOR_ADMINS, SIGN_IN_EXPIRED, WRONG_CODE
from entrypoints.container import Container
from tests.api.test_external_sign_in import (  # noqa: F401 - fixtures
    app,
    browser_at_provider,
    idp,
    provider,
    start_sign_in,
)
from tests.conftest import STRONG_PASSWORD, sign_up_admin, sign_up_and_log_in
from tests.fakes import FakeClock


@pytest.fixture
def clock(container: Container) -> FakeClock:
    clock = FakeClock(datetime.now(UTC))
    container.clock.override(providers.Object(clock))
    return clock


def code_at(secret: str, clock: FakeClock) -> str:
    return pyotp.TOTP(secret).at(clock.now())


async def enrol(
    client: AsyncClient, headers: dict, clock: FakeClock, password: str = STRONG_PASSWORD
) -> tuple[str, list[str]]:
    """Turns two-factor sign-in on; returns the secret and the recovery codes. The clock moves past
    the confirming step, whose code is spent."""
    start = await client.post("/api/auth/mfa/enrol", headers=headers)
    assert start.status_code == 200, start.text
    body = start.json()
    assert start.headers["cache-control"] == "no-store"
    assert body["otpauth_uri"].startswith("otpauth://totp/PerilScope:") and body["qr_svg"].startswith("<svg")
    code = code_at(body["secret"], clock)
    confirm = await client.post("/api/auth/mfa/confirm", json={"code": code, "password": password}, headers=headers)
    assert confirm.status_code == 200, confirm.text
    clock.advance(timedelta(seconds=30))
    return body["secret"], confirm.json()["recovery_codes"]


async def password_step(client: AsyncClient, email: str) -> dict:
    response = await client.post("/api/auth/login", json={"email": email, "password": STRONG_PASSWORD})
    assert response.status_code == 200, response.text
    return response.json()


async def test_enrolled_sign_in_needs_the_code(client: AsyncClient, container: Container, clock: FakeClock, connection) -> None:  # noqa: ANN001
    ann = await sign_up_and_log_in(client, "ann@example.com")
    assert (await client.get("/api/auth/mfa", headers=ann["headers"])).json() == {
        "status": "success", "enabled": False, "recovery_codes_left": 0, "required": False, "password_required": True,
    }
    started = await client.post("/api/auth/mfa/enrol", headers=ann["headers"])
    no_password = await client.post(
        "/api/auth/mfa/confirm", json={"code": code_at(started.json()["secret"], clock)}, headers=ann["headers"]
    )
    assert no_password.status_code == 400 and no_password.json()["error"] == "Current password is incorrect"
    secret, codes = await enrol(client, ann["headers"], clock)
    assert len(codes) == 10
    status = (await client.get("/api/auth/mfa", headers=ann["headers"])).json()
    assert status == {
        "status": "success", "enabled": True, "recovery_codes_left": 10, "required": False, "password_required": True,
    }
    # Kept encrypted: the secret is nowhere in the database.
    row = (await connection.execute(select(UserMfaRow.secret_sealed))).scalars().all()
    assert len(row) == 1 and secret not in row[0]

    client.cookies.clear()
    first = await password_step(client, "ann@example.com")
    assert first["status"] == "mfa_required" and "access_token" not in first and "ps_refresh" not in client.cookies
    wrong = await client.post("/api/auth/login/mfa", json={"mfa_token": first["mfa_token"], "code": "000000"})
    assert wrong.status_code == 401 and wrong.json()["error"] == WRONG_CODE
    signed_in = await client.post(
        "/api/auth/login/mfa", json={"mfa_token": first["mfa_token"], "code": code_at(secret, clock)}
    )
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["user"]["email"] == "ann@example.com" and "ps_refresh" in signed_in.cookies
    me = await client.get("/api/auth/me", headers={"Authorization": f"Bearer {signed_in.json()['access_token']}"})
    assert me.status_code == 200
    # The token was single use.
    clock.advance(timedelta(seconds=30))
    again = await client.post("/api/auth/login/mfa", json={"mfa_token": first["mfa_token"], "code": code_at(secret, clock)})
    assert again.status_code == 401 and again.json()["error"] == SIGN_IN_EXPIRED


async def test_a_code_is_not_accepted_twice(client: AsyncClient, clock: FakeClock) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    secret, _ = await enrol(client, ann["headers"], clock)
    code = code_at(secret, clock)
    first = await password_step(client, "ann@example.com")
    assert (await client.post("/api/auth/login/mfa", json={"mfa_token": first["mfa_token"], "code": code})).status_code == 200
    second = await password_step(client, "ann@example.com")
    replay = await client.post("/api/auth/login/mfa", json={"mfa_token": second["mfa_token"], "code": code})
    assert replay.status_code == 401 and replay.json()["error"] == WRONG_CODE


async def test_a_recovery_code_works_once(client: AsyncClient, clock: FakeClock) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    _, codes = await enrol(client, ann["headers"], clock)
    first = await password_step(client, "ann@example.com")
    used = await client.post("/api/auth/login/mfa", json={"mfa_token": first["mfa_token"], "recovery_code": codes[0]})
    assert used.status_code == 200, used.text
    headers = {"Authorization": f"Bearer {used.json()['access_token']}"}
    assert (await client.get("/api/auth/mfa", headers=headers)).json()["recovery_codes_left"] == 9
    second = await password_step(client, "ann@example.com")
    reused = await client.post("/api/auth/login/mfa", json={"mfa_token": second["mfa_token"], "recovery_code": codes[0]})
    assert reused.status_code == 401


async def test_wrong_codes_are_throttled(client: AsyncClient, clock: FakeClock) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    secret, _ = await enrol(client, ann["headers"], clock)
    token = (await password_step(client, "ann@example.com"))["mfa_token"]
    for _ in range(5):
        assert (await client.post("/api/auth/login/mfa", json={"mfa_token": token, "code": "000000"})).status_code == 401
    blocked = await client.post("/api/auth/login/mfa", json={"mfa_token": token, "code": code_at(secret, clock)})
    assert blocked.status_code == 429 and blocked.json()["status"] == "error"


async def test_bad_second_step_input_gets_a_clear_4xx(client: AsyncClient) -> None:
    for body in ({"mfa_token": "x"}, {"mfa_token": "x", "code": "1" * 33}, {"code": "123456"}, {}):
        response = await client.post("/api/auth/login/mfa", json=body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["status"] == "error"
    forged = await client.post("/api/auth/login/mfa", json={"mfa_token": "not.a.token", "code": "123456"})
    assert forged.status_code == 401 and forged.json()["error"] == SIGN_IN_EXPIRED


async def test_disabling_needs_the_password_and_a_code(client: AsyncClient, clock: FakeClock, connection) -> None:  # noqa: ANN001
    ann = await sign_up_and_log_in(client, "ann@example.com")
    secret, _ = await enrol(client, ann["headers"], clock)
    wrong_password = await client.post(
        "/api/auth/mfa/disable", json={"password": "Wr0ng!pass", "code": code_at(secret, clock)}, headers=ann["headers"]
    )
    assert wrong_password.status_code == 400
    no_code = await client.post(
        "/api/auth/mfa/disable", json={"password": STRONG_PASSWORD, "code": "000000"}, headers=ann["headers"]
    )
    assert no_code.status_code == 400 and no_code.json()["error"] == WRONG_CODE
    turned_off = await client.post(
        "/api/auth/mfa/disable", json={"password": STRONG_PASSWORD, "code": code_at(secret, clock)}, headers=ann["headers"]
    )
    assert turned_off.status_code == 200
    assert (await password_step(client, "ann@example.com"))["status"] == "success"
    # The owner is told of both changes.
    subjects = (await connection.execute(select(OutboxMailRow.subject).where(OutboxMailRow.to_address == "ann@example.com"))).scalars().all()
    assert sorted(s for s in subjects if s.startswith("Two-factor")) == [
        "Two-factor sign-in is off for your PerilScope account",
        "Two-factor sign-in is on for your PerilScope account",
    ]


async def test_required_admin_mfa_limits_an_unenrolled_admin_to_enrolment(
    client: AsyncClient, container: Container, clock: FakeClock
) -> None:
    boss = await sign_up_admin(client, container, "boss@example.com")
    other = await sign_up_admin(client, container, "other@example.com")
    settings = (await client.get("/api/admin/settings", headers=boss["headers"])).json()["settings"]
    assert settings["require_admin_mfa"] is False
    # Only an administrator who uses it may require it.
    refused = await client.put("/api/admin/settings", json={**settings, "require_admin_mfa": True}, headers=boss["headers"])
    assert refused.status_code == 409 and refused.json()["error"] == ENROL_BEFORE_REQUIRING
    boss_secret, _ = await enrol(client, boss["headers"], clock)
    saved = await client.put("/api/admin/settings", json={**settings, "require_admin_mfa": True}, headers=boss["headers"])
    assert saved.status_code == 200 and saved.json()["settings"]["require_admin_mfa"] is True

    # A session from before the switch is refused at admin routes at once.
    old = await client.get("/api/admin/list-users", headers=other["headers"])
    assert old.status_code == 403 and old.json()["error"] == MFA_SETUP_REQUIRED

    client.cookies.clear()
    session = await password_step(client, "other@example.com")
    assert session["status"] == "success" and session["mfa_enrolment_required"] is True
    restricted = {"Authorization": f"Bearer {session['access_token']}"}
    for method, path in (("GET", "/api/admin/list-users"), ("GET", "/api/nearby-search?address=x"),
                         ("GET", "/api/auth/get-search-stats"), ("POST", "/api/auth/mfa/disable")):
        response = await client.request(method, path, headers=restricted, json={"password": "x", "code": "123456"})
        assert response.status_code == 403 and response.json()["error"] == MFA_SETUP_REQUIRED, path
    assert (await client.get("/api/auth/me", headers=restricted)).status_code == 200
    assert (await client.get("/api/auth/mfa", headers=restricted)).json()["required"] is True

    await enrol(client, restricted, clock)
    refreshed = await client.post("/api/auth/refresh")
    assert refreshed.status_code == 200 and refreshed.json()["mfa_enrolment_required"] is False
    full = {"Authorization": f"Bearer {refreshed.json()['access_token']}"}
    assert (await client.get("/api/admin/list-users", headers=full)).status_code == 200

    # Required, so the boss cannot turn it off; regular users are not affected.
    kept = await client.post(
        "/api/auth/mfa/disable", json={"password": STRONG_PASSWORD, "code": code_at(boss_secret, clock)}, headers=boss["headers"]
    )
    assert kept.status_code == 403 and kept.json()["error"] == REQUIRED_FOR_ADMINS
    regular = await sign_up_and_log_in(client, "ann@example.com")
    assert (await client.get("/api/auth/get-search-stats", headers=regular["headers"])).status_code == 200


async def test_third_party_sign_in_of_an_enrolled_user_needs_the_code(
    app: httpx.AsyncClient, browser_at_provider: httpx.AsyncClient, container: Container, clock: FakeClock  # noqa: F811
) -> None:
    first = await app.get(await start_sign_in(app, browser_at_provider))
    assert first.headers["location"] == "/data-processing?signed_in=1"
    session = (await app.post("/api/auth/refresh")).json()
    status = await app.get("/api/auth/mfa", headers={"Authorization": f"Bearer {session['access_token']}"})
    assert status.json()["password_required"] is False  # no password: the code alone confirms
    secret, _ = await enrol(app, {"Authorization": f"Bearer {session['access_token']}"}, clock, password="")

    app.cookies.clear()
    second = await app.get(await start_sign_in(app, browser_at_provider))
    location = urlsplit(second.headers["location"])
    assert location.path == "/login" and location.query == "" and location.fragment.startswith("mfa_token=")
    assert "ps_refresh" not in second.cookies and (await app.post("/api/auth/refresh")).status_code == 204
    token = unquote(location.fragment.removeprefix("mfa_token="))
    done = await app.post("/api/auth/login/mfa", json={"mfa_token": token, "code": code_at(secret, clock)})
    assert done.status_code == 200 and done.json()["user"]["uid"] == session["user"]["uid"]


async def test_turning_it_on_ends_other_sessions_and_renews_this_one(client: AsyncClient, clock: FakeClock) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    other_device = client.cookies.get("ps_refresh")
    remembered = await client.post(
        "/api/auth/login", json={"email": "ann@example.com", "password": STRONG_PASSWORD, "remember_me": True}
    )
    this_browser = remembered.cookies.get("ps_refresh")
    start = (await client.post("/api/auth/mfa/enrol", headers=ann["headers"])).json()
    confirm = await client.post(
        "/api/auth/mfa/confirm",
        json={"code": code_at(start["secret"], clock), "password": STRONG_PASSWORD},
        headers=ann["headers"],
    )
    assert confirm.status_code == 200 and confirm.headers["cache-control"] == "no-store"
    body = confirm.json()
    assert len(body["recovery_codes"]) == 10 and body["user"]["email"] == "ann@example.com" and body["access_token"]
    renewed = confirm.headers["set-cookie"]
    assert "Max-Age=" in renewed, "as lasting as the 'Remember me' session it replaces"

    for old in (other_device, this_browser):
        client.cookies.set("ps_refresh", old, domain="testserver.local", path="/api/auth")
        assert (await client.post("/api/auth/refresh")).status_code == 401
    client.cookies.set("ps_refresh", confirm.cookies["ps_refresh"], domain="testserver.local", path="/api/auth")
    assert (await client.post("/api/auth/refresh")).status_code == 200

"""The account API end to end over HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

from dependency_injector import providers
from httpx import AsyncClient
from sqlalchemy import select, update

from adapters.db.account_tables import OutboxMailRow, PasswordResetRow, UserRow
from entrypoints.container import Container
from tests.conftest import STRONG_PASSWORD, sign_up_and_log_in
from tests.fakes import FakeClock


async def _reset_link_from_outbox(container: Container, email: str) -> str:
    async with container.session_factory()() as session:
        body = await session.scalar(
            select(OutboxMailRow.body).where(OutboxMailRow.to_address == email).order_by(OutboxMailRow.id.desc())
        )
    assert body is not None, "no reset mail in the outbox"
    match = re.search(r"token=([A-Za-z0-9_\-]+)", body)
    assert match
    return match.group(1)


async def test_signup_login_me_and_logout(client: AsyncClient) -> None:
    session = await sign_up_and_log_in(client, "Ann@Example.com")
    me = (await client.get("/api/auth/me", headers=session["headers"])).json()["user"]
    assert me["email"] == "ann@example.com" and me["role"] == "user"

    logout = await client.post("/api/auth/logout")
    assert logout.status_code == 200
    signed_out = await client.post("/api/auth/refresh")  # no cookie now: signed out, not an error
    assert signed_out.status_code == 204 and signed_out.content == b""


async def test_signup_enforces_password_rules_and_unique_email(client: AsyncClient) -> None:
    weak = await client.post("/api/auth/signup", json={"email": "b@example.com", "password": "password"})
    assert weak.status_code == 400
    assert "Please ensure all password requirements are met" in weak.json()["error"]
    bad_email = await client.post("/api/auth/signup", json={"email": "not-an-email", "password": STRONG_PASSWORD})
    assert bad_email.status_code == 400
    first = await client.post("/api/auth/signup", json={"email": "b@example.com", "password": STRONG_PASSWORD})
    again = await client.post("/api/auth/signup", json={"email": "B@example.com", "password": "An0ther!pass"})
    # A taken email answers exactly like a new one; its owner is told by mail instead.
    assert (again.status_code, again.json()) == (first.status_code, first.json()) == (
        201, {"status": "success", "message": "Account created. Please sign in."}
    )
    login = await client.post("/api/auth/login", json={"email": "b@example.com", "password": "An0ther!pass"})
    assert login.status_code == 401  # the second sign-up changed nothing


async def test_unknown_email_and_wrong_password_look_the_same(client: AsyncClient) -> None:
    await sign_up_and_log_in(client, "c@example.com")
    wrong = await client.post("/api/auth/login", json={"email": "c@example.com", "password": "Wr0ng!pass"})
    unknown = await client.post("/api/auth/login", json={"email": "nobody@example.com", "password": "Wr0ng!pass"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json()["error"] == unknown.json()["error"] == "Invalid email or password"


async def test_login_for_unknown_email_still_verifies_a_hash(client: AsyncClient, container: Container) -> None:
    calls = []
    hasher = container.password_hasher()
    original = hasher.verify

    async def counting_verify(password_hash: str, password: str) -> bool:
        calls.append(password_hash)
        return await original(password_hash, password)

    hasher.verify = counting_verify  # type: ignore[method-assign]
    await client.post("/api/auth/login", json={"email": "ghost@example.com", "password": "Wr0ng!pass"})
    assert len(calls) == 1 and calls[0].startswith("$argon2id$")


async def test_repeated_failures_are_rate_limited(client: AsyncClient) -> None:
    await sign_up_and_log_in(client, "d@example.com")
    statuses = []
    for _ in range(6):
        response = await client.post("/api/auth/login", json={"email": "d@example.com", "password": "Wr0ng!pass"})
        statuses.append(response.status_code)
    assert statuses[:5] == [401] * 5
    assert statuses[5] == 429
    assert "Too many sign-in attempts" in response.json()["error"]
    # Even the right password waits out the window.
    right = await client.post("/api/auth/login", json={"email": "d@example.com", "password": STRONG_PASSWORD})
    assert right.status_code == 429


async def test_refresh_rotates_and_reuse_revokes_the_family(client: AsyncClient, container: Container) -> None:
    clock = FakeClock(datetime.now(UTC))
    container.clock.override(providers.Object(clock))
    await sign_up_and_log_in(client, "e@example.com")
    first_cookie = client.cookies.get("ps_refresh")
    rotated = await client.post("/api/auth/refresh")
    assert rotated.status_code == 200
    second_cookie = client.cookies.get("ps_refresh")
    assert second_cookie and second_cookie != first_cookie

    # An attacker replays the first (already rotated) token, after the window for a second tab...
    clock.advance(container.account_policy().refresh_reuse_window + timedelta(seconds=1))
    client.cookies.set("ps_refresh", first_cookie, domain="testserver.local", path="/api/auth")
    assert (await client.post("/api/auth/refresh")).status_code == 401
    # ...and the legitimate holder's newer token dies with the family.
    client.cookies.set("ps_refresh", second_cookie, domain="testserver.local", path="/api/auth")
    assert (await client.post("/api/auth/refresh")).status_code == 401


async def test_remember_me_makes_a_persistent_cookie(client: AsyncClient) -> None:
    await client.post("/api/auth/signup", json={"email": "f@example.com", "password": STRONG_PASSWORD})
    short = await client.post("/api/auth/login", json={"email": "f@example.com", "password": STRONG_PASSWORD})
    long = await client.post(
        "/api/auth/login", json={"email": "f@example.com", "password": STRONG_PASSWORD, "remember_me": True}
    )
    assert "Max-Age" not in short.headers["set-cookie"]
    assert "Max-Age=2592000" in long.headers["set-cookie"]
    for response in (short, long):
        cookie = response.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/api/auth" in cookie


async def test_access_token_checks_signature_and_expiry(client: AsyncClient, container: Container) -> None:
    session = await sign_up_and_log_in(client, "g@example.com")
    tampered = session["token"][:-4] + ("AAAA" if not session["token"].endswith("AAAA") else "BBBB")
    assert (await client.get("/api/auth/me", headers={"Authorization": f"Bearer {tampered}"})).status_code == 401
    assert (await client.get("/api/auth/me")).status_code == 401
    from adapters.security.access_tokens import JwtAccessTokens

    expired_issuer = JwtAccessTokens(container.settings().secret_key, lifetime_seconds=-10)
    user = await container.accounts().me(session["uid"])
    expired = expired_issuer.issue(user)
    assert (await client.get("/api/auth/me", headers={"Authorization": f"Bearer {expired}"})).status_code == 401
    other_key = JwtAccessTokens("x" * 48).issue(user)
    assert (await client.get("/api/auth/me", headers={"Authorization": f"Bearer {other_key}"})).status_code == 401


async def test_forgot_password_answers_alike_for_known_and_unknown(client: AsyncClient) -> None:
    await sign_up_and_log_in(client, "h@example.com")
    started = time.perf_counter()
    known = await client.post("/forgot-password", json={"email": "h@example.com"})
    known_time = time.perf_counter() - started
    started = time.perf_counter()
    unknown = await client.post("/forgot-password", json={"email": "nobody@example.com"})
    unknown_time = time.perf_counter() - started
    assert known.status_code == unknown.status_code == 200
    assert known.json() == unknown.json()
    # Mail goes out after the response, so neither answer waits for it (a loose bound, not a benchmark).
    assert abs(known_time - unknown_time) < 0.5


async def test_password_reset_flow_single_use_and_sessions_revoked(
    client: AsyncClient, container: Container
) -> None:
    await sign_up_and_log_in(client, "i@example.com")
    assert (await client.post("/forgot-password", json={"email": "i@example.com"})).status_code == 200
    token = await _reset_link_from_outbox(container, "i@example.com")

    new_password = "N3w!Orchid-lamp"
    reset = await client.post("/api/auth/reset-password", json={"token": token, "password": new_password})
    assert reset.status_code == 200
    # All sessions end after a reset.
    assert (await client.post("/api/auth/refresh")).status_code == 401
    reused = await client.post("/api/auth/reset-password", json={"token": token, "password": "An0ther!pass"})
    assert reused.status_code == 400 and reused.json()["error"] == "This reset link is invalid or has expired."

    old = await client.post("/api/auth/login", json={"email": "i@example.com", "password": STRONG_PASSWORD})
    assert old.status_code == 401
    new = await client.post("/api/auth/login", json={"email": "i@example.com", "password": new_password})
    assert new.status_code == 200


async def test_expired_reset_token_is_refused(client: AsyncClient, container: Container) -> None:
    await sign_up_and_log_in(client, "j@example.com")
    await client.post("/forgot-password", json={"email": "j@example.com"})
    token = await _reset_link_from_outbox(container, "j@example.com")
    async with container.session_factory()() as session:
        row = (await session.scalars(select(PasswordResetRow))).first()
        await session.execute(
            update(PasswordResetRow).values(expires_at=row.expires_at - timedelta(minutes=31))
        )
        await session.commit()
    response = await client.post("/api/auth/reset-password", json={"token": token, "password": "N3w!Orchid-lamp"})
    assert response.status_code == 400


async def test_reset_link_is_built_from_the_configured_base_url(
    client: AsyncClient, container: Container
) -> None:
    await sign_up_and_log_in(client, "k@example.com")
    await client.post("/forgot-password", json={"email": "k@example.com"})
    async with container.session_factory()() as session:
        body = await session.scalar(
            select(OutboxMailRow.body).where(
                OutboxMailRow.to_address == "k@example.com", OutboxMailRow.subject == "Reset your PerilScope password"
            )
        )
    assert "http://testserver.local/reset-password?token=" in body
    assert "30 minutes" in body


async def test_change_password(client: AsyncClient) -> None:
    session = await sign_up_and_log_in(client, "l@example.com")
    wrong = await client.post(
        "/api/auth/change-password",
        json={"current_password": "Wr0ng!pass", "new_password": "N3w!Orchid-lamp"},
        headers=session["headers"],
    )
    assert wrong.status_code == 400 and wrong.json()["error"] == "Current password is incorrect"
    ok = await client.post(
        "/api/auth/change-password",
        json={"current_password": STRONG_PASSWORD, "new_password": "N3w!Orchid-lamp"},
        headers=session["headers"],
    )
    assert ok.status_code == 200
    assert (
        await client.post("/api/auth/login", json={"email": "l@example.com", "password": "N3w!Orchid-lamp"})
    ).status_code == 200


async def test_profile_update_cannot_touch_role_email_or_quota(
    client: AsyncClient, container: Container
) -> None:
    session = await sign_up_and_log_in(client, "m@example.com")
    ok = await client.patch(
        "/api/auth/me",
        json={"display_name": "Mia", "photo_url": "https://example.com/mia.png"},
        headers=session["headers"],
    )
    assert ok.status_code == 200 and ok.json()["user"]["displayName"] == "Mia"
    for field, value in (("role", "admin"), ("email", "boss@example.com"), ("search_limit", 1000)):
        response = await client.patch("/api/auth/me", json={field: value}, headers=session["headers"])
        assert response.status_code == 400, field
    async with container.session_factory()() as session_db:
        row = await session_db.scalar(select(UserRow).where(UserRow.id == session["uid"]))
    assert row.role == "user" and row.email == "m@example.com"
    bad_url = await client.patch("/api/auth/me", json={"photo_url": "javascript:alert(1)"}, headers=session["headers"])
    assert bad_url.status_code == 400


async def test_user_info_is_self_or_admin_only(client: AsyncClient, container: Container) -> None:
    alice = await sign_up_and_log_in(client, "alice@example.com")
    bob = await sign_up_and_log_in(client, "bob@example.com")
    own = await client.get(f"/api/auth/get-user-info/{alice['uid']}", headers=alice["headers"])
    assert own.status_code == 200 and own.json()["user"]["role"] == "user"
    other = await client.get(f"/api/auth/get-user-info/{bob['uid']}", headers=alice["headers"])
    assert other.status_code == 403

    await container.accounts().set_role("alice@example.com", __import__("domain.accounts").accounts.Role.ADMIN)
    relogin = await client.post("/api/auth/login", json={"email": "alice@example.com", "password": STRONG_PASSWORD})
    admin_headers = {"Authorization": f"Bearer {relogin.json()['access_token']}"}
    as_admin = await client.get(f"/api/auth/get-user-info/{bob['uid']}", headers=admin_headers)
    assert as_admin.status_code == 200 and as_admin.json()["user"]["email"] == "bob@example.com"


async def test_search_stats_limit_for_users_none_for_admins(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "n@example.com")
    stats = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    assert stats == {
        "current_month_searches": 0,
        "search_limit": 10,
        "remaining_searches": 10,
        "total_searches": 0,
        "last_search_date": None,
        "batch_rows_used": 0,
        "batch_rows_limit": 10_000,
        "batch_rows_remaining": 10_000,
        "storage_bytes_used": 0,
        "storage_bytes_limit": 200 * 1024 * 1024,
    }
    from domain.accounts import Role

    await container.accounts().set_role("n@example.com", Role.ADMIN)
    admin_stats = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    assert admin_stats["search_limit"] is None and admin_stats["remaining_searches"] is None
    assert admin_stats["batch_rows_limit"] is None and admin_stats["batch_rows_remaining"] is None


async def test_verify_token(client: AsyncClient) -> None:
    session = await sign_up_and_log_in(client, "o@example.com")
    ok = await client.post("/api/auth/verify-token", json={"token": session["token"]})
    assert ok.json() == {"status": "success", "valid": True, "uid": session["uid"]}
    assert (await client.post("/api/auth/verify-token", json={"token": "garbage"})).status_code == 401

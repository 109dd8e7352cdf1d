"""Two-factor sign-in rules with in-memory adapters, real TOTP, and a clock the test moves."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import struct
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from adapters.security.mfa_challenge import SignedMfaChallenge
from adapters.security.secret_box import AesGcmSecretBox
from adapters.security.totp import PyotpCodes
from application.accounts import Session
from application.errors import Conflict, Forbidden, InvalidInput, NotAuthenticated, TooManyRequests
from application.mfa import (
    ALREADY_ON,
    REQUIRED_FOR_ADMINS,
    SIGN_IN_EXPIRED,
    WRONG_CODE,
    MfaStatus,
)
from application.ports.accounts import SecondFactorRequired
from application.ports.mfa import MfaChallenge
from domain.accounts import Role
from domain.mfa import (
    RECOVERY_CODE_COUNT,
    clean_recovery_code,
    clean_totp_code,
    is_fresh_step,
    new_recovery_codes,
)
from tests.fakes_mfa import SECRET, MfaWorld, in_memory_mfa

PASSWORD = "Str0ng!pass"


def rfc6238(secret_base32: str, at: datetime, digits: int = 6) -> str:
    """An independent RFC 6238 (HMAC-SHA-1, 30 s) to check pyotp against."""
    key = base64.b32decode(secret_base32)
    counter = int(at.timestamp()) // 30
    mac = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    value = struct.unpack(">I", mac[offset : offset + 4])[0] & 0x7FFFFFFF
    return str(value % 10**digits).zfill(digits)


@pytest.fixture
def world() -> MfaWorld:
    return in_memory_mfa()


async def enrolled(world: MfaWorld, email: str = "ann@example.com") -> tuple[str, str, list[str]]:
    """A user with two-factor sign-in on: (user id, TOTP secret, recovery codes)."""
    user = await world.accounts.service.create_user(email, PASSWORD)
    start = await world.mfa.start_enrolment(user.id)
    codes = await world.mfa.confirm_enrolment(user.id, rfc6238(start.secret, world.accounts.clock.now()), PASSWORD)
    world.accounts.clock.advance(timedelta(seconds=30))  # the confirming step is spent
    return user.id, start.secret, codes


async def mfa_token(world: MfaWorld, email: str = "ann@example.com", remember_me: bool = False) -> str:
    result = await world.accounts.service.log_in(email, PASSWORD, remember_me=remember_me, client="c")
    assert isinstance(result, SecondFactorRequired)
    return result.mfa_token


# --- domain rules --------------------------------------------------------------------------


def test_a_step_counts_only_after_the_last_used_one() -> None:
    assert is_fresh_step(100, None) and is_fresh_step(101, 100)
    assert not is_fresh_step(100, 100) and not is_fresh_step(99, 100)


def test_codes_are_read_as_typed() -> None:
    assert clean_totp_code(" 123 456 ") == "123456"
    assert clean_totp_code("12345") is None and clean_totp_code("12345a") is None and clean_totp_code("١٢٣٤٥٦") is None
    assert clean_recovery_code("abcde-fghjk") == "ABCDEFGHJK"
    assert clean_recovery_code("oOiIl-22222") == "00111" + "22222"  # look-alikes read as digits
    assert clean_recovery_code("ABCDE-FGHJ") is None and clean_recovery_code("ABCDE-FGHJU") is None


def test_recovery_codes_are_random_and_well_formed() -> None:
    codes = new_recovery_codes()
    assert len(codes) == RECOVERY_CODE_COUNT == len(set(codes))
    assert all(re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}", code) for code in codes)
    assert all(clean_recovery_code(code) == code.replace("-", "") for code in codes)


# --- adapters ---------------------------------------------------------------------------------


def test_pyotp_matches_rfc_6238_within_one_step_either_side() -> None:
    # RFC 6238 appendix B's SHA-1 key; at T=59 s the 8-digit code is 94287082 (step 1).
    secret = base64.b32encode(b"12345678901234567890").decode()
    codes = PyotpCodes()
    at = datetime.fromtimestamp(59, UTC)
    assert codes.matching_step(secret, "287082", at) == 1
    assert codes.matching_step(secret, "287082", at + timedelta(seconds=30)) == 1  # one step late
    assert codes.matching_step(secret, "287082", at - timedelta(seconds=30)) == 1  # one step early
    assert codes.matching_step(secret, "287082", at + timedelta(seconds=60)) is None  # two steps late
    assert codes.matching_step(secret, "000000", at) is None
    now = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)
    fresh = codes.new_secret()
    assert codes.matching_step(fresh, rfc6238(fresh, now), now) == int(now.timestamp()) // 30


def test_sealed_secrets_open_only_for_their_owner_and_key() -> None:
    box = AesGcmSecretBox(SECRET)
    sealed = box.seal("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", "user-1")
    assert "JBSWY3DP" not in sealed
    assert box.open(sealed, "user-1") == "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
    assert box.open(sealed, "user-2") is None
    assert AesGcmSecretBox("another-secret-" + "x" * 32).open(sealed, "user-1") is None
    assert box.open(sealed[:-4] + "AAAA", "user-1") is None and box.open("garbage", "user-1") is None


def test_challenge_tokens_expire_after_five_minutes_and_need_this_key() -> None:
    now = [1_000_000.0]
    sealer = SignedMfaChallenge(SECRET, now=lambda: now[0])
    token = sealer.seal(MfaChallenge("user-1", "challenge-1", persistent=True))
    assert sealer.unseal(token) == MfaChallenge("user-1", "challenge-1", True)
    assert SignedMfaChallenge("another-secret-" + "x" * 32, now=lambda: now[0]).unseal(token) is None
    now[0] += 301
    assert sealer.unseal(token) is None


# --- enrolment ------------------------------------------------------------------------------


async def test_enrolment_turns_on_only_with_a_right_code(world: MfaWorld) -> None:
    user = await world.accounts.service.create_user("ann@example.com", PASSWORD)
    start = await world.mfa.start_enrolment(user.id)
    assert start.otpauth_uri.startswith("otpauth://totp/PerilScope:ann%40example.com?secret=" + start.secret)
    assert start.qr_svg.startswith("<svg") and "<script" not in start.qr_svg
    # Stored encrypted, never as the plain secret.
    assert start.secret not in world.store.rows[user.id].sealed_secret
    with pytest.raises(InvalidInput, match="not right"):
        await world.mfa.confirm_enrolment(user.id, "000000", PASSWORD)
    # The password is asked again: a stolen session alone cannot enrol the thief's phone.
    with pytest.raises(InvalidInput, match="password"):
        await world.mfa.confirm_enrolment(user.id, rfc6238(start.secret, world.accounts.clock.now()), "Wr0ng!pass")
    assert not (await world.mfa.status(user.id)).enabled
    codes = await world.mfa.confirm_enrolment(user.id, rfc6238(start.secret, world.accounts.clock.now()), PASSWORD)
    assert len(codes) == 10
    assert await world.mfa.status(user.id) == MfaStatus(enabled=True, recovery_codes_left=10, required=False, password_required=True)
    # Recovery codes are kept only as hashes.
    assert not any(code.replace("-", "") == r.code_hash for code in codes for r in world.store.rows[user.id].recovery_codes)
    with pytest.raises(Conflict, match=re.escape(ALREADY_ON)):
        await world.mfa.start_enrolment(user.id)


async def test_the_code_that_confirmed_enrolment_cannot_sign_in(world: MfaWorld) -> None:
    user = await world.accounts.service.create_user("ann@example.com", PASSWORD)
    start = await world.mfa.start_enrolment(user.id)
    code = rfc6238(start.secret, world.accounts.clock.now())
    await world.mfa.confirm_enrolment(user.id, code, PASSWORD)
    with pytest.raises(NotAuthenticated, match=re.escape(WRONG_CODE)):
        await world.mfa.complete_sign_in(await mfa_token(world), code)


# --- the second sign-in step -------------------------------------------------------------------


async def test_sign_in_needs_a_current_code_once_enrolled(world: MfaWorld) -> None:
    user_id, secret, _ = await enrolled(world)
    token = await mfa_token(world, remember_me=True)
    session = await world.mfa.complete_sign_in(token, rfc6238(secret, world.accounts.clock.now()))
    assert isinstance(session, Session) and session.user.id == user_id and session.persistent
    assert world.accounts.service.authenticate(session.access_token).user_id == user_id


async def test_a_code_is_not_accepted_twice_even_within_its_window(world: MfaWorld) -> None:
    _, secret, _ = await enrolled(world)
    code = rfc6238(secret, world.accounts.clock.now())
    await world.mfa.complete_sign_in(await mfa_token(world), code)
    with pytest.raises(NotAuthenticated, match=re.escape(WRONG_CODE)):
        await world.mfa.complete_sign_in(await mfa_token(world), code)
    # An older step than the last used one is refused too.
    earlier = rfc6238(secret, world.accounts.clock.now() - timedelta(seconds=30))
    with pytest.raises(NotAuthenticated):
        await world.mfa.complete_sign_in(await mfa_token(world), earlier)
    world.accounts.clock.advance(timedelta(seconds=30))
    await world.mfa.complete_sign_in(await mfa_token(world), rfc6238(secret, world.accounts.clock.now()))


async def test_a_code_two_steps_old_is_refused(world: MfaWorld) -> None:
    _, secret, _ = await enrolled(world)
    world.accounts.clock.advance(timedelta(seconds=90))
    stale = rfc6238(secret, world.accounts.clock.now() - timedelta(seconds=60))
    with pytest.raises(NotAuthenticated):
        await world.mfa.complete_sign_in(await mfa_token(world), stale)


async def test_a_recovery_code_works_once(world: MfaWorld) -> None:
    user_id, _, codes = await enrolled(world)
    await world.mfa.complete_sign_in(await mfa_token(world), codes[3].lower())
    assert (await world.mfa.status(user_id)).recovery_codes_left == 9
    with pytest.raises(NotAuthenticated, match=re.escape(WRONG_CODE)):
        await world.mfa.complete_sign_in(await mfa_token(world), codes[3])
    await world.mfa.complete_sign_in(await mfa_token(world), codes[4])


async def test_a_challenge_token_finishes_one_sign_in_only(world: MfaWorld) -> None:
    _, secret, _ = await enrolled(world)
    token = await mfa_token(world)
    await world.mfa.complete_sign_in(token, rfc6238(secret, world.accounts.clock.now()))
    world.accounts.clock.advance(timedelta(seconds=30))
    with pytest.raises(NotAuthenticated, match=re.escape(SIGN_IN_EXPIRED)):
        await world.mfa.complete_sign_in(token, rfc6238(secret, world.accounts.clock.now()))


async def test_only_the_latest_sign_in_can_finish(world: MfaWorld) -> None:
    _, secret, _ = await enrolled(world)
    older = await mfa_token(world)
    await mfa_token(world)
    with pytest.raises(NotAuthenticated, match=re.escape(SIGN_IN_EXPIRED)):
        await world.mfa.complete_sign_in(older, rfc6238(secret, world.accounts.clock.now()))


async def test_challenge_tokens_expire(world: MfaWorld) -> None:
    _, secret, _ = await enrolled(world)
    token = await mfa_token(world)
    world.accounts.clock.advance(timedelta(minutes=5, seconds=1))
    with pytest.raises(NotAuthenticated, match=re.escape(SIGN_IN_EXPIRED)):
        await world.mfa.complete_sign_in(token, rfc6238(secret, world.accounts.clock.now()))


async def test_wrong_codes_are_throttled_per_token_and_per_account(world: MfaWorld) -> None:
    _, secret, _ = await enrolled(world)
    token = await mfa_token(world)
    for _ in range(5):
        with pytest.raises(NotAuthenticated):
            await world.mfa.complete_sign_in(token, "000000")
    right = rfc6238(secret, world.accounts.clock.now())
    with pytest.raises(TooManyRequests):
        await world.mfa.complete_sign_in(token, right)
    # A new sign-in does not reset the account's count.
    with pytest.raises(TooManyRequests):
        await world.mfa.complete_sign_in(await mfa_token(world), right)
    world.accounts.clock.advance(timedelta(minutes=15, seconds=1))
    await world.mfa.complete_sign_in(await mfa_token(world), rfc6238(secret, world.accounts.clock.now()))


async def test_users_without_two_factor_sign_in_get_a_session_at_once(world: MfaWorld) -> None:
    await world.accounts.service.create_user("bob@example.com", PASSWORD)
    result = await world.accounts.service.log_in("bob@example.com", PASSWORD, remember_me=False, client="c")
    assert isinstance(result, Session) and not result.mfa_enrolment_only


async def test_third_party_sign_in_of_an_enrolled_user_needs_the_code(world: MfaWorld) -> None:
    user = await world.accounts.service.sign_in_external("https://idp", "sub-1", "eve@example.com", "Eve", None)
    assert isinstance(user, Session)
    start = await world.mfa.start_enrolment(user.user.id)
    # No password on a third-party account: the code alone confirms.
    await world.mfa.confirm_enrolment(user.user.id, rfc6238(start.secret, world.accounts.clock.now()), "")
    result = await world.accounts.service.sign_in_external("https://idp", "sub-1", "eve@example.com", "Eve", None)
    assert isinstance(result, SecondFactorRequired)


# --- turning it off, and requiring it for administrators -----------------------------------


async def test_disabling_needs_the_password_and_a_code(world: MfaWorld) -> None:
    user_id, secret, _ = await enrolled(world)
    with pytest.raises(InvalidInput, match="password"):
        await world.mfa.disable(user_id, "Wr0ng!pass", rfc6238(secret, world.accounts.clock.now()))
    with pytest.raises(InvalidInput, match="not right"):
        await world.mfa.disable(user_id, PASSWORD, "000000")
    await world.mfa.disable(user_id, PASSWORD, rfc6238(secret, world.accounts.clock.now()))
    assert not (await world.mfa.status(user_id)).enabled
    assert isinstance(
        await world.accounts.service.log_in("ann@example.com", PASSWORD, remember_me=False, client="c"), Session
    )


async def test_required_admin_mfa_limits_an_unenrolled_admin_to_enrolment(world: MfaWorld) -> None:
    admin = await world.accounts.service.create_admin("root@example.com", PASSWORD)
    world.settings.settings = replace(world.settings.settings, require_admin_mfa=True)
    session = await world.accounts.service.log_in("root@example.com", PASSWORD, remember_me=False, client="c")
    assert isinstance(session, Session) and session.mfa_enrolment_only
    assert world.accounts.service.authenticate(session.access_token).mfa_enrolment_only
    with pytest.raises(Forbidden):
        await world.gate.refuse_unenrolled_admin(admin.id)
    assert (await world.mfa.status(admin.id)).required
    # Regular users are not affected.
    await world.accounts.service.create_user("bob@example.com", PASSWORD)
    bob = await world.accounts.service.log_in("bob@example.com", PASSWORD, remember_me=False, client="c")
    assert isinstance(bob, Session) and not bob.mfa_enrolment_only
    # Once enrolled, a refreshed session is a full one, and the admin cannot turn it off.
    start = await world.mfa.start_enrolment(admin.id)
    await world.mfa.confirm_enrolment(admin.id, rfc6238(start.secret, world.accounts.clock.now()), PASSWORD)
    refreshed = await world.accounts.service.refresh(session.refresh_token)
    assert not refreshed.mfa_enrolment_only and not world.accounts.service.authenticate(refreshed.access_token).mfa_enrolment_only
    await world.gate.refuse_unenrolled_admin(admin.id)
    world.accounts.clock.advance(timedelta(seconds=30))
    with pytest.raises(Forbidden, match=re.escape(REQUIRED_FOR_ADMINS)):
        await world.mfa.disable(admin.id, PASSWORD, rfc6238(start.secret, world.accounts.clock.now()))


async def test_only_an_enrolled_admin_may_require_it_for_all(world: MfaWorld) -> None:
    admin = await world.accounts.service.create_admin("root@example.com", PASSWORD)
    with pytest.raises(Conflict, match="your own account"):
        await world.gate.refuse_requiring_without_own_enrolment(admin.id)
    start = await world.mfa.start_enrolment(admin.id)
    await world.mfa.confirm_enrolment(admin.id, rfc6238(start.secret, world.accounts.clock.now()), PASSWORD)
    await world.gate.refuse_requiring_without_own_enrolment(admin.id)
    assert (await world.accounts.service.me(admin.id)).role is Role.ADMIN


async def test_security_events_are_logged_without_codes(world: MfaWorld, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", logger="perilscope.security")
    user_id, secret, codes = await enrolled(world)
    with pytest.raises(NotAuthenticated):
        await world.mfa.complete_sign_in(await mfa_token(world), "000000")
    messages = [(record.getMessage(), getattr(record, "user_id", None)) for record in caplog.records]
    assert ("two-factor sign-in turned on", user_id) in messages
    assert ("second sign-in step refused: wrong, used or stale code", user_id) in messages
    logged = caplog.text + " ".join(str(record.__dict__) for record in caplog.records)
    assert secret not in logged and not any(code in logged for code in codes) and "000000" not in logged

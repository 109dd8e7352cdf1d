"""Account use cases with in-memory adapters and a clock the test moves."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from adapters.identity.pending_state import SignedPendingSignIn
from application.accounts import INVALID_CREDENTIALS, RESET_LINK_INVALID, AccountPolicy, hash_token
from application.errors import Conflict, InvalidInput, NotAuthenticated, NotFound, TooManyRequests
from application.external_sign_in import REQUEST_EXPIRED, ExternalSignIn, ExternalSignInFailed
from application.ports.external_sign_in import ExternalIdentity, PendingSignIn, ProviderInfo
from domain.accounts import Role
from tests.fakes import AccountsWorld, in_memory_accounts

PASSWORD = "Str0ng!pass"
NEW_PASSWORD = "N3w!Orchid-lamp"
REUSE_WINDOW = AccountPolicy().refresh_reuse_window


@pytest.fixture
def world() -> AccountsWorld:
    return in_memory_accounts()


async def test_sign_up_then_log_in(world: AccountsWorld) -> None:
    receipt = await world.service.sign_up("  Ann@Example.COM ", PASSWORD, "Ann")
    [user] = world.store.users.values()
    assert user.email == "ann@example.com" and user.role is Role.USER and user.password_hash == f"fake${PASSWORD}"
    assert receipt.mail.to == "ann@example.com" and receipt.mail.subject == "Welcome to PerilScope"
    session = await world.service.log_in("ann@example.com", PASSWORD, remember_me=False, client="1.2.3.4")
    assert session.user.id == user.id and not session.persistent
    assert world.service.authenticate(session.access_token).user_id == user.id
    with pytest.raises(Conflict):
        await world.service.create_user("ANN@example.com", PASSWORD)


async def test_signing_up_with_a_taken_email_reveals_nothing_and_changes_nothing(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    [before] = world.store.users.values()
    receipt = await world.service.sign_up("ANN@example.com", "An0ther!pass")
    # No error to tell the caller; the owner learns of it by mail, and the password is unchanged.
    assert receipt.mail.to == "ann@example.com" and "already has an account" in receipt.mail.body
    assert list(world.store.users.values()) == [before]
    assert (await world.service.log_in("ann@example.com", PASSWORD, remember_me=False, client="c")).user.id == before.id


@pytest.mark.parametrize("password", ["Password1!", "P@ssw0rd12", "Qwerty123!", "Welcome1!", "Iloveyou1!"])
async def test_common_and_guessable_passwords_are_refused(world: AccountsWorld, password: str) -> None:
    with pytest.raises(InvalidInput, match="too common or easy to guess"):
        await world.service.sign_up("ann@example.com", password)
    assert not world.store.users


async def test_a_password_over_128_characters_gets_its_own_message(world: AccountsWorld) -> None:
    with pytest.raises(InvalidInput, match="at most 128 characters"):
        await world.service.sign_up("ann@example.com", "Aa1!" + "x" * 125)
    await world.service.sign_up("ann@example.com", "Aa1!" + "kq7Zt" * 24 + "x" * 4)  # exactly 128
    with pytest.raises(InvalidInput, match="password requirements"):
        await world.service.sign_up("bob@example.com", "weakpass")


async def test_wrong_password_and_unknown_email_fail_alike(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    for email, password in (("ann@example.com", "Wr0ng!pass"), ("ghost@example.com", PASSWORD)):
        with pytest.raises(NotAuthenticated) as failure:
            await world.service.log_in(email, password, remember_me=False, client="c")
        assert failure.value.message == INVALID_CREDENTIALS


async def test_failures_back_off_exponentially_per_account_across_addresses(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    for attempt in range(5):
        with pytest.raises(NotAuthenticated):
            await world.service.log_in("ann@example.com", "Wr0ng!pass", remember_me=False, client=f"10.0.0.{attempt}")
    checked = world.hasher.verifications
    # A sixth guess from yet another address is refused before the password is looked at.
    with pytest.raises(TooManyRequests, match="wait 30 seconds") as refused:
        await world.service.log_in("ann@example.com", PASSWORD, remember_me=False, client="10.0.0.99")
    assert refused.value.retry_after == 30 and world.hasher.verifications == checked
    world.clock.advance(timedelta(seconds=30))
    with pytest.raises(NotAuthenticated):
        await world.service.log_in("ann@example.com", "Wr0ng!pass", remember_me=False, client="c")
    with pytest.raises(TooManyRequests, match="wait 60 seconds"):  # the wait doubles
        await world.service.log_in("ann@example.com", PASSWORD, remember_me=False, client="c")
    # The owner is never locked out for longer than the back-off: a minute later they are in.
    world.clock.advance(timedelta(seconds=60))
    assert (await world.service.log_in("ann@example.com", PASSWORD, remember_me=False, client="c")).user.email
    # ...and success starts the account's count afresh.
    with pytest.raises(NotAuthenticated):
        await world.service.log_in("ann@example.com", "Wr0ng!pass", remember_me=False, client="c")


async def test_one_address_guessing_many_accounts_is_throttled(world: AccountsWorld) -> None:
    for n in range(20):
        with pytest.raises(NotAuthenticated):
            await world.service.log_in(f"user{n}@example.com", "Wr0ng!pass", remember_me=False, client="6.6.6.6")
    with pytest.raises(TooManyRequests):
        await world.service.log_in("user99@example.com", "Wr0ng!pass", remember_me=False, client="6.6.6.6")
    with pytest.raises(NotAuthenticated):  # other addresses are unaffected
        await world.service.log_in("user99@example.com", "Wr0ng!pass", remember_me=False, client="7.7.7.7")


async def test_changing_the_password_ends_every_other_session(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    here = await world.service.log_in("ann@example.com", PASSWORD, remember_me=True, client="c")
    elsewhere = await world.service.log_in("ann@example.com", PASSWORD, remember_me=True, client="d")
    user_id = here.user.id
    await world.service.change_password(user_id, PASSWORD, NEW_PASSWORD, current_refresh_token=here.refresh_token)
    with pytest.raises(NotAuthenticated):
        await world.service.refresh(elsewhere.refresh_token)
    assert (await world.service.refresh(here.refresh_token)).user.id == user_id


async def test_a_new_reset_link_kills_the_older_unused_ones(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    older = _token_of(await world.service.request_password_reset("ann@example.com"))
    newer = _token_of(await world.service.request_password_reset("ann@example.com"))
    with pytest.raises(InvalidInput, match=RESET_LINK_INVALID):
        await world.service.reset_password(older, NEW_PASSWORD)
    await world.service.reset_password(newer, NEW_PASSWORD)


async def test_reset_mails_to_one_account_are_capped(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    mails = [await world.service.request_password_reset("ann@example.com") for _ in range(50)]
    assert sum(mail is not None for mail in mails) == 3
    world.clock.advance(timedelta(hours=1))
    assert await world.service.request_password_reset("ann@example.com") is not None


async def test_refresh_rotates_and_reuse_revokes_only_that_family(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    first = await world.service.log_in("ann@example.com", PASSWORD, remember_me=True, client="c")
    other_device = await world.service.log_in("ann@example.com", PASSWORD, remember_me=True, client="c")

    rotated = await world.service.refresh(first.refresh_token)
    assert rotated.refresh_token != first.refresh_token and rotated.persistent

    world.clock.advance(REUSE_WINDOW + timedelta(seconds=1))
    with pytest.raises(NotAuthenticated):
        await world.service.refresh(first.refresh_token)  # stolen copy comes back
    with pytest.raises(NotAuthenticated):
        await world.service.refresh(rotated.refresh_token)  # the whole family died with it
    assert (await world.service.refresh(other_device.refresh_token)).user.email == "ann@example.com"


async def test_a_second_refresh_within_the_reuse_window_gets_a_session_of_the_same_family(world: AccountsWorld) -> None:
    """Two tabs refresh with the same cookie: the second is not taken for a stolen copy."""
    await world.service.sign_up("ann@example.com", PASSWORD)
    first = await world.service.log_in("ann@example.com", PASSWORD, remember_me=True, client="c")
    tab_a = await world.service.refresh(first.refresh_token)
    world.clock.advance(REUSE_WINDOW)
    tab_b = await world.service.refresh(first.refresh_token)
    assert tab_b.refresh_token != tab_a.refresh_token and tab_b.persistent
    assert len({_family_of(world, s.refresh_token) for s in (first, tab_a, tab_b)}) == 1
    for tab in (tab_a, tab_b):  # both tabs stay signed in
        assert (await world.service.refresh(tab.refresh_token)).user.email == "ann@example.com"


async def test_a_replay_after_the_reuse_window_ends_the_family(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    first = await world.service.log_in("ann@example.com", PASSWORD, remember_me=True, client="c")
    rotated = await world.service.refresh(first.refresh_token)
    world.clock.advance(REUSE_WINDOW + timedelta(seconds=1))
    with pytest.raises(NotAuthenticated):
        await world.service.refresh(first.refresh_token)
    with pytest.raises(NotAuthenticated):
        await world.service.refresh(rotated.refresh_token)


async def test_a_signed_out_token_does_not_come_back_within_the_reuse_window(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    session = await world.service.log_in("ann@example.com", PASSWORD, remember_me=True, client="c")
    rotated = await world.service.refresh(session.refresh_token)
    await world.service.log_out(rotated.refresh_token)
    with pytest.raises(NotAuthenticated):  # rotated a moment ago, but its family has ended
        await world.service.refresh(session.refresh_token)


def _family_of(world: AccountsWorld, refresh_token: str) -> str:
    return next(r.family_id for r in world.store.refresh_tokens.values() if r.token_hash == hash_token(refresh_token))


async def test_session_without_remember_me_ends_after_twelve_hours(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    session = await world.service.log_in("ann@example.com", PASSWORD, remember_me=False, client="c")
    world.clock.advance(timedelta(hours=11, minutes=59))
    session = await world.service.refresh(session.refresh_token)
    world.clock.advance(timedelta(hours=12, seconds=1))
    with pytest.raises(NotAuthenticated):
        await world.service.refresh(session.refresh_token)


async def test_log_out_ends_the_family(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    session = await world.service.log_in("ann@example.com", PASSWORD, remember_me=True, client="c")
    await world.service.log_out(session.refresh_token)
    with pytest.raises(NotAuthenticated):
        await world.service.refresh(session.refresh_token)


def _token_of(mail) -> str:  # noqa: ANN001
    match = re.search(r"https://app\.example/reset-password\?token=([\w\-]+)", mail.body)
    assert match, mail.body
    return match.group(1)


async def test_reset_token_expires_after_thirty_minutes(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    mail = await world.service.request_password_reset("Ann@example.com")
    assert mail.to == "ann@example.com" and "within 30 minutes" in mail.body
    world.clock.advance(timedelta(minutes=30))
    with pytest.raises(InvalidInput, match=RESET_LINK_INVALID):
        await world.service.reset_password(_token_of(mail), NEW_PASSWORD)

    fresh = await world.service.request_password_reset("ann@example.com")
    world.clock.advance(timedelta(minutes=29, seconds=59))
    await world.service.reset_password(_token_of(fresh), NEW_PASSWORD)
    assert (await world.service.log_in("ann@example.com", NEW_PASSWORD, remember_me=False, client="c")).user


async def test_reset_token_works_once_and_ends_sessions(world: AccountsWorld) -> None:
    await world.service.sign_up("ann@example.com", PASSWORD)
    session = await world.service.log_in("ann@example.com", PASSWORD, remember_me=True, client="c")
    token = _token_of(await world.service.request_password_reset("ann@example.com"))
    await world.service.reset_password(token, NEW_PASSWORD)
    with pytest.raises(InvalidInput, match=RESET_LINK_INVALID):
        await world.service.reset_password(token, "An0ther!pass")
    with pytest.raises(NotAuthenticated):
        await world.service.refresh(session.refresh_token)
    with pytest.raises(NotAuthenticated):
        await world.service.log_in("ann@example.com", PASSWORD, remember_me=False, client="c")
    assert await world.service.request_password_reset("nobody@example.com") is None


async def test_external_sign_in_is_keyed_by_issuer_and_subject(world: AccountsWorld) -> None:
    first = await world.service.sign_in_external("https://accounts.google.com", "123", "gina@gmail.com", "Gina", None)
    again = await world.service.sign_in_external("https://accounts.google.com", "123", "changed@gmail.com", "G", None)
    assert again.user.id == first.user.id and again.user.email == "gina@gmail.com"
    same_subject_elsewhere = await world.service.sign_in_external("https://github.com", "123", None, "octo", None)
    assert same_subject_elsewhere.user.id != first.user.id
    assert same_subject_elsewhere.user.email.endswith("@external.invalid")
    assert len(world.store.users) == 2 and first.user.password_hash is None
    # An account made by a provider has no password to log in with.
    with pytest.raises(NotAuthenticated):
        await world.service.log_in("gina@gmail.com", PASSWORD, remember_me=False, client="c")


async def test_external_sign_in_does_not_take_over_a_local_account(world: AccountsWorld) -> None:
    local = await world.service.create_user("ann@example.com", PASSWORD)
    external = await world.service.sign_in_external("https://idp.example", "sub-9", "ANN@example.com", "Ann?", None)
    assert external.user.id != local.id
    assert external.user.email != "ann@example.com" and external.user.email.endswith("@external.invalid")
    assert world.store.users[local.id] == local
    assert (await world.service.log_in("ann@example.com", PASSWORD, remember_me=False, client="c")).user.id == local.id


async def test_set_role_and_create_admin(world: AccountsWorld) -> None:
    admin = await world.service.create_admin("boss@example.com", PASSWORD)
    assert admin.role is Role.ADMIN and world.store.users[admin.id].role is Role.ADMIN
    assert (await world.service.search_stats(admin.id)).search_limit is None
    with pytest.raises(NotFound):
        await world.service.set_role("nobody@example.com", Role.ADMIN)


# --- the third-party sign-in use case, with a stand-in provider -------------------------------------


class StubProvider:
    def configured(self) -> list[ProviderInfo]:
        return [ProviderInfo("google", "Google"), ProviderInfo("oidc", "Single sign-on")]

    async def authorization_url(self, provider: str, redirect_uri: str) -> tuple[str, PendingSignIn]:
        return f"https://{provider}.example/auth", PendingSignIn(provider, f"state-{provider}", "v" * 64, "nonce")

    async def complete(self, provider: str, redirect_uri: str, code: str, pending: PendingSignIn) -> ExternalIdentity:
        return ExternalIdentity(f"https://{provider}.example", "sub-1", "pat@example.com", "Pat", None)


@pytest.fixture
def external(world: AccountsWorld) -> ExternalSignIn:
    return ExternalSignIn(StubProvider(), SignedPendingSignIn("k" * 40), world.service)


async def test_external_finish_checks_state_and_provider(external: ExternalSignIn) -> None:
    _, sealed_for_google = await external.start("google", "https://app/cb")
    _, sealed_for_oidc = await external.start("oidc", "https://app/cb")
    attempts = [
        dict(code="c", state="state-google", sealed=None),  # no cookie
        dict(code="c", state="other", sealed=sealed_for_google),  # state mismatch
        dict(code="c", state="state-oidc", sealed=sealed_for_oidc),  # cookie of another provider's sign-in
        dict(code="c", state="", sealed=sealed_for_google),
    ]
    for attempt in attempts:
        with pytest.raises(ExternalSignInFailed) as failure:
            await external.finish("google", "https://app/cb", **attempt)
        assert failure.value.message == REQUEST_EXPIRED, attempt
    session = await external.finish(
        "google", "https://app/cb", code="c", state="state-google", sealed=sealed_for_google
    )
    assert session.user.email == "pat@example.com"


async def test_external_unknown_provider_is_not_found(external: ExternalSignIn) -> None:
    with pytest.raises(NotFound):
        await external.start("facebook", "https://app/cb")

"""Two-factor sign-in with time-based one-time codes: enrolment, the second sign-in step, recovery
codes, and the administrators' obligation to use it (OWASP ASVS level 2, V2.8)."""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass

from application.accounts import AccountService, Session, hash_token
from application.errors import Conflict, Forbidden, InvalidInput, NotAuthenticated, NotFound, TooManyRequests
from application.ports.accounts import PasswordHasher, UnitOfWorkFactory
from application.ports.clock import Clock
from application.ports.mail import OutgoingMail
from application.ports.mfa import ChallengeSealer, MfaChallenge, MfaEnrolment, MfaStore, OneTimeCodes, QrCodes
from application.ports.secrets import SecretBox
from application.ports.settings import SystemSettingsStore
from application.ports.throttling import AttemptThrottle
from application.throttles import MFA_CODES
from domain.accounts import Role, User, normalize_email
from domain.mfa import (
    ISSUER,
    clean_recovery_code,
    clean_totp_code,
    is_fresh_step,
    new_recovery_codes,
)

# Security events (ASVS 7.2.1): who and what happened, never a code, secret or token.
log = logging.getLogger("perilscope.security")

MFA_SETUP_REQUIRED = "Set up two-factor sign-in on Settings to continue"
WRONG_CODE = "That code is not right. Enter the current 6-digit code from your authenticator app, or a recovery code."
SIGN_IN_EXPIRED = "Your sign-in has expired. Please sign in again."
TOO_MANY_CODES = "Too many wrong codes. Please wait 15 minutes and try again."
NOT_STARTED = "Start setting up two-factor sign-in first."
ALREADY_ON = "Two-factor sign-in is already on. Turn it off first to set it up again."
NOT_ON = "Two-factor sign-in is not on."
REQUIRED_FOR_ADMINS = (
    "Two-factor sign-in is required for administrators on this site, so it cannot be turned off."
)
WRONG_PASSWORD = "Current password is incorrect"
CODE_REQUIRED = "Enter the 6-digit code from your authenticator app, or a recovery code."
ENROL_BEFORE_REQUIRING = (
    "Set up two-factor sign-in for your own account on Settings before requiring it for all administrators."
)


@dataclass(frozen=True, slots=True)
class EnrolmentStart:
    secret: str  # base32, for typing into an app by hand; returned only now
    otpauth_uri: str
    qr_svg: str


@dataclass(frozen=True, slots=True)
class MfaStatus:
    enabled: bool
    recovery_codes_left: int
    required: bool
    password_required: bool  # changes are confirmed with the password (not for third-party accounts)


def challenge_hash(challenge_id: str) -> str:
    return hashlib.sha256(challenge_id.encode()).hexdigest()


class MfaGate:
    """The part sign-in needs: whether a user owes a code, and whether an admin must enrol first."""

    def __init__(self, store: MfaStore, sealer: ChallengeSealer, settings: SystemSettingsStore) -> None:
        self._store = store
        self._sealer = sealer
        self._settings = settings

    async def challenge(self, user: User, persistent: bool) -> str | None:
        if not await self._store.is_enabled(user.id):
            return None
        challenge_id = secrets.token_urlsafe(24)
        # Only the latest challenge can finish: a new sign-in replaces the previous token.
        await self._store.set_challenge(user.id, challenge_hash(challenge_id))
        return self._sealer.seal(MfaChallenge(user.id, challenge_id, persistent))

    async def enrolment_only(self, user: User) -> bool:
        return await self.must_enrol(user.id, user.role)

    async def admins_must_enrol(self) -> bool:
        return (await self._settings.current()).require_admin_mfa

    async def must_enrol(self, user_id: str, role: Role) -> bool:
        return role is Role.ADMIN and await self.admins_must_enrol() and not await self._store.is_enabled(user_id)

    async def refuse_requiring_without_own_enrolment(self, admin_id: str) -> None:
        """Whoever requires it for every administrator uses it already, so the switch cannot shut
        its own author out of the admin pages."""
        if not await self._store.is_enabled(admin_id):
            raise Conflict(ENROL_BEFORE_REQUIRING)

    async def refuse_unenrolled_admin(self, user_id: str) -> None:
        """Admin calls: also refuses sessions that began before the setting was switched on."""
        if await self.must_enrol(user_id, Role.ADMIN):
            raise Forbidden(MFA_SETUP_REQUIRED)


class MfaService:
    def __init__(
        self,
        store: MfaStore,
        codes: OneTimeCodes,
        qr: QrCodes,
        box: SecretBox,
        sealer: ChallengeSealer,
        hasher: PasswordHasher,
        throttle: AttemptThrottle,
        clock: Clock,
        accounts: AccountService,
        gate: MfaGate,
        uow: UnitOfWorkFactory,
    ) -> None:
        self._store = store
        self._codes = codes
        self._qr = qr
        self._box = box
        self._sealer = sealer
        self._hasher = hasher
        # Codes tried: 5 per sign-in attempt and 5 per account in 15 minutes, counted before the
        # code is checked and shared by every server process (application/throttles.py).
        self._throttle = throttle
        self._clock = clock
        self._accounts = accounts
        self._gate = gate
        self._uow = uow

    # --- status and enrolment ------------------------------------------------------

    async def status(self, user_id: str) -> MfaStatus:
        user = await self._accounts.me(user_id)
        enrolment = await self._store.enrolment(user_id)
        enabled = enrolment is not None and enrolment.enabled
        return MfaStatus(
            enabled=enabled,
            recovery_codes_left=len(enrolment.unused_recovery_codes) if enabled and enrolment else 0,
            required=await self._required(user),
            password_required=user.password_hash is not None,
        )

    async def start_enrolment(self, user_id: str) -> EnrolmentStart:
        user = await self._accounts.me(user_id)
        if await self._store.is_enabled(user_id):
            raise Conflict(ALREADY_ON)
        secret = self._codes.new_secret()
        await self._store.start_enrolment(user_id, self._box.seal(secret, user_id), self._clock.now())
        uri = self._codes.provisioning_uri(secret, user.email, ISSUER)
        return EnrolmentStart(secret=secret, otpauth_uri=uri, qr_svg=self._qr.svg(uri))

    async def confirm_enrolment(self, user_id: str, code: str, password: str) -> list[str]:
        """Turns two-factor sign-in on once the app shows the right code; returns the recovery
        codes, which are shown this once and kept only as hashes. The password is asked again, so a
        stolen session cannot tie the account to the thief's phone and lock its owner out."""
        user = await self._accounts.me(user_id)
        await self._reserve_attempt(_account_key(user_id))
        enrolment = await self._store.enrolment(user_id)
        if enrolment is None:
            raise InvalidInput(NOT_STARTED)
        if enrolment.enabled:
            raise Conflict(ALREADY_ON)
        await self._require_password(user, password)
        step = self._totp_step(enrolment, code)
        if step is None:
            raise InvalidInput(WRONG_CODE)
        recovery_codes = new_recovery_codes()
        hashes = [await self._hasher.hash(clean_recovery_code(code) or "") for code in recovery_codes]
        if not await self._store.enable(user_id, step, hashes, self._clock.now()):
            raise Conflict(ALREADY_ON)
        await self._throttle.clear(_account_key(user_id))
        log.info("two-factor sign-in turned on", extra={"user_id": user_id})
        return recovery_codes

    async def restart_sessions(self, user_id: str, current_refresh_token: str | None) -> Session:
        """After turning two-factor sign-in on, every session begun without it ends (a thief's
        too); this browser gets a new one, as lasting as the one it had."""
        async with self._uow() as uow:
            current = await uow.refresh_tokens.by_hash(hash_token(current_refresh_token or ""))
            persistent = current is not None and current.user_id == user_id and current.persistent
            await uow.refresh_tokens.revoke_all_for_user(user_id, self._clock.now())
            await uow.commit()
        return await self._accounts.start_session_after_second_factor(user_id, persistent)

    async def disable(self, user_id: str, password: str, code: str) -> None:
        """Needs the password and a current code (or a recovery code): a stolen session alone
        cannot turn the second factor off. Accounts without a password confirm with the code."""
        user = await self._accounts.me(user_id)
        await self._reserve_attempt(_account_key(user_id))
        enrolment = await self._store.enrolment(user_id)
        if enrolment is None or not enrolment.enabled:
            raise Conflict(NOT_ON)
        if await self._required(user):
            raise Forbidden(REQUIRED_FOR_ADMINS)
        await self._require_password(user, password)
        if not await self._use_code(enrolment, code):
            raise InvalidInput(WRONG_CODE)
        await self._throttle.clear(_account_key(user_id))
        await self._store.remove(user_id)
        log.info("two-factor sign-in turned off", extra={"user_id": user_id})

    async def change_notice(self, user_id: str, turned_on: bool) -> OutgoingMail:
        """The mail telling the owner that two-factor sign-in changed (ASVS 2.2.3), so a change they
        did not make does not go unnoticed."""
        user = await self._accounts.me(user_id)
        return change_notice(user.email, turned_on)

    async def reset(self, email: str) -> User:
        """For an operator (CLI) once the person has proved who they are another way: they lost
        the phone and the recovery codes. They sign in with the password alone and set up again."""
        async with self._uow() as uow:
            user = await uow.users.by_email(normalize_email(email))
        if user is None:
            raise NotFound(f"No user with email {email}")
        await self._store.remove(user.id)
        log.warning("two-factor sign-in reset by an operator", extra={"user_id": user.id})
        return user

    # --- the second sign-in step ------------------------------------------------------

    async def complete_sign_in(self, mfa_token: str, code: str) -> Session:
        challenge = self._sealer.unseal(mfa_token)
        if challenge is None:
            raise NotAuthenticated(SIGN_IN_EXPIRED)
        keys = (_account_key(challenge.user_id), f"mfa-challenge|{challenge.challenge_id}")
        for key in keys:
            await self._reserve_attempt(key)
        enrolment = await self._store.enrolment(challenge.user_id)
        expected = challenge_hash(challenge.challenge_id)
        if enrolment is None or not enrolment.enabled or enrolment.pending_challenge != expected:
            raise NotAuthenticated(SIGN_IN_EXPIRED)
        if not await self._use_code(enrolment, code):
            log.warning(
                "second sign-in step refused: wrong, used or stale code", extra={"user_id": challenge.user_id}
            )
            raise NotAuthenticated(WRONG_CODE)
        # Single use: two requests racing with one token cannot both finish.
        if not await self._store.take_challenge(challenge.user_id, expected):
            raise NotAuthenticated(SIGN_IN_EXPIRED)
        for key in keys:
            await self._throttle.clear(key)
        return await self._accounts.start_session_after_second_factor(challenge.user_id, challenge.persistent)

    # --- rules -------------------------------------------------------------------------

    async def _required(self, user: User) -> bool:
        return user.role is Role.ADMIN and await self._gate.admins_must_enrol()

    async def _require_password(self, user: User, password: str) -> None:
        """Accounts made by third-party sign-in have no password; the code alone confirms for them."""
        if user.password_hash is not None and not await self._hasher.verify(user.password_hash, password):
            raise InvalidInput(WRONG_PASSWORD)

    async def _reserve_attempt(self, key: str) -> None:
        wait = await self._throttle.attempt(key, MFA_CODES)
        if wait:
            log.warning("two-factor code refused: too many wrong codes", extra={"throttle": key.split("|")[0]})
            raise TooManyRequests(TOO_MANY_CODES, retry_after=wait)

    def _totp_step(self, enrolment: MfaEnrolment, code: str) -> int | None:
        digits = clean_totp_code(code)
        secret = self._box.open(enrolment.sealed_secret, enrolment.user_id)
        if digits is None or secret is None:
            return None
        step = self._codes.matching_step(secret, digits, self._clock.now())
        return step if step is not None and is_fresh_step(step, enrolment.last_used_step) else None

    async def _use_code(self, enrolment: MfaEnrolment, code: str) -> bool:
        """A current TOTP code (each time step once) or an unused recovery code (consumed)."""
        if clean_totp_code(code) is not None:
            step = self._totp_step(enrolment, code)
            return step is not None and await self._store.use_step(enrolment.user_id, step)
        recovery = clean_recovery_code(code)
        if recovery is None:
            return False
        for record in enrolment.unused_recovery_codes:
            if await self._hasher.verify(record.code_hash, recovery):
                return await self._store.use_recovery_code(record.id, self._clock.now())
        return False


def change_notice(email: str, turned_on: bool) -> OutgoingMail:
    state = "on" if turned_on else "off"
    return OutgoingMail(
        to=email,
        subject=f"Two-factor sign-in is {state} for your PerilScope account",
        body=(
            f"Two-factor sign-in was just turned {state} for your PerilScope account.\n\n"
            "If it was you, there is nothing to do. If it was not, change your password at once and "
            "contact your administrator.\n"
        ),
    )


def _account_key(user_id: str) -> str:
    return f"mfa-account|{user_id}"

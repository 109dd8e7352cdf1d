"""Account use cases of the built-in identity provider: sign-up, sessions, password reset, profile."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from application.errors import Conflict, Forbidden, InvalidInput, NotAuthenticated, NotFound, TooManyRequests
from application.ports.accounts import AccessClaims, AccessTokenIssuer, PasswordHasher, PasswordResetRecord, PasswordStrength, RefreshTokenRecord, SecondFactor, SecondFactorRequired, UnitOfWork, UnitOfWorkFactory, UserRoles
from application.ports.clock import Clock
from application.ports.mail import OutgoingMail
from application.ports.settings import SystemSettingsStore
from application.ports.throttling import AttemptThrottle
from application.throttles import (
    LOGIN_PER_ACCOUNT,
    LOGIN_PER_ADDRESS,
    RESET_MAILS_PER_ACCOUNT,
    RESET_REQUESTS_PER_ADDRESS,
    signups_per_address_rule,
    throttled,
)
from domain.accounts import (
    PASSWORD_MAX_LENGTH,
    PASSWORD_TOO_LONG,
    Role,
    User,
    is_valid_email,
    normalize_email,
    unmet_password_rules,
)
from domain.quota import Quota, month_key
from domain.throttling import ThrottleRule

INVALID_CREDENTIALS = "Invalid email or password"
SIGNUP_RECEIVED = "Account created. Please sign in."
RESET_LINK_INVALID = "This reset link is invalid or has expired."
SESSION_EXPIRED = "Your session has expired. Please sign in again."


def hash_token(token: str) -> str:
    """Refresh and reset tokens are stored as SHA-256: they are random, so no salt or KDF is needed."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class AccountPolicy:
    refresh_lifetime: timedelta = timedelta(days=30)
    session_refresh_lifetime: timedelta = timedelta(hours=12)  # without 'Remember me'
    # A token rotated this recently still refreshes (in its family): two tabs refreshing at once
    # must not sign the person out. Kept short: a stolen copy replayed later ends the family.
    refresh_reuse_window: timedelta = timedelta(seconds=10)
    reset_lifetime: timedelta = timedelta(minutes=30)
    reset_url_base: str = "http://127.0.0.1:8000"
    signups_per_address: ThrottleRule = field(default_factory=lambda: signups_per_address_rule(20))


@dataclass(frozen=True, slots=True)
class Session:
    user: User
    access_token: str
    expires_in: int
    refresh_token: str
    refresh_expires_in: int
    persistent: bool
    mfa_enrolment_only: bool = False


@dataclass(frozen=True, slots=True)
class SignUpReceipt:
    """The same for a new and a known email; only the mail differs, and it goes to the address's owner."""

    mail: OutgoingMail


@dataclass(frozen=True, slots=True)
class SearchStats:
    current_month_searches: int
    search_limit: int | None
    remaining_searches: int | None
    total_searches: int
    last_search_date: str | None


class AccountService:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        hasher: PasswordHasher,
        tokens: AccessTokenIssuer,
        throttle: AttemptThrottle,
        clock: Clock,
        policy: AccountPolicy,
        dummy_hash: str,
        settings: SystemSettingsStore,
        roles: UserRoles,
        strength: PasswordStrength,
        second_factor: SecondFactor | None = None,
    ) -> None:
        self._uow = uow
        self._hasher = hasher
        self._tokens = tokens
        self._throttle = throttle
        self._clock = clock
        self._policy = policy
        self._settings = settings
        self._roles = roles
        self._strength = strength
        self._second_factor = second_factor
        # A hash of a random password: verifying against it makes a login for an
        # unknown e-mail cost the same as one with a wrong password.
        self._dummy_hash = dummy_hash

    # --- sign-up and sign-in -------------------------------------------------

    async def sign_up(
        self, email: str, password: str, display_name: str | None = None, client: str = "local"
    ) -> SignUpReceipt:
        """Answers alike whether the email is new or taken, so sign-up cannot be used to learn who
        has an account: a new address gets a welcome mail, a taken one a note to its owner."""
        email = normalize_email(email)
        if not is_valid_email(email):
            raise InvalidInput("Please enter a valid email address")
        await throttled(self._throttle, f"signup-address:{client}", self._policy.signups_per_address, "sign-up attempts")
        try:
            user = await self.create_user(email, password, display_name)
        except Conflict:
            return SignUpReceipt(self._account_exists_mail(email))
        return SignUpReceipt(self._welcome_mail(user))

    async def create_user(self, email: str, password: str, display_name: str | None = None) -> User:
        """A new account (the CLI and sign-up); Conflict when the email is taken."""
        email = normalize_email(email)
        await require_acceptable_password(self._strength, password, email)
        password_hash = await self._hasher.hash(password)
        user = User(
            id=str(uuid.uuid4()),
            email=email,
            display_name=_clean_name(display_name),
            photo_url=None,
            role=Role.USER,
            created_at=self._clock.now(),
            password_hash=password_hash,
        )
        async with self._uow() as uow:
            if await uow.users.by_email(email) is not None:
                raise Conflict("An account with this email already exists")
            await uow.users.add(user)
            await uow.commit()
        return user

    async def log_in(
        self, email: str, password: str, remember_me: bool, client: str
    ) -> Session | SecondFactorRequired:
        email = normalize_email(email)
        # Reserved before the slow password check, per source address and per account across
        # addresses, so neither many parallel guesses nor many addresses get more tries.
        await throttled(self._throttle, f"login-address:{client}", LOGIN_PER_ADDRESS, "sign-in attempts")
        await throttled(self._throttle, f"login-account:{email}", LOGIN_PER_ACCOUNT, "sign-in attempts")
        async with self._uow() as uow:
            user = await uow.users.by_email(email)
        stored_hash = user.password_hash if user and user.password_hash else self._dummy_hash
        password_ok = await self._hasher.verify(stored_hash, password)
        if user is None or user.password_hash is None or not password_ok:
            raise NotAuthenticated(INVALID_CREDENTIALS)
        # The account starts afresh; the address only takes back this one attempt, since clearing
        # it would let a guesser reset it by signing in to an account of their own between guesses.
        await self._throttle.clear(f"login-account:{email}")
        await self._throttle.refund(f"login-address:{client}")
        return await self._after_first_factor(user, persistent=remember_me)

    async def sign_in_external(
        self, issuer: str, subject: str, email: str | None, name: str | None, picture: str | None
    ) -> Session | SecondFactorRequired:
        """Third-party sign-in: users are keyed by (issuer, subject), never by the e-mail claim alone."""
        async with self._uow() as uow:
            user = await uow.users.by_external_identity(issuer, subject)
            if user is None:
                user = User(
                    id=str(uuid.uuid4()),
                    # An unverified provider e-mail must not take over a local account, so
                    # a clash gets a synthetic address rather than a link.
                    email=await self._free_email(uow, email, issuer, subject),
                    display_name=_clean_name(name),
                    photo_url=picture,
                    role=Role.USER,
                    created_at=self._clock.now(),
                )
                await uow.users.add(user)
                await uow.users.link_external_identity(user.id, issuer, subject)
                await uow.commit()
        return await self._after_first_factor(user, persistent=True)

    async def _after_first_factor(self, user: User, persistent: bool) -> Session | SecondFactorRequired:
        """A password or a provider proved the first factor; an enrolled user still owes a code."""
        if self._second_factor is not None:
            mfa_token = await self._second_factor.challenge(user, persistent)
            if mfa_token is not None:
                return SecondFactorRequired(mfa_token)
        return await self._start_session(user, persistent)

    async def start_session_after_second_factor(self, user_id: str, persistent: bool) -> Session:
        """For application/mfa.py only, once it has checked both factors of this sign-in."""
        return await self._start_session(await self.me(user_id), persistent)

    async def _free_email(self, uow, email: str | None, issuer: str, subject: str) -> str:  # noqa: ANN001
        candidate = normalize_email(email) if email else ""
        if candidate and is_valid_email(candidate) and await uow.users.by_email(candidate) is None:
            return candidate
        digest = hashlib.sha256(f"{issuer}|{subject}".encode()).hexdigest()[:16]
        return f"{digest}@external.invalid"

    async def refresh(self, refresh_token: str) -> Session:
        now = self._clock.now()
        async with self._uow() as uow:
            record = await uow.refresh_tokens.by_hash(hash_token(refresh_token))
            if record is None or record.expires_at <= now:
                raise NotAuthenticated(SESSION_EXPIRED)
            if not await uow.refresh_tokens.revoke(record.id, now) and not await self._rotated_just_now(uow, record, now):
                # A rotated token came back: someone holds a stolen copy. End the whole family.
                await uow.refresh_tokens.revoke_family(record.family_id, now)
                await uow.commit()
                raise NotAuthenticated(SESSION_EXPIRED)
            user = await uow.users.by_id(record.user_id)
            if user is None:
                raise NotAuthenticated(SESSION_EXPIRED)
            session = self._new_session(user, record.persistent, await self._enrolment_only(user))
            await uow.refresh_tokens.add(self._refresh_record(user, session, record.family_id))
            await uow.commit()
        return session

    async def _rotated_just_now(self, uow: UnitOfWork, record: RefreshTokenRecord, now: datetime) -> bool:
        """The token was rotated within the reuse window by another refresh (a second tab, or a
        concurrent request) and its family lives on: this refresh gets a fresh session of the
        family. A family ended by signing out or a password change has no live token, so its
        tokens never come back through here."""
        revoked_at = await uow.refresh_tokens.revoked_at(record.id)
        return (
            revoked_at is not None
            and now - revoked_at <= self._policy.refresh_reuse_window
            and await uow.refresh_tokens.family_alive(record.family_id, now)
        )

    async def log_out(self, refresh_token: str) -> None:
        now = self._clock.now()
        async with self._uow() as uow:
            record = await uow.refresh_tokens.by_hash(hash_token(refresh_token))
            if record is not None:
                await uow.refresh_tokens.revoke_family(record.family_id, now)
                await uow.commit()

    async def _enrolment_only(self, user: User) -> bool:
        return self._second_factor is not None and await self._second_factor.enrolment_only(user)

    async def _start_session(self, user: User, persistent: bool) -> Session:
        session = self._new_session(user, persistent, await self._enrolment_only(user))
        async with self._uow() as uow:
            await uow.refresh_tokens.add(self._refresh_record(user, session, str(uuid.uuid4())))
            await uow.commit()
        return session

    def _new_session(self, user: User, persistent: bool, mfa_enrolment_only: bool = False) -> Session:
        lifetime = self._policy.refresh_lifetime if persistent else self._policy.session_refresh_lifetime
        return Session(
            user=user,
            access_token=self._tokens.issue(user, mfa_enrolment_only),
            expires_in=self._tokens.lifetime_seconds,
            refresh_token=secrets.token_urlsafe(32),
            refresh_expires_in=int(lifetime.total_seconds()),
            persistent=persistent,
            mfa_enrolment_only=mfa_enrolment_only,
        )

    def _refresh_record(self, user: User, session: Session, family_id: str) -> RefreshTokenRecord:
        return RefreshTokenRecord(
            id=str(uuid.uuid4()),
            user_id=user.id,
            family_id=family_id,
            token_hash=hash_token(session.refresh_token),
            expires_at=self._clock.now() + timedelta(seconds=session.refresh_expires_in),
            persistent=session.persistent,
        )

    # --- access tokens ---------------------------------------------------------

    def authenticate(self, access_token: str) -> AccessClaims:
        claims = self._tokens.verify(access_token)
        if claims is None:
            raise NotAuthenticated("Invalid or expired token")
        return claims

    # --- password reset and change ---------------------------------------------

    async def admit_reset_request(self, client: str) -> None:
        """Reset requests per source address: refused alike for every email."""
        await throttled(self._throttle, f"reset-address:{client}", RESET_REQUESTS_PER_ADDRESS, "reset requests")

    async def request_password_reset(self, email: str) -> OutgoingMail | None:
        """Returns the mail to send, or None. Runs after the answer has been sent (the caller
        answers the same either way), so neither its result nor its time tells anything."""
        email = normalize_email(email)
        token = secrets.token_urlsafe(32)
        async with self._uow() as uow:
            user = await uow.users.by_email(email)
        if user is None or user.password_hash is None:
            return None
        # A few mails an hour per account, so nobody can flood a victim's inbox with reset links.
        if await self._throttle.attempt(f"reset-mail:{email}", RESET_MAILS_PER_ACCOUNT):
            return None
        now = self._clock.now()
        async with self._uow() as uow:
            # Only the newest link works: one leaked from an older mail is dead.
            await uow.password_resets.invalidate_unused(user.id, now)
            await uow.password_resets.add(
                PasswordResetRecord(
                    id=str(uuid.uuid4()),
                    user_id=user.id,
                    token_hash=hash_token(token),
                    expires_at=now + self._policy.reset_lifetime,
                )
            )
            await uow.commit()
        link = f"{self._policy.reset_url_base.rstrip('/')}/reset-password?token={token}"
        minutes = int(self._policy.reset_lifetime.total_seconds() // 60)
        return OutgoingMail(
            to=user.email,
            subject="Reset your PerilScope password",
            body=(
                "Someone asked to reset the password of your PerilScope account.\n\n"
                f"Open this link within {minutes} minutes to choose a new password:\n{link}\n\n"
                "If it was not you, ignore this message; your password stays the same.\n"
            ),
        )

    async def reset_password(self, token: str, new_password: str) -> None:
        now = self._clock.now()
        async with self._uow() as uow:
            record = await uow.password_resets.by_hash(hash_token(token))
            user = await uow.users.by_id(record.user_id) if record else None
        if record is None or user is None or record.used_at is not None or record.expires_at <= now:
            raise InvalidInput(RESET_LINK_INVALID)
        await require_acceptable_password(self._strength, new_password, user.email)
        new_hash = await self._hasher.hash(new_password)
        async with self._uow() as uow:
            if not await uow.password_resets.mark_used(record.id, now):
                raise InvalidInput(RESET_LINK_INVALID)
            await uow.users.set_password_hash(record.user_id, new_hash)
            await uow.refresh_tokens.revoke_all_for_user(record.user_id, now)
            await uow.commit()

    async def change_password(
        self, user_id: str, current_password: str, new_password: str, current_refresh_token: str | None = None
    ) -> None:
        """Every other session of the account ends: whoever knew the old password is signed out.
        The session making the change (its refresh cookie) stays signed in."""
        async with self._uow() as uow:
            user = await uow.users.by_id(user_id)
            current = await uow.refresh_tokens.by_hash(hash_token(current_refresh_token)) if current_refresh_token else None
        if user is None:
            raise NotAuthenticated(SESSION_EXPIRED)
        await require_acceptable_password(self._strength, new_password, user.email)
        # A stolen access token must not become a way to guess the password.
        await throttled(self._throttle, f"login-account:{user.email}", LOGIN_PER_ACCOUNT, "password attempts")
        if user.password_hash is None or not await self._hasher.verify(user.password_hash, current_password):
            raise InvalidInput("Current password is incorrect")
        await self._throttle.clear(f"login-account:{user.email}")
        new_hash = await self._hasher.hash(new_password)
        keep_family = current.family_id if current is not None and current.user_id == user_id else None
        now = self._clock.now()
        async with self._uow() as uow:
            await uow.users.set_password_hash(user_id, new_hash)
            await uow.refresh_tokens.revoke_all_for_user(user_id, now, except_family=keep_family)
            await uow.commit()

    # --- profile and user info ---------------------------------------------------

    async def me(self, user_id: str) -> User:
        async with self._uow() as uow:
            user = await uow.users.by_id(user_id)
        if user is None:
            raise NotAuthenticated(SESSION_EXPIRED)
        return user

    async def update_profile(self, user_id: str, display_name: str | None, photo_url: str | None) -> User:
        """Only the display name and photo change here; role, e-mail and quota have no way in."""
        if photo_url and not photo_url.startswith(("https://", "http://")):
            raise InvalidInput("Photo URL must start with http:// or https://")
        if photo_url and len(photo_url) > 2048:
            raise InvalidInput("Photo URL is too long")
        user = await self.me(user_id)
        updated = replace(user, display_name=_clean_name(display_name), photo_url=photo_url or None)
        async with self._uow() as uow:
            await uow.users.update_profile(user_id, updated.display_name, updated.photo_url)
            await uow.commit()
        return updated

    async def user_info(self, requester: AccessClaims, user_id: str) -> User:
        if requester.user_id != user_id and await self._roles.role_of(requester.user_id) is not Role.ADMIN:
            raise Forbidden("You may only view your own account")
        async with self._uow() as uow:
            user = await uow.users.by_id(user_id)
        if user is None:
            raise NotFound("User not found")
        return user

    async def search_stats(self, user_id: str) -> SearchStats:
        user = await self.me(user_id)
        async with self._uow() as uow:
            activity = await uow.search_activity.activity(user_id, month_key(self._clock.now()))
        limit = None if user.role is Role.ADMIN else (await self._settings.current()).monthly_search_limit
        quota = Quota(used=activity.month_searches, limit=limit)
        return SearchStats(
            current_month_searches=activity.month_searches,
            search_limit=limit,
            remaining_searches=quota.remaining,
            total_searches=activity.total_searches,
            last_search_date=activity.last_search_at.isoformat() if activity.last_search_at else None,
        )

    # --- administration (CLI) ------------------------------------------------------

    async def set_role(self, email: str, role: Role) -> User:
        async with self._uow() as uow:
            user = await uow.users.by_email(normalize_email(email))
            if user is None:
                raise NotFound(f"No user with email {email}")
            await uow.users.set_role(user.id, role)
            await uow.commit()
        self._roles.forget(user.id)
        return replace(user, role=role)

    async def create_admin(self, email: str, password: str) -> User:
        user = await self.create_user(email, password)
        return await self.set_role(user.email, Role.ADMIN)

    # --- mails of sign-up ----------------------------------------------------------

    def _welcome_mail(self, user: User) -> OutgoingMail:
        return OutgoingMail(
            to=user.email,
            subject="Welcome to PerilScope",
            body=(
                "Your PerilScope account is ready. Sign in with this email address and the password you chose:\n"
                f"{self._link('/login')}\n\nIf you did not sign up, ignore this message or tell us through the contact form.\n"
            ),
        )

    def _account_exists_mail(self, email: str) -> OutgoingMail:
        return OutgoingMail(
            to=email,
            subject="You already have a PerilScope account",
            body=(
                "Someone tried to sign up to PerilScope with this email address, which already has an account; "
                "nothing was changed.\n\n"
                f"If it was you, sign in: {self._link('/login')}\n"
                f"Forgot your password? Choose a new one: {self._link('/forgot-password')}\n"
            ),
        )

    def _link(self, path: str) -> str:
        return f"{self._policy.reset_url_base.rstrip('/')}{path}"


async def require_acceptable_password(strength: PasswordStrength, password: str, email: str | None = None) -> None:
    if len(password) > PASSWORD_MAX_LENGTH:
        raise InvalidInput(PASSWORD_TOO_LONG)
    unmet = unmet_password_rules(password)
    if unmet:
        raise InvalidInput("Please ensure all password requirements are met: " + ", ".join(unmet))
    reason = await strength.weakness(password, [email] if email else [])
    if reason:
        raise InvalidInput(reason)


def _clean_name(name: str | None) -> str | None:
    name = (name or "").strip()
    return name[:100] or None

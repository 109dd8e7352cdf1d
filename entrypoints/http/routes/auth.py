"""Accounts over HTTP: SPEC §7's auth calls plus sign-up, sessions, reset and profile."""

from __future__ import annotations

import dataclasses
import logging
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get, patch, post
from litestar.background_tasks import BackgroundTask
from litestar.openapi import ResponseSpec
from litestar.params import FromPath, JSONBody

from application.accounts import SIGNUP_RECEIVED, AccountService, Session
from application.ports.accounts import SecondFactorRequired
from application.ports.mail import Mailer, OutgoingMail
from domain.accounts import User
from entrypoints.http.dependencies import ALLOWS_ENROLMENT_ONLY, Accounts, AppMailer, AppSettings, Batch, Claims
from entrypoints.http.openapi import COOKIE_SESSION, JSON_BODY, error_responses, signed_in
from entrypoints.settings import Settings

log = logging.getLogger("perilscope.auth")

REFRESH_COOKIE = "ps_refresh"
REFRESH_COOKIE_PATH = "/api/auth"
FORGOT_PASSWORD_MESSAGE = "If an account exists for that email, we have sent a password reset link."

Email = Annotated[str, msgspec.Meta(max_length=254)]
# Generous: the account rules give the right message for a password over 128 characters.
Password = Annotated[str, msgspec.Meta(max_length=4096)]
Token = Annotated[str, msgspec.Meta(max_length=4096)]


class SignupBody(msgspec.Struct):
    email: Email
    password: Password
    display_name: Annotated[str, msgspec.Meta(max_length=100)] | None = None


class LoginBody(msgspec.Struct):
    email: Email
    password: Password
    remember_me: bool = False


class ForgotPasswordBody(msgspec.Struct):
    email: Email


class ResetPasswordBody(msgspec.Struct):
    token: Token
    password: Password


class ChangePasswordBody(msgspec.Struct):
    current_password: Password
    new_password: Password


class ProfileBody(msgspec.Struct, forbid_unknown_fields=True):
    """Only these two fields: a role, e-mail or quota in the body is refused, not ignored."""

    display_name: Annotated[str, msgspec.Meta(max_length=100)] | None = None
    photo_url: Annotated[str, msgspec.Meta(max_length=2048)] | None = None


class VerifyTokenBody(msgspec.Struct):
    token: Token


def user_json(user: User) -> dict[str, Any]:
    return {
        "uid": user.id,
        "email": user.email,
        "displayName": user.display_name,
        "photoURL": user.photo_url,
        "role": user.role.value,
        "created_at": user.created_at.isoformat(),
    }


def user_info_json(user: User) -> dict[str, Any]:
    """SPEC §3's 'Admin user' shape, also returned by get-user-info."""
    return {
        "uid": user.id,
        "email": user.email,
        "name": user.display_name,
        "role": user.role.value,
        "picture": user.photo_url,
        "created_at": user.created_at.isoformat(),
    }


def session_response(settings: Settings, session: Session, status_code: int = 200) -> Response:
    response = Response(
        {
            "status": "success",
            "access_token": session.access_token,
            "token_type": "bearer",
            "expires_in": session.expires_in,
            "user": user_json(session.user),
            # The web app sends such an administrator to Settings to set up two-factor sign-in.
            "mfa_enrolment_required": session.mfa_enrolment_only,
        },
        status_code=status_code,
    )
    set_refresh_cookie(settings, response, session)
    return response


def set_refresh_cookie(settings: Settings, response: Response, session: Session) -> None:
    response.set_cookie(
        REFRESH_COOKIE,
        session.refresh_token,
        # Without 'Remember me' the cookie ends with the browser session.
        max_age=session.refresh_expires_in if session.persistent else None,
        path=REFRESH_COOKIE_PATH,
        httponly=True,
        samesite="strict",
        secure=settings.secure_cookies,
    )


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


@post(
    "/api/auth/signup",
    tags=["auth"],
    status_code=201,
    responses=error_responses(JSON_BODY, 429),
    summary="Create an account; answers alike for a new and a taken email (the owner is mailed)",
)
async def signup(request: Request, data: JSONBody[SignupBody], accounts: Accounts, mailer: AppMailer) -> Response:
    receipt = await accounts.sign_up(data.email, data.password, data.display_name, client_address(request))
    return Response(
        {"status": "success", "message": SIGNUP_RECEIVED},
        status_code=201,
        background=BackgroundTask(send_quietly, mailer, receipt.mail),
    )


@post(
    "/api/auth/login",
    tags=["auth"],
    status_code=200,
    opt={"cookie_session": True},
    responses=error_responses(JSON_BODY, COOKIE_SESSION, 401, 429),
)
async def login(request: Request, data: JSONBody[LoginBody], accounts: Accounts, settings: AppSettings) -> Response:
    session = await accounts.log_in(data.email, data.password, data.remember_me, client_address(request))
    if isinstance(session, SecondFactorRequired):
        # No session yet: the code goes to POST /api/auth/login/mfa with this token (routes/mfa.py).
        return Response({"status": "mfa_required", "mfa_token": session.mfa_token})
    return session_response(settings, session)


@post(
    "/api/auth/refresh",
    tags=["auth"],
    status_code=200,
    opt={"cookie_session": True},
    summary="New access token from the refresh cookie (rotated); 204 when there is no session",
    responses={204: ResponseSpec(None, description="No refresh cookie: the visitor is signed out."),
               **error_responses(COOKIE_SESSION, 401)},
)
async def refresh(request: Request, accounts: Accounts, settings: AppSettings) -> Response:
    token = request.cookies.get(REFRESH_COOKIE)
    if not token:
        # A signed-out visitor is a normal state, not an error: the web app asks on every page.
        return Response(None, status_code=204)
    return session_response(settings, await accounts.refresh(token))


@post(
    "/api/auth/logout", tags=["auth"], status_code=200, opt={"cookie_session": True},
    responses=error_responses(COOKIE_SESSION),
)
async def logout(request: Request, accounts: Accounts) -> Response:
    token = request.cookies.get(REFRESH_COOKIE)
    if token:
        await accounts.log_out(token)
    response = Response({"status": "success"})
    response.delete_cookie(REFRESH_COOKIE, path=REFRESH_COOKIE_PATH)
    return response


@post(
    "/forgot-password",
    tags=["auth"],
    status_code=200,
    summary="Send a reset link; answers alike for unknown emails",
    responses=error_responses(JSON_BODY, 429),  # 429: too many requests from one address
)
async def forgot_password(
    request: Request, data: JSONBody[ForgotPasswordBody], accounts: Accounts, mailer: AppMailer
) -> Response:
    await accounts.admit_reset_request(client_address(request))
    # Everything that depends on whether the account exists (the lookup, the stored link, the
    # mail) happens after the answer is sent, so the answer and its timing are always the same.
    return Response(
        {"status": "success", "message": FORGOT_PASSWORD_MESSAGE},
        background=BackgroundTask(send_reset_link, accounts, mailer, data.email),
    )


async def send_reset_link(accounts: AccountService, mailer: Mailer, email: str) -> None:
    try:
        mail = await accounts.request_password_reset(email)
    except Exception:  # noqa: BLE001 - the answer has been sent; log and carry on
        log.exception("password reset request failed")
        return
    if mail is not None:
        await send_quietly(mailer, mail)


async def send_quietly(mailer: Mailer, mail: OutgoingMail) -> None:
    """Mail sent after the answer: a failure is logged, it cannot change the answer."""
    try:
        await mailer.send(mail)
    except Exception:  # noqa: BLE001
        log.exception("sending mail failed")


@post("/api/auth/reset-password", tags=["auth"], status_code=200, responses=error_responses(JSON_BODY))
async def reset_password(data: JSONBody[ResetPasswordBody], accounts: Accounts) -> dict[str, str]:
    await accounts.reset_password(data.token, data.password)
    return {"status": "success"}


@post("/api/auth/change-password", tags=["auth"], status_code=200, **signed_in(JSON_BODY, 429))
async def change_password(
    request: Request, data: JSONBody[ChangePasswordBody], claims: Claims, accounts: Accounts
) -> dict[str, str]:
    # The refresh cookie (sent to /api/auth/*) names this browser's session, which stays signed in.
    await accounts.change_password(
        claims.user_id, data.current_password, data.new_password, request.cookies.get(REFRESH_COOKIE)
    )
    return {"status": "success"}


@get("/api/auth/me", tags=["auth"], opt=ALLOWS_ENROLMENT_ONLY, **signed_in())
async def me(claims: Claims, accounts: Accounts) -> dict[str, Any]:
    return {"status": "success", "user": user_json(await accounts.me(claims.user_id))}


@patch("/api/auth/me", tags=["auth"], summary="Change display name and photo URL", **signed_in(JSON_BODY))
async def update_me(data: JSONBody[ProfileBody], claims: Claims, accounts: Accounts) -> dict[str, Any]:
    user = await accounts.update_profile(claims.user_id, data.display_name, data.photo_url)
    return {"status": "success", "user": user_json(user)}


@post("/api/auth/verify-token", tags=["auth"], status_code=200, responses=error_responses(JSON_BODY, 401))
async def verify_token(data: JSONBody[VerifyTokenBody], accounts: Accounts) -> dict[str, Any]:
    claims = accounts.authenticate(data.token)
    return {"status": "success", "valid": True, "uid": claims.user_id}


@get(
    "/api/auth/get-user-info/{uid:str}",
    tags=["auth"],
    summary="Own account, or any for admins",
    **signed_in(400, 403, 404),
)
async def get_user_info(uid: FromPath[str], claims: Claims, accounts: Accounts) -> dict[str, Any]:
    user = await accounts.user_info(claims, uid)
    return {"status": "success", "user": user_info_json(user)}


@get("/api/auth/get-search-stats", tags=["auth"], **signed_in())
async def get_search_stats(claims: Claims, accounts: Accounts, batch: Batch) -> dict[str, Any]:
    stats = await accounts.search_stats(claims.user_id)
    # The batch row allowance and storage use sit beside the searches on the dashboard, for the
    # role the account has now (as the search limit is), not the one the token was issued with.
    batch_usage = await batch.usage(claims)
    return {"status": "success", "stats": {**dataclasses.asdict(stats), **dataclasses.asdict(batch_usage)}}


ROUTES = [
    signup,
    login,
    refresh,
    logout,
    forgot_password,
    reset_password,
    change_password,
    me,
    update_me,
    verify_token,
    get_user_info,
    get_search_stats,
]

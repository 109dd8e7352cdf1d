"""Accounts over HTTP: SPEC §7's auth calls plus sign-up, sessions, reset and profile."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get, patch, post
from litestar.background_tasks import BackgroundTask
from litestar.params import FromPath, JSONBody

from application.accounts import Session
from application.ports import SecondFactorRequired
from application.errors import NotAuthenticated
from domain.accounts import User
from entrypoints.http.dependencies import ALLOWS_ENROLMENT_ONLY, Accounts, Claims, container_of

REFRESH_COOKIE = "ps_refresh"
REFRESH_COOKIE_PATH = "/api/auth"
FORGOT_PASSWORD_MESSAGE = "If an account exists for that email, we have sent a password reset link."

Email = Annotated[str, msgspec.Meta(max_length=254)]
Password = Annotated[str, msgspec.Meta(max_length=256)]
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


def session_response(request: Request, session: Session, status_code: int = 200) -> Response:
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
    set_refresh_cookie(request, response, session)
    return response


def set_refresh_cookie(request: Request, response: Response, session: Session) -> None:
    response.set_cookie(
        REFRESH_COOKIE,
        session.refresh_token,
        # Without 'Remember me' the cookie ends with the browser session.
        max_age=session.refresh_expires_in if session.persistent else None,
        path=REFRESH_COOKIE_PATH,
        httponly=True,
        samesite="strict",
        secure=container_of(request).settings().secure_cookies,
    )


@post("/api/auth/signup", tags=["auth"], status_code=201)
async def signup(data: JSONBody[SignupBody], accounts: Accounts) -> dict[str, Any]:
    user = await accounts.sign_up(data.email, data.password, data.display_name)
    return {"status": "success", "user": user_json(user)}


@post("/api/auth/login", tags=["auth"], status_code=200)
async def login(request: Request, data: JSONBody[LoginBody], accounts: Accounts) -> Response:
    client = request.client.host if request.client else "unknown"
    session = await accounts.log_in(data.email, data.password, data.remember_me, client)
    if isinstance(session, SecondFactorRequired):
        # No session yet: the code goes to POST /api/auth/login/mfa with this token (routes/mfa.py).
        return Response({"status": "mfa_required", "mfa_token": session.mfa_token})
    return session_response(request, session)


@post("/api/auth/refresh", tags=["auth"], status_code=200, summary="New access token from the refresh cookie (rotated)")
async def refresh(request: Request, accounts: Accounts) -> Response:
    token = request.cookies.get(REFRESH_COOKIE)
    if not token:
        raise NotAuthenticated("Not signed in")
    return session_response(request, await accounts.refresh(token))


@post("/api/auth/logout", tags=["auth"], status_code=200)
async def logout(request: Request, accounts: Accounts) -> Response:
    token = request.cookies.get(REFRESH_COOKIE)
    if token:
        await accounts.log_out(token)
    response = Response({"status": "success"})
    response.delete_cookie(REFRESH_COOKIE, path=REFRESH_COOKIE_PATH)
    return response


@post("/forgot-password", tags=["auth"], status_code=200, summary="Send a reset link; answers alike for unknown emails")
async def forgot_password(request: Request, data: JSONBody[ForgotPasswordBody], accounts: Accounts) -> Response:
    mail = await accounts.request_password_reset(data.email)
    # Sent after the response, so known and unknown addresses take the same time to answer.
    background = BackgroundTask(container_of(request).mailer().send, mail) if mail else None
    return Response({"status": "success", "message": FORGOT_PASSWORD_MESSAGE}, background=background)


@post("/api/auth/reset-password", tags=["auth"], status_code=200)
async def reset_password(data: JSONBody[ResetPasswordBody], accounts: Accounts) -> dict[str, str]:
    await accounts.reset_password(data.token, data.password)
    return {"status": "success"}


@post("/api/auth/change-password", tags=["auth"], status_code=200)
async def change_password(data: JSONBody[ChangePasswordBody], claims: Claims, accounts: Accounts) -> dict[str, str]:
    await accounts.change_password(claims.user_id, data.current_password, data.new_password)
    return {"status": "success"}


@get("/api/auth/me", tags=["auth"], opt=ALLOWS_ENROLMENT_ONLY)
async def me(claims: Claims, accounts: Accounts) -> dict[str, Any]:
    return {"status": "success", "user": user_json(await accounts.me(claims.user_id))}


@patch("/api/auth/me", tags=["auth"], summary="Change display name and photo URL")
async def update_me(data: JSONBody[ProfileBody], claims: Claims, accounts: Accounts) -> dict[str, Any]:
    user = await accounts.update_profile(claims.user_id, data.display_name, data.photo_url)
    return {"status": "success", "user": user_json(user)}


@post("/api/auth/verify-token", tags=["auth"], status_code=200)
async def verify_token(data: JSONBody[VerifyTokenBody], accounts: Accounts) -> dict[str, Any]:
    claims = accounts.authenticate(data.token)
    return {"status": "success", "valid": True, "uid": claims.user_id}


@get("/api/auth/get-user-info/{uid:str}", tags=["auth"], summary="Own account, or any for admins")
async def get_user_info(uid: FromPath[str], claims: Claims, accounts: Accounts) -> dict[str, Any]:
    user = await accounts.user_info(claims, uid)
    return {"status": "success", "user": user_info_json(user)}


@get("/api/auth/get-search-stats", tags=["auth"])
async def get_search_stats(claims: Claims, accounts: Accounts) -> dict[str, Any]:
    stats = await accounts.search_stats(claims.user_id)
    return {"status": "success", "stats": dataclasses.asdict(stats)}


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

"""Two-factor sign-in over HTTP: status, enrolment, turning it off, and the second sign-in step."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get, post
from litestar.background_tasks import BackgroundTask
from litestar.params import JSONBody

from application.errors import InvalidInput
from application.mfa import CODE_REQUIRED, MfaService
from application.ports.mail import Mailer
from entrypoints.http.openapi import COOKIE_SESSION, JSON_BODY, error_responses, signed_in
from entrypoints.http.dependencies import ALLOWS_ENROLMENT_ONLY, AppMailer, AppSettings, Claims, Mfa
from entrypoints.http.routes.auth import REFRESH_COOKIE, Password, Token, session_response

# Long enough for "123 456" or "ABCDE-FGHJK" with stray spaces, short enough to bound the work.
Code = Annotated[str, msgspec.Meta(max_length=32)]


class ConfirmBody(msgspec.Struct):
    code: Code
    password: Password = ""  # asked again; accounts created by third-party sign-in have none


class DisableBody(msgspec.Struct):
    code: Code
    password: Password = ""  # accounts created by third-party sign-in have none


class SecondStepBody(msgspec.Struct):
    mfa_token: Token
    code: Code | None = None
    recovery_code: Code | None = None


async def _notice(mailer: Mailer, mfa: MfaService, user_id: str, turned_on: bool) -> BackgroundTask:
    """The owner's notice of the change, sent after the answer (like the reset mail)."""
    mail = await mfa.change_notice(user_id, turned_on)
    return BackgroundTask(mailer.send, mail)


@get("/api/auth/mfa", tags=["auth"], opt=ALLOWS_ENROLMENT_ONLY, summary="Two-factor sign-in status", **signed_in())
async def mfa_status(claims: Claims, mfa: Mfa) -> dict[str, Any]:
    return {"status": "success", **dataclasses.asdict(await mfa.status(claims.user_id))}


@post(
    "/api/auth/mfa/enrol",
    tags=["auth"],
    status_code=200,
    opt=ALLOWS_ENROLMENT_ONLY,
    summary="Start setting up two-factor sign-in: a new secret, its otpauth URI and QR code",
    **signed_in(409),
)
async def mfa_enrol(claims: Claims, mfa: Mfa) -> Response:
    start = await mfa.start_enrolment(claims.user_id)
    # The secret is in this answer only: keep it out of every cache.
    return Response({"status": "success", **dataclasses.asdict(start)}, headers={"Cache-Control": "no-store"})


@post(
    "/api/auth/mfa/confirm",
    tags=["auth"],
    status_code=200,
    opt=ALLOWS_ENROLMENT_ONLY,
    summary="Turn two-factor sign-in on (password and a code); a new session and the recovery codes, once",
    **signed_in(JSON_BODY, 409, 429),
)
async def mfa_confirm(
    request: Request, claims: Claims, mfa: Mfa, mailer: AppMailer, settings: AppSettings, data: JSONBody[ConfirmBody]
) -> Response:
    codes = await mfa.confirm_enrolment(claims.user_id, data.code, data.password)
    # Sessions begun without the second factor end; this browser continues with a new session.
    response = session_response(
        settings, await mfa.restart_sessions(claims.user_id, request.cookies.get(REFRESH_COOKIE))
    )
    response.content = {**response.content, "recovery_codes": codes}
    response.headers["Cache-Control"] = "no-store"
    response.background = await _notice(mailer, mfa, claims.user_id, turned_on=True)
    return response


@post(
    "/api/auth/mfa/disable", tags=["auth"], status_code=200, summary="Turn two-factor sign-in off (password and code)",
    **signed_in(JSON_BODY, 403, 409, 429),
)
async def mfa_disable(claims: Claims, mfa: Mfa, mailer: AppMailer, data: JSONBody[DisableBody]) -> Response:
    await mfa.disable(claims.user_id, data.password, data.code)
    return Response({"status": "success"}, background=await _notice(mailer, mfa, claims.user_id, turned_on=False))


@post(
    "/api/auth/login/mfa", tags=["auth"], status_code=200, summary="Second sign-in step: a one-time or recovery code",
    opt={"cookie_session": True},
    responses=error_responses(JSON_BODY, COOKIE_SESSION, 401, 429),
)
async def login_mfa(mfa: Mfa, settings: AppSettings, data: JSONBody[SecondStepBody]) -> Response:
    code = data.code or data.recovery_code
    if not code:
        raise InvalidInput(CODE_REQUIRED)
    return session_response(settings, await mfa.complete_sign_in(data.mfa_token, code))


ROUTES = [mfa_status, mfa_enrol, mfa_confirm, mfa_disable, login_mfa]

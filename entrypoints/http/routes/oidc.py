"""Third-party sign-in over HTTP: list providers, send the browser to one, take it back on the callback."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from litestar import Request, Response, get
from litestar.params import FromPath
from litestar.response import Redirect

from application.external_sign_in import ExternalSignInFailed
from application.ports.accounts import SecondFactorRequired
from entrypoints.http.dependencies import AppSettings, SignInStateSealer, ThirdPartySignIn
from entrypoints.http.openapi import error_responses
from entrypoints.http.routes.auth import set_refresh_cookie
from entrypoints.settings import Settings

STATE_COOKIE = "ps_oidc_state"
STATE_COOKIE_PATH = "/api/auth/oidc"
SIGNED_IN_PAGE = "/data-processing?signed_in=1"
MFA_ENROLMENT_PAGE = "/settings?signed_in=1"
# The token rides in the fragment: browsers never send it to a server or in a Referer header.
SECOND_STEP_PAGE = "/login#mfa_token="


def _redirect_uri(settings: Settings, provider: str) -> str:
    return f"{settings.base_url.rstrip('/')}/api/auth/oidc/{provider}/callback"


def _to_login(message: str) -> Redirect:
    return Redirect(f"/login?error={quote(message, safe='')}", status_code=302)


@get("/api/auth/providers", tags=["auth"], summary="Configured third-party sign-in providers")
async def list_providers(external_sign_in: ThirdPartySignIn) -> dict[str, Any]:
    return {"providers": [{"id": p.id, "name": p.name} for p in external_sign_in.providers()]}


@get(
    "/api/auth/oidc/{provider:str}/login",
    tags=["auth"],
    status_code=302,
    summary="Start third-party sign-in",
    responses=error_responses(400, 404),
)
async def oidc_login(
    external_sign_in: ThirdPartySignIn,
    settings: AppSettings,
    sign_in_state_sealer: SignInStateSealer,
    provider: FromPath[str],
) -> Response:
    try:
        url, sealed = await external_sign_in.start(provider, _redirect_uri(settings, provider))
    except ExternalSignInFailed as failure:
        return _to_login(failure.message)
    response = Redirect(url, status_code=302)
    response.set_cookie(
        STATE_COOKIE,
        sealed,
        max_age=sign_in_state_sealer.lifetime_seconds,
        path=STATE_COOKIE_PATH,
        httponly=True,
        # Lax, not strict: the provider's redirect back is a cross-site top-level GET that must carry it.
        samesite="lax",
        secure=settings.secure_cookies,
    )
    return response


@get(
    "/api/auth/oidc/{provider:str}/callback",
    tags=["auth"],
    status_code=302,
    summary="Finish third-party sign-in",
    responses=error_responses(400, 404),
)
async def oidc_callback(
    request: Request, external_sign_in: ThirdPartySignIn, settings: AppSettings, provider: FromPath[str]
) -> Response:
    # Read by hand: Litestar reserves a handler parameter named `state`.
    params = request.query_params
    try:
        session = await external_sign_in.finish(
            provider,
            _redirect_uri(settings, provider),
            code=params.get("code"),
            state=params.get("state"),
            sealed=request.cookies.get(STATE_COOKIE),
            error=params.get("error"),
        )
        if isinstance(session, SecondFactorRequired):
            response: Response = Redirect(SECOND_STEP_PAGE + quote(session.mfa_token, safe=""), status_code=302)
        else:
            page = MFA_ENROLMENT_PAGE if session.mfa_enrolment_only else SIGNED_IN_PAGE
            response = Redirect(page, status_code=302)
            set_refresh_cookie(settings, response, session)
    except ExternalSignInFailed as failure:
        response = _to_login(failure.message)
    # One use only, whatever happened.
    response.delete_cookie(STATE_COOKIE, path=STATE_COOKIE_PATH)
    return response


ROUTES = [list_providers, oidc_login, oidc_callback]

"""Litestar dependencies: the container's services and the signed-in caller."""

from __future__ import annotations

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.di import NamedDependency, Provide

from application.accounts import AccountService
from application.api_keys import NO_CREDENTIALS
from application.api_ports import ApiCaller
from application.errors import Forbidden, NotAuthenticated
from application.mfa import MFA_SETUP_REQUIRED, MfaService
from application.ports import AccessClaims
from entrypoints.container import Container


def container_of(request: ASGIConnection) -> Container:
    return request.app.state.container


def provide_accounts(request: Request) -> AccountService:
    return container_of(request).accounts()


def provide_mfa(request: Request) -> MfaService:
    return container_of(request).mfa()


def bearer_token(request: ASGIConnection) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


# Route option: the route also serves an administrator who must set up two-factor sign-in first.
ENROLMENT_ALLOWED = "mfa_enrolment_allowed"
ALLOWS_ENROLMENT_ONLY = {ENROLMENT_ALLOWED: True}


def _refuse_enrolment_only(connection: ASGIConnection, claims: AccessClaims) -> AccessClaims:
    if claims.mfa_enrolment_only and not connection.route_handler.opt.get(ENROLMENT_ALLOWED):
        raise Forbidden(MFA_SETUP_REQUIRED)
    return claims


def provide_claims(request: Request) -> AccessClaims:
    token = bearer_token(request)
    if token is None:
        raise NotAuthenticated("Sign in to continue")
    return _refuse_enrolment_only(request, container_of(request).accounts().authenticate(token))


def requires_sign_in(connection: ASGIConnection, _handler: BaseRouteHandler) -> None:
    """A guard for routes with large bodies: it runs before the body is read, so an anonymous
    upload is refused without being parsed."""
    token = bearer_token(connection)
    if token is None:
        raise NotAuthenticated("Sign in to continue")
    _refuse_enrolment_only(connection, container_of(connection).accounts().authenticate(token))


async def provide_admin_claims(request: Request) -> AccessClaims:
    """Anonymous callers get 401 and regular users 403; the role is checked in the database."""
    claims = await container_of(request).admin().require_admin(provide_claims(request))
    await container_of(request).mfa_gate().refuse_unenrolled_admin(claims.user_id)
    return claims


async def provide_api_caller(request: Request) -> ApiCaller:
    """The public API's caller: an `X-API-Key`, or a bearer token of POST /api/v1/auth/token."""
    keys = container_of(request).api_keys()
    key = request.headers.get("x-api-key", "").strip()
    if key:
        return await keys.by_key(key)
    token = bearer_token(request)
    if token is not None:
        return await keys.by_token(token)
    raise NotAuthenticated(NO_CREDENTIALS, code="missing_credentials")


DEPENDENCIES = {
    "accounts": Provide(provide_accounts, sync_to_thread=False),
    "claims": Provide(provide_claims, sync_to_thread=False),
    "admin": Provide(provide_admin_claims),
    "mfa": Provide(provide_mfa, sync_to_thread=False),
    "api_caller": Provide(provide_api_caller),
}


# Handler parameter types: the parameter's name picks the dependency above.
Accounts = NamedDependency[AccountService]
Claims = NamedDependency[AccessClaims]
Admin = NamedDependency[AccessClaims]
Mfa = NamedDependency[MfaService]
ApiClient = NamedDependency[ApiCaller]

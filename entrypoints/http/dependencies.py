"""Litestar dependencies: the container's services and the signed-in caller. Routes get what they
need only from here, by a parameter in their signature (STYLE §4); this module alone reads the container."""

from __future__ import annotations

from collections.abc import Callable

from litestar import Request
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.di import NamedDependency, Provide
from litestar.params import SkipValidation
from sqlalchemy.ext.asyncio import AsyncEngine

from adapters.identity.pending_state import SignedPendingSignIn
from application.accounts import AccountService
from application.admin import AdminService
from application.batch import BatchService
from application.contact import ContactService
from application.api_keys import NO_CREDENTIALS, ApiKeyService
from application.api_plans import ApiPlans
from application.public_api import PublicApi
from application.api_batches import ApiBatches
from application.idempotency import Idempotency
from application.ports.public_api import ApiCaller
from application.errors import Forbidden, NotAuthenticated
from application.external_sign_in import ExternalSignIn
from application.lookup import LookupService
from application.mfa import MFA_SETUP_REQUIRED, MfaGate, MfaService
from application.photos import PlacePhotos
from application.webhooks import Webhooks
from application.portfolio import PortfolioService
from application.export_rows import ExportRowsService
from application.ports.accounts import AccessClaims
from application.ports.clock import Clock
from application.ports.mail import Mailer
from entrypoints.container import Container
from entrypoints.http.rate_limit_headers import remember_caller
from entrypoints.settings import Settings


def container_of(request: ASGIConnection) -> Container:
    return request.app.state.container


def _from_container(pick: Callable[[Container], object]) -> Provide:
    """A dependency on one of the container's services, picked by `pick`."""

    def provide(request: Request) -> object:
        return pick(container_of(request))

    return Provide(provide, sync_to_thread=False)


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
    token = bearer_token(request)
    if key:
        caller = await keys.by_key(key)
    elif token is not None:
        caller = await keys.by_token(token)
    else:
        raise NotAuthenticated(NO_CREDENTIALS, code="missing_credentials")
    remember_caller(request.scope, caller)  # for the X-RateLimit-* headers of an error answer
    return caller


DEPENDENCIES = {
    "claims": Provide(provide_claims, sync_to_thread=False),
    "admin": Provide(provide_admin_claims),
    "accounts": _from_container(lambda c: c.accounts()),
    "mfa": _from_container(lambda c: c.mfa()),
    "mfa_gate": _from_container(lambda c: c.mfa_gate()),
    "lookup": _from_container(lambda c: c.lookup()),
    "batch": _from_container(lambda c: c.batch()),
    "portfolios": _from_container(lambda c: c.portfolios()),
    "export_rows": _from_container(lambda c: c.export_rows()),
    "admin_service": _from_container(lambda c: c.admin()),
    "place_photos": _from_container(lambda c: c.place_photos()),
    "contact": _from_container(lambda c: c.contact()),
    "external_sign_in": _from_container(lambda c: c.external_sign_in()),
    "sign_in_state_sealer": _from_container(lambda c: c.pending_sign_in_sealer()),
    "clock": _from_container(lambda c: c.clock()),
    "settings": _from_container(lambda c: c.settings()),
    "mailer": _from_container(lambda c: c.mailer()),
    "database": _from_container(lambda c: c.engine()),
    "api_caller": Provide(provide_api_caller),
    "public_api": _from_container(lambda c: c.public_api()),
    "api_keys": _from_container(lambda c: c.api_keys()),
    "api_plans": _from_container(lambda c: c.api_plans()),
    "webhooks": _from_container(lambda c: c.webhooks()),
    "api_batches": _from_container(lambda c: c.api_batches()),
    "idempotency": _from_container(lambda c: c.idempotency()),
}


# Handler parameter types: the parameter's name picks the dependency above.
Accounts = NamedDependency[AccountService]
Claims = NamedDependency[AccessClaims]
Admin = NamedDependency[AccessClaims]  # the caller, checked to be an administrator
Mfa = NamedDependency[MfaService]
TwoFactorGate = NamedDependency[MfaGate]
Lookup = NamedDependency[LookupService]
Batch = NamedDependency[BatchService]
Portfolios = NamedDependency[PortfolioService]
ExportRows = NamedDependency[ExportRowsService]
Administration = NamedDependency[AdminService]
Photos = NamedDependency[PlacePhotos]
Contact = NamedDependency[ContactService]
ThirdPartySignIn = NamedDependency[ExternalSignIn]
SignInStateSealer = NamedDependency[SignedPendingSignIn]
# Ports are Protocols, which Litestar cannot check with isinstance: the container's wiring is trusted.
AppClock = NamedDependency[SkipValidation[Clock]]
AppSettings = NamedDependency[Settings]
AppMailer = NamedDependency[SkipValidation[Mailer]]
Database = NamedDependency[AsyncEngine]
ApiClient = NamedDependency[ApiCaller]
PublicApiService = NamedDependency[PublicApi]
ApiKeys = NamedDependency[ApiKeyService]
ApiPlansService = NamedDependency[ApiPlans]
WebhooksService = NamedDependency[Webhooks]
ApiBatchesService = NamedDependency[ApiBatches]
IdempotencyService = NamedDependency[Idempotency]

"""Litestar dependencies: the container's services and the signed-in caller."""

from __future__ import annotations

from litestar import Request
from litestar.di import NamedDependency, Provide

from application.accounts import AccountService
from application.errors import Forbidden, NotAuthenticated
from application.ports import AccessClaims
from domain.accounts import Role
from entrypoints.container import Container


def container_of(request: Request) -> Container:
    return request.app.state.container


def provide_accounts(request: Request) -> AccountService:
    return container_of(request).accounts()


def bearer_token(request: Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def provide_claims(request: Request) -> AccessClaims:
    token = bearer_token(request)
    if token is None:
        raise NotAuthenticated("Sign in to continue")
    return container_of(request).accounts().authenticate(token)


def provide_admin_claims(request: Request) -> AccessClaims:
    claims = provide_claims(request)
    if claims.role is not Role.ADMIN:
        raise Forbidden("Administrator rights are required")
    return claims


DEPENDENCIES = {
    "accounts": Provide(provide_accounts, sync_to_thread=False),
    "claims": Provide(provide_claims, sync_to_thread=False),
    "admin": Provide(provide_admin_claims, sync_to_thread=False),
}


# Handler parameter types: the parameter's name picks the dependency above.
Accounts = NamedDependency[AccountService]
Claims = NamedDependency[AccessClaims]

"""Third-party sign-in (OpenID Connect / OAuth2 code flow): start, then finish on the provider's callback."""

from __future__ import annotations

import hmac

from application.accounts import AccountService, Session
from application.errors import ApplicationError, NotFound
from application.ports.accounts import SecondFactorRequired
from application.ports.external_sign_in import ExternalIdentityProvider, PendingSignInSealer, ProviderInfo

REQUEST_EXPIRED = "Third-party sign-in failed: the sign-in request expired or was altered. Please try again."
CANCELLED = "Third-party sign-in was cancelled. Please try again or sign in with email."
UNAUTHORISED_CLIENT = (
    "Third-party sign-in failed: this site's address is not on the provider's list of authorised "
    "redirect addresses. Ask an administrator to add it, or sign in with email."
)
UNAVAILABLE = "Third-party sign-in is unavailable right now. Please try again later or sign in with email."
UNKNOWN_PROVIDER = "This sign-in provider is not available"


def not_confirmed(provider_name: str) -> str:
    return (
        f"Third-party sign-in failed: {provider_name} did not confirm your identity. "
        "Please try again or sign in with email."
    )


class ExternalSignInFailed(ApplicationError):
    """The provider or the returning browser did not prove who the person is; `message` is for the login screen."""


class ExternalSignIn:
    def __init__(
        self, identity: ExternalIdentityProvider, sealer: PendingSignInSealer, accounts: AccountService
    ) -> None:
        self._identity = identity
        self._sealer = sealer
        self._accounts = accounts

    def providers(self) -> list[ProviderInfo]:
        return self._identity.configured()

    def provider(self, provider_id: str) -> ProviderInfo:
        for info in self._identity.configured():
            if info.id == provider_id:
                return info
        raise NotFound(UNKNOWN_PROVIDER)

    async def start(self, provider_id: str, redirect_uri: str) -> tuple[str, str]:
        """Returns the provider URL to send the browser to, and the sealed pending state for its cookie."""
        self.provider(provider_id)
        url, pending = await self._identity.authorization_url(provider_id, redirect_uri)
        return url, self._sealer.seal(pending)

    async def finish(
        self,
        provider_id: str,
        redirect_uri: str,
        *,
        code: str | None,
        state: str | None,
        sealed: str | None,
        error: str | None = None,
    ) -> Session | SecondFactorRequired:
        """A session, or, for a user with two-factor sign-in, the token its second step needs."""
        info = self.provider(provider_id)
        pending = self._sealer.unseal(sealed) if sealed else None
        # The state ties this callback to the browser that started the sign-in (CSRF / login fixation).
        matches = pending is not None and pending.provider == provider_id and bool(state)
        if not matches or not hmac.compare_digest(pending.state, state or ""):
            raise ExternalSignInFailed(REQUEST_EXPIRED)
        if error == "access_denied":
            raise ExternalSignInFailed(CANCELLED)
        if error == "unauthorized_client":
            raise ExternalSignInFailed(UNAUTHORISED_CLIENT)
        if error or not code:
            raise ExternalSignInFailed(not_confirmed(info.name))
        identity = await self._identity.complete(provider_id, redirect_uri, code, pending)
        return await self._accounts.sign_in_external(
            identity.issuer, identity.subject, identity.email, identity.name, identity.picture
        )

"""A real, small OpenID Connect provider for tests: authlib's authorization server (code grant + PKCE +
OpenID Code) served over HTTP by wsgiref on 127.0.0.1, auto-approving one fixed user.

Switches let a test make it misbehave (`bad_nonce`, `bad_audience`, `bad_issuer`, `expired_id_token`)
to check that we refuse.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from authlib.oauth2.rfc6749 import AuthorizationServer, ClientMixin, OAuth2Request
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload
from authlib.oauth2.rfc6749.grants import AuthorizationCodeGrant
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oidc.core import AuthorizationCodeMixin, OpenIDCode, UserInfo
from joserfc.jwk import RSAKey

CLIENT_ID = "perilscope-test-client"
CLIENT_SECRET = "test-client-secret-" + "x" * 16


@dataclass(frozen=True)
class IdpUser:
    sub: str = "idp-user-42"
    email: str = "pat@idp.example"
    name: str = "Pat Provider"


@dataclass
class Client(ClientMixin):
    client_id: str
    client_secret: str
    redirect_uris: list[str]

    def get_client_id(self) -> str:
        return self.client_id

    def get_default_redirect_uri(self) -> str:
        return self.redirect_uris[0]

    def get_allowed_scope(self, scope: str) -> str:
        return " ".join(s for s in (scope or "").split() if s in {"openid", "email", "profile"})

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        return redirect_uri in self.redirect_uris

    def check_client_secret(self, client_secret: str) -> bool:
        return secrets.compare_digest(client_secret, self.client_secret)

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        return method in {"client_secret_post", "client_secret_basic"}

    def check_response_type(self, response_type: str) -> bool:
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        return grant_type == "authorization_code"


@dataclass
class AuthorizationCode(AuthorizationCodeMixin):
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    user: IdpUser
    nonce: str | None
    code_challenge: str | None
    code_challenge_method: str | None
    auth_time: int = field(default_factory=lambda: int(time.time()))

    def get_redirect_uri(self) -> str:
        return self.redirect_uri

    def get_scope(self) -> str:
        return self.scope

    def get_nonce(self) -> str | None:
        return self.nonce

    def get_auth_time(self) -> int:
        return self.auth_time


class WsgiOAuth2Request(OAuth2Request):
    def __init__(self, environ: dict[str, Any], uri: str, form: dict[str, str]) -> None:
        headers = {k[5:].replace("_", "-").title(): v for k, v in environ.items() if k.startswith("HTTP_")}
        super().__init__(environ["REQUEST_METHOD"], uri, headers=headers)
        self._args = dict(parse_qsl(environ.get("QUERY_STRING", "")))
        self._form = form
        self.payload = BasicOAuth2Payload({**self._args, **self._form})

    @property
    def args(self) -> dict[str, str]:
        return self._args

    @property
    def form(self) -> dict[str, str]:
        return self._form


class LocalOpenIDProvider:
    def __init__(self, redirect_uris: list[str]) -> None:
        self.user = IdpUser()
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key-1", "use": "sig", "alg": "RS256"})
        self.clients = {CLIENT_ID: Client(CLIENT_ID, CLIENT_SECRET, redirect_uris)}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access_tokens: dict[str, IdpUser] = {}
        self.bad_nonce = False
        self.bad_audience = False
        self.bad_issuer = False
        self.expired_id_token = False
        self.token_requests: list[dict[str, str]] = []
        self.authorize_requests: list[dict[str, str]] = []
        self._httpd: WSGIServer | None = None
        self.issuer = ""
        self.server = self._authorization_server()

    # --- authlib wiring -------------------------------------------------------------

    def _authorization_server(self) -> AuthorizationServer:
        provider = self

        class Server(AuthorizationServer):
            def query_client(self, client_id: str) -> Client | None:
                return provider.clients.get(client_id)

            def save_token(self, token: dict, request: OAuth2Request) -> None:
                provider.access_tokens[token["access_token"]] = request.user

            def create_oauth2_request(self, request: OAuth2Request) -> OAuth2Request:
                return request

            def handle_response(self, status: int, body: Any, headers: list) -> tuple[int, Any, list]:
                return status, body, headers

            def send_signal(self, name: str, *args: object, **kwargs: object) -> None:
                pass

        class CodeGrant(AuthorizationCodeGrant):
            TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

            def save_authorization_code(self, code: str, request: OAuth2Request) -> None:
                payload = request.payload.data
                provider.codes[code] = AuthorizationCode(
                    code=code,
                    client_id=request.client.get_client_id(),
                    redirect_uri=payload.get("redirect_uri", ""),
                    scope=request.scope,
                    user=request.user,
                    nonce=payload.get("nonce"),
                    code_challenge=payload.get("code_challenge"),
                    code_challenge_method=payload.get("code_challenge_method"),
                )

            def query_authorization_code(self, code: str, client: Client) -> AuthorizationCode | None:
                found = provider.codes.get(code)
                return found if found and found.client_id == client.get_client_id() else None

            def delete_authorization_code(self, authorization_code: AuthorizationCode) -> None:
                provider.codes.pop(authorization_code.code, None)  # codes are single use

            def authenticate_user(self, authorization_code: AuthorizationCode) -> IdpUser:
                return authorization_code.user

        class OpenIDCodeExtension(OpenIDCode):
            def exists_nonce(self, nonce: str, request: OAuth2Request) -> bool:
                return any(code.nonce == nonce for code in provider.codes.values())

            def resolve_client_private_key(self, client: Client) -> RSAKey:
                return provider.key

            def get_client_algorithm(self, client: Client) -> str:
                return "RS256"

            def get_encode_header(self, client: Client) -> dict[str, str]:
                return {"alg": "RS256", "kid": "test-key-1"}

            def get_client_claims(self, client: Client) -> dict[str, Any]:
                audience = "someone-else" if provider.bad_audience else client.get_client_id()
                claims: dict[str, Any] = {
                    "iss": "http://issuer.invalid" if provider.bad_issuer else provider.issuer,
                    "aud": [audience],
                }
                if provider.expired_id_token:
                    now = int(time.time())
                    claims.update(iat=now - 3600, auth_time=now - 3600, exp=now - 600)
                return claims

            def get_authorization_code_claims(self, authorization_code: AuthorizationCode) -> dict[str, Any]:
                claims = super().get_authorization_code_claims(authorization_code)
                if provider.bad_nonce:
                    claims["nonce"] = "not-the-nonce-you-sent"
                return claims

            def generate_user_info(self, user: IdpUser, scope: str) -> UserInfo:
                return UserInfo(sub=user.sub, name=user.name, email=user.email, email_verified=True)

        server = Server(scopes_supported=["openid", "email", "profile"])
        server.register_token_generator(
            "default", BearerTokenGenerator(access_token_generator=lambda **_: secrets.token_urlsafe(32))
        )
        server.register_grant(CodeGrant, [CodeChallenge(required=True), OpenIDCodeExtension(require_nonce=True)])
        return server

    # --- HTTP --------------------------------------------------------------------------

    def __call__(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        path = environ.get("PATH_INFO", "")
        uri = f"{self.issuer}{path}?{environ.get('QUERY_STRING', '')}"
        length = int(environ.get("CONTENT_LENGTH") or 0)
        form = dict(parse_qsl(environ["wsgi.input"].read(length).decode())) if length else {}
        request = WsgiOAuth2Request(environ, uri, form)
        if path == "/.well-known/openid-configuration":
            result = (200, self.discovery(), [])
        elif path == "/jwks":
            result = (200, {"keys": [self.key.as_dict(private=False)]}, [])
        elif path == "/authorize":
            self.authorize_requests.append(dict(request.args))
            grant = self.server.get_consent_grant(request, end_user=self.user)  # auto-approve
            result = self.server.create_authorization_response(request, grant_user=self.user, grant=grant)
        elif path == "/token":
            self.token_requests.append(dict(form))
            result = self.server.create_token_response(request)
        elif path == "/userinfo":
            result = self.userinfo(request.headers.get("Authorization", ""))
        else:
            result = (404, {"error": "not_found"}, [])
        status, body, headers = result
        payload = json.dumps(body).encode() if isinstance(body, dict) else (body or "").encode()
        headers = list(headers)
        if isinstance(body, dict) and not any(name.lower() == "content-type" for name, _ in headers):
            headers.append(("Content-Type", "application/json"))
        start_response(f"{status} {'OK' if status < 400 else 'Error'}", headers)
        return [payload]

    def discovery(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "userinfo_endpoint": f"{self.issuer}/userinfo",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256"],
        }

    def userinfo(self, authorization: str) -> tuple[int, dict, list]:
        scheme, _, token = authorization.partition(" ")
        user = self.access_tokens.get(token) if scheme.lower() == "bearer" else None
        if user is None:
            return 401, {"error": "invalid_token"}, []
        return 200, {"sub": user.sub, "email": user.email, "email_verified": True, "name": user.name}, []

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> LocalOpenIDProvider:
        class QuietHandler(WSGIRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

        self._httpd = make_server("127.0.0.1", 0, self, handler_class=QuietHandler)
        self.issuer = f"http://127.0.0.1:{self._httpd.server_port}"
        threading.Thread(target=self._httpd.serve_forever, name="test-oidc-provider", daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

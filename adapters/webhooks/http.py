"""Webhook deliveries over HTTP (httpx) and the DNS look-up behind the callback URL check."""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import httpx

from application.ports.webhook_delivery import HttpAnswer


class LoopHostResolver:
    """DNS through the event loop's getaddrinfo (a thread, so the loop is never blocked)."""

    async def resolve(self, host: str, port: int) -> list[str]:
        try:
            found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError, OSError):
            return []
        return list(dict.fromkeys(str(info[4][0]) for info in found))


def _pinned(url: httpx.URL, address: str) -> httpx.URL:
    return url.copy_with(host=str(ipaddress.ip_address(address.split("%", 1)[0])))


class HttpxWebhookSender:
    """Connects to the checked address itself (the Host header and TLS name stay the URL's), so a
    DNS answer that changes after the check cannot send the POST elsewhere. No redirects, no
    proxies from the environment."""

    def __init__(self, client: httpx.AsyncClient | None = None) -> None:
        self._client = client or httpx.AsyncClient(follow_redirects=False, trust_env=False)

    async def post(self, url: str, address: str, headers: dict[str, str], body: bytes, timeout_seconds: float) -> HttpAnswer:
        target = httpx.URL(url)
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}  # the certificate's name
        request = self._client.build_request(
            "POST",
            _pinned(target, address),
            headers={**headers, "Host": target.netloc.decode("ascii")},
            content=body,
            timeout=httpx.Timeout(timeout_seconds),
            extensions=extensions,
        )
        try:
            response = await self._client.send(request, follow_redirects=False)
            await response.aclose()
        except httpx.TimeoutException:
            return HttpAnswer(None, f"No answer within {timeout_seconds:g} seconds.")
        except httpx.HTTPError as error:
            return HttpAnswer(None, f"Could not connect: {type(error).__name__} {error}".strip())
        return HttpAnswer(response.status_code, None)

    async def aclose(self) -> None:
        await self._client.aclose()

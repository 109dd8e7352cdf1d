"""The HTTP sender of webhooks with httpx.MockTransport: it connects to the address that was
checked (the URL's name stays in the Host header and the TLS name), never follows a redirect, and
turns timeouts and refused connections into an error text instead of raising."""

from __future__ import annotations

import httpx

from adapters.webhooks.http import HttpxWebhookSender, LoopHostResolver


def sender_answering(handler) -> tuple[HttpxWebhookSender, list[httpx.Request]]:  # noqa: ANN001
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    return HttpxWebhookSender(httpx.AsyncClient(transport=httpx.MockTransport(record))), seen


async def test_the_post_goes_to_the_checked_address_with_the_urls_host_name() -> None:
    sender, seen = sender_answering(lambda request: httpx.Response(204))
    answer = await sender.post("https://hooks.example.com:8443/p?x=1", "93.184.216.34", {"X-A": "1"}, b"{}", 10)

    assert (answer.status_code, answer.error) == (204, None)
    [request] = seen
    assert str(request.url) == "https://93.184.216.34:8443/p?x=1"
    assert request.headers["host"] == "hooks.example.com:8443"
    assert request.extensions["sni_hostname"] == "hooks.example.com"
    assert request.headers["x-a"] == "1" and request.content == b"{}"


async def test_a_redirect_is_not_followed() -> None:
    sender, seen = sender_answering(lambda request: httpx.Response(302, headers={"Location": "http://169.254.169.254/"}))
    answer = await sender.post("http://hooks.example.com/p", "93.184.216.34", {}, b"{}", 10)
    assert answer.status_code == 302 and len(seen) == 1


async def test_a_timeout_and_a_refused_connection_are_errors_not_exceptions() -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    timeout = await sender_answering(slow)[0].post("http://h.example.com/", "93.184.216.34", {}, b"", 10)
    assert timeout.status_code is None and timeout.error == "No answer within 10 seconds."
    refusal = await sender_answering(refused)[0].post("http://h.example.com/", "93.184.216.34", {}, b"", 10)
    assert refusal.status_code is None and "connection refused" in refusal.error


async def test_the_resolver_answers_every_address_or_none() -> None:
    assert "127.0.0.1" in await LoopHostResolver().resolve("localhost", 80)
    assert await LoopHostResolver().resolve("no-such-host.invalid", 80) == []

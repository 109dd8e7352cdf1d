"""Webhook rules without I/O: the signature receivers verify, the retry schedule, the event body,
and the callback URL check (server-side request forgery) with a fake DNS resolver."""

from __future__ import annotations

import ipaddress
import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from application.errors import InvalidInput
from application.webhooks import WebhookPolicy, Webhooks
from domain.webhooks import (
    RETRY_WINDOW,
    SECRET_PREFIX,
    BatchOutcome,
    batch_event_body,
    new_signing_secret,
    next_attempt_at,
    refused_address_reason,
    sign,
    verify,
)
from tests.fakes import FakeClock

secrets_ = st.text(min_size=1, max_size=60)
bodies = st.binary(max_size=2000)
timestamps = st.integers(min_value=0, max_value=4_000_000_000)


@given(secrets_, timestamps, bodies)
def test_a_signed_body_verifies_with_the_same_secret(secret: str, timestamp: int, body: bytes) -> None:
    assert verify(secret, sign(secret, timestamp, body), body, now=timestamp)


@given(secrets_, timestamps, bodies, st.binary(min_size=1, max_size=20))
def test_a_tampered_body_does_not_verify(secret: str, timestamp: int, body: bytes, extra: bytes) -> None:
    assert not verify(secret, sign(secret, timestamp, body), body + extra, now=timestamp)


@given(secrets_, secrets_, timestamps, bodies)
def test_another_secret_does_not_verify(secret: str, other: str, timestamp: int, body: bytes) -> None:
    if other != secret:
        assert not verify(other, sign(secret, timestamp, body), body, now=timestamp)


@given(timestamps, st.integers(min_value=301, max_value=10**6))
def test_an_old_or_future_timestamp_is_refused(timestamp: int, skew: int) -> None:
    header = sign("whsec_x", timestamp, b"{}")
    assert not verify("whsec_x", header, b"{}", now=timestamp + skew)
    assert not verify("whsec_x", header, b"{}", now=timestamp - skew)
    assert verify("whsec_x", header, b"{}", now=timestamp + 300)


def test_the_signature_is_the_documented_hmac() -> None:
    import hashlib
    import hmac

    expected = hmac.new(b"whsec_abc", b"1700000000." + b'{"a":1}', hashlib.sha256).hexdigest()
    assert sign("whsec_abc", 1700000000, b'{"a":1}') == f"t=1700000000,v1={expected}"
    assert not verify("whsec_abc", "t=abc,v1=00", b"{}", now=0)
    assert not verify("whsec_abc", "", b"{}", now=0)


def test_a_secret_is_whsec_and_32_url_safe_characters() -> None:
    secret = new_signing_secret()
    assert secret.startswith(SECRET_PREFIX) and len(secret) == len(SECRET_PREFIX) + 32
    assert secret != new_signing_secret()


def test_retries_back_off_and_stop_a_day_after_the_event() -> None:
    event = datetime(2026, 1, 1, tzinfo=UTC)
    now, waits = event, []
    for made in range(1, 50):
        later = next_attempt_at(event, made, now)
        if later is None:
            break
        waits.append(later - now)
        now = later
    assert waits[:5] == [timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2), timedelta(hours=6)]
    assert now == event + RETRY_WINDOW  # the last try falls at the end of the window, then no more


def test_the_event_body_of_a_finished_and_a_failed_batch() -> None:
    at = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    done = json.loads(batch_event_body("d1", BatchOutcome("job-1", "done", 250, None), at))
    assert done == {
        "id": "d1",
        "type": "batch.completed",
        "created_at": "2026-11-25T12:00:00Z",
        "data": {
            "job_id": "job-1",
            "export_id": "job-1",
            "status": "done",
            "rows": 250,
            "error": None,
            "status_url": "/api/v1/export/status/job-1",
            "download_url": "/api/v1/export/download/job-1",
        },
    }
    failed = json.loads(batch_event_body("d2", BatchOutcome("job-2", "failed", 3, "The file is gone"), at))
    assert failed["type"] == "batch.failed"
    assert failed["data"]["status"] == "failed" and failed["data"]["error"] == "The file is gone"
    assert failed["data"]["download_url"] is None


class FakeResolver:
    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.answers = answers

    async def resolve(self, host: str, port: int) -> list[str]:
        try:
            return [str(ipaddress.ip_address(host))]  # an IP resolves to itself
        except ValueError:
            return self.answers.get(host, [])


def checker(answers: dict[str, list[str]] | None = None, allowed: frozenset[str] = frozenset()) -> Webhooks:
    return Webhooks(
        deliveries=None, secrets=None, box=None, resolver=FakeResolver(answers or {}), sender=None,  # type: ignore[arg-type]
        clock=FakeClock(), policy=WebhookPolicy(allowed_hosts=allowed),
    )


REFUSED_URLS = [
    "http://127.0.0.1/hook",
    "http://localhost/hook",
    "http://10.0.0.1/hook",
    "http://172.16.5.4/hook",
    "http://172.31.255.1/hook",
    "http://192.168.1.10/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]/hook",
    "http://[fd00::1]/hook",
    "http://[fe80::1]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[::ffff:10.0.0.1]/hook",
    "http://100.64.0.1/hook",
    "http://0.0.0.0/hook",
    "http://224.0.0.1/hook",
    "http://240.0.0.1/hook",
    "ftp://example.com/hook",
    "file:///etc/passwd",
    "gopher://example.com/",
    "http://user:pass@example.com/hook",
    "https://token@example.com/hook",
    "http:///hook",
    "not a url",
    "http://inside.example.com/hook",  # a public-looking name that resolves to a private address
    "http://mixed.example.com/hook",  # any private answer refuses the host
    "http://nowhere.invalid/hook",  # does not resolve
    "https://example.com:99999/hook",
    "https://example.com/" + "a" * 2100,
]


@pytest.mark.parametrize("url", REFUSED_URLS)
async def test_callback_urls_that_would_reach_inside_are_refused(url: str) -> None:
    answers = {
        "localhost": ["127.0.0.1", "::1"],
        "inside.example.com": ["10.1.2.3"],
        "mixed.example.com": ["93.184.216.34", "192.168.0.5"],
        "example.com": ["93.184.216.34"],
    }
    with pytest.raises(InvalidInput) as refused:
        await checker(answers).check(url)
    assert refused.value.code == "callback_url_refused"
    assert refused.value.message  # says why and what to do


async def test_a_refusal_says_the_host_is_not_allowed_and_how_to_allow_it_never_what_it_resolves_to() -> None:
    with pytest.raises(InvalidInput) as refused:
        await checker({"inside.example.com": ["10.1.2.3"]}).check("https://inside.example.com/h")
    message = refused.value.message
    assert "host inside.example.com is not allowed" in message and "PERILSCOPE_WEBHOOK_ALLOWED_HOSTS" in message
    assert "10.1.2.3" not in message and "private" not in message and "resolves" not in message


async def test_a_public_address_is_accepted() -> None:
    url = "https://hooks.example.com/perilscope?x=1"
    assert await checker({"hooks.example.com": ["93.184.216.34", "2606:2800:220:1::1"]}).check(url) == url


async def test_an_allowed_host_passes_although_it_is_private() -> None:
    assert await checker(allowed=frozenset({"127.0.0.1"})).check("http://127.0.0.1:8123/h") == "http://127.0.0.1:8123/h"
    named = checker({"receiver.internal": ["10.0.0.7"]}, allowed=frozenset({"receiver.internal"}))
    assert await named.check("http://receiver.internal/h") == "http://receiver.internal/h"
    # Allowing one host lets no other through.
    with pytest.raises(InvalidInput):
        await named.check("http://10.0.0.8/h")


@pytest.mark.parametrize(
    ("address", "refused"),
    [("8.8.8.8", False), ("93.184.216.34", False), ("2606:4700::1111", False), ("::ffff:8.8.8.8", False),
     ("100.127.255.255", True), ("198.18.0.1", True), ("fc00::1", True), ("::", True), ("ff02::1", True)],
)
def test_which_addresses_are_refused(address: str, refused: bool) -> None:
    assert (refused_address_reason(address) is not None) is refused

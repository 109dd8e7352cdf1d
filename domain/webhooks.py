"""Signed webhooks (issue 12): the signature receivers verify, the retry schedule, the event body,
and which callback URLs and addresses PerilScope refuses to call. Pure rules, no I/O.

Signature header: `X-PerilScope-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` where the HMAC is
of `"<t>." + raw body bytes`, keyed with the user's secret (`whsec_...`). The timestamp is inside
what is signed, so a receiver that checks it against its own clock rejects replays."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from urllib.parse import urlsplit

SECRET_PREFIX = "whsec_"
SECRET_RANDOM_BYTES = 24  # 32 url-safe characters
SIGNATURE_VERSION = "v1"
DEFAULT_TOLERANCE_SECONDS = 300
USER_AGENT = "PerilScope-Webhooks/1"
MAX_CALLBACK_URL_LENGTH = 2048

# Waits between attempts; the last one repeats. Retries stop a day after the event.
RETRY_DELAYS = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=6),
)
RETRY_WINDOW = timedelta(hours=24)


class WebhookEvent(StrEnum):
    BATCH_COMPLETED = "batch.completed"
    BATCH_FAILED = "batch.failed"


class DeliveryStatus(StrEnum):
    PENDING = "pending"  # waiting for its first or next attempt
    SUCCEEDED = "succeeded"  # a 2xx answer
    FAILED = "failed"  # no 2xx answer within the retry window


def new_signing_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(SECRET_RANDOM_BYTES)


def _digest(secret: str, timestamp: int, body: bytes) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The X-PerilScope-Signature header value for `body` sent at `timestamp` (unix seconds)."""
    return f"t={timestamp},{SIGNATURE_VERSION}={_digest(secret, timestamp, body)}"


def verify(secret: str, header: str, body: bytes, now: int, tolerance: int = DEFAULT_TOLERANCE_SECONDS) -> bool:
    """True when `header` signs exactly `body` with `secret` and its timestamp is within
    `tolerance` seconds of `now` (either way): what a receiver checks before trusting an event."""
    fields: dict[str, list[str]] = {}
    for part in header.split(","):
        name, _, value = part.strip().partition("=")
        fields.setdefault(name, []).append(value)
    try:
        timestamp = int(fields.get("t", [""])[0])
    except ValueError:
        return False
    if abs(now - timestamp) > tolerance:
        return False
    expected = _digest(secret, timestamp, body)
    return any(hmac.compare_digest(expected, given) for given in fields.get(SIGNATURE_VERSION, []))


def next_attempt_at(event_at: datetime, attempts_made: int, now: datetime) -> datetime | None:
    """When to try again after `attempts_made` failed attempts, or None to give up: the waits of
    RETRY_DELAYS, the last try falling exactly at the end of the retry window."""
    deadline = event_at + RETRY_WINDOW
    if now >= deadline:
        return None
    delay = RETRY_DELAYS[min(max(attempts_made, 1), len(RETRY_DELAYS)) - 1]
    return min(now + delay, deadline)


def is_success(status_code: int | None) -> bool:
    return status_code is not None and 200 <= status_code < 300


@dataclass(frozen=True, slots=True)
class BatchOutcome:
    job_id: str
    status: str  # done or failed
    rows: int
    error: str | None


def event_of(outcome: BatchOutcome) -> WebhookEvent:
    return WebhookEvent.BATCH_COMPLETED if outcome.status == "done" else WebhookEvent.BATCH_FAILED


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def batch_event_body(delivery_id: str, outcome: BatchOutcome, created_at: datetime) -> bytes:
    """The JSON body of a batch event; the same bytes at every attempt (only the signature changes)."""
    failed = outcome.status != "done"
    body = {
        "id": delivery_id,
        "type": event_of(outcome).value,
        "created_at": _iso(created_at),
        "data": {
            "job_id": outcome.job_id,
            "export_id": outcome.job_id,
            "status": "failed" if failed else "done",
            "rows": outcome.rows,
            "error": outcome.error if failed else None,
            "status_url": f"/api/v1/export/status/{outcome.job_id}",
            "download_url": None if failed else f"/api/v1/export/download/{outcome.job_id}",
        },
    }
    return json.dumps(body, separators=(",", ":")).encode()


# --- which URLs and addresses may be called (server-side request forgery) -----------------

ALLOWED_SCHEMES = ("http", "https")
SHARED_ADDRESS_SPACE = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT, RFC 6598


class CallbackUrlError(ValueError):
    """Why a callback URL is refused; the message says what to send instead."""


@dataclass(frozen=True, slots=True)
class CallbackTarget:
    url: str
    scheme: str
    host: str  # lower case; an IPv6 address without brackets
    port: int


def parse_callback_url(url: str) -> CallbackTarget:
    """The parts PerilScope needs to call `url`, or CallbackUrlError saying what is wrong."""
    url = url.strip()
    if not url or len(url) > MAX_CALLBACK_URL_LENGTH:
        raise CallbackUrlError(f"Send a callback URL of 1 to {MAX_CALLBACK_URL_LENGTH} characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise CallbackUrlError(f"The callback URL cannot be read ({error}): send a full http(s) URL.") from error
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise CallbackUrlError("Only http and https callback URLs are called: send an https:// URL.")
    if parts.username is not None or parts.password is not None:
        raise CallbackUrlError(
            "The callback URL carries a user name or password: remove them; verify our signature instead."
        )
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise CallbackUrlError("The callback URL has no host: send a full URL such as https://example.com/hooks.")
    return CallbackTarget(url, scheme, host, port or (443 if scheme == "https" else 80))


def refused_address_reason(address: str) -> str | None:
    """Why PerilScope will not call `address` (an IP), or None when it is a public address."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone id is not part of the address
    except ValueError:
        return f"{address} is not an IP address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        reason = refused_address_reason(str(ip.ipv4_mapped))
        return f"{ip} maps to {reason}" if reason else None
    for refused, what in (
        (ip.is_unspecified, "unspecified"),
        (ip.is_loopback, "a loopback address"),
        (ip.is_link_local, "link-local (cloud metadata lives there)"),
        (ip.is_multicast, "multicast"),
        (ip.version == 4 and ip in SHARED_ADDRESS_SPACE, "in the shared address space (100.64.0.0/10)"),
        (ip.is_private, "a private address"),  # includes unique-local IPv6 (fc00::/7)
        (ip.is_reserved, "reserved"),
        (not ip.is_global, "not a public address"),
    ):
        if refused:
            return f"{ip} is {what}"
    return None

"""Signed webhooks for public-API batches (issue 12): the callback URL check at submission and at
every attempt, the event recorded when a batch ends, its delivery with retries for a day, and what
the owner sees (the signing secret, recent deliveries and their attempts).

Deliveries live in the database. Any process may make an attempt, after claiming the delivery with
a lease (DeliveryStore.claim), so two processes never send the same attempt and a crash mid-attempt
only delays the next one until the lease runs out."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta

from application.api_keys import require_scope
from application.errors import InvalidInput
from application.pages import Page, PageRequest, page_of
from application.ports.accounts import AccessClaims
from application.ports.batch import BatchJob
from application.ports.clock import Clock
from application.ports.public_api import ApiCaller
from application.ports.secrets import SecretBox
from application.ports.webhook_delivery import (
    Delivery,
    DeliveryAttempt,
    DeliveryStore,
    HostResolver,
    SigningSecretStore,
    WebhookSender,
)
from domain.api_access import ApiScope
from domain.webhooks import (
    USER_AGENT,
    BatchOutcome,
    CallbackUrlError,
    DeliveryStatus,
    batch_event_body,
    event_of,
    is_success,
    new_signing_secret,
    next_attempt_at,
    parse_callback_url,
    refused_address_reason,
    sign,
)

log = logging.getLogger("perilscope.webhooks")
REFUSED = "callback_url_refused"
ALLOW_HINT = ("Use a public address, or ask the operator to list this host in PERILSCOPE_WEBHOOK_ALLOWED_HOSTS.")
DELIVERIES_SHOWN = 50
ATTEMPTS_SHOWN = 20
ERROR_TEXT_LENGTH = 300


@dataclass(frozen=True, slots=True)
class WebhookPolicy:
    allowed_hosts: frozenset[str] = frozenset()  # host names or IPs the operator lets through (lower case)
    timeout_seconds: float = 10.0
    # Longer than an attempt can take, so a lease runs out only when its holder died.
    lease: timedelta = timedelta(seconds=60)
    batch_size: int = 20  # deliveries one pump round attempts


def _refused(message: str) -> InvalidInput:
    return InvalidInput(message, code=REFUSED)


class Webhooks:
    """Implements both ports of application/ports/webhooks.py: CallbackUrlCheck and BatchEndedListener."""

    def __init__(
        self,
        deliveries: DeliveryStore,
        secrets: SigningSecretStore,
        box: SecretBox,
        resolver: HostResolver,
        sender: WebhookSender,
        clock: Clock,
        policy: WebhookPolicy | None = None,
    ) -> None:
        self._deliveries = deliveries
        self._secrets = secrets
        self._box = box
        self._resolver = resolver
        self._sender = sender
        self._clock = clock
        self._policy = policy or WebhookPolicy()
        self._in_flight: set[asyncio.Task[None]] = set()

    # --- CallbackUrlCheck ------------------------------------------------------------

    async def check(self, url: str) -> str:
        url, _address = await self._target(url)
        return url

    async def _target(self, url: str) -> tuple[str, str]:
        """The URL and the address to connect to, or InvalidInput(callback_url_refused) saying why."""
        try:
            target = parse_callback_url(url)
        except CallbackUrlError as error:
            raise _refused(str(error)) from error
        addresses = await self._resolver.resolve(target.host, target.port)
        if not addresses:
            raise _refused(f"The callback URL's host {target.host} does not resolve: check its spelling and DNS.")
        if target.host not in self._policy.allowed_hosts:
            for address in addresses:
                reason = refused_address_reason(address)
                if reason is not None and address.lower() not in self._policy.allowed_hosts:
                    # What the host resolves to stays in the operator's log: told to the caller, it
                    # would map the internal network's names one refusal at a time.
                    log.info("callback host refused", extra={"host": target.host, "reason": reason})
                    raise _refused(f"The callback URL's host {target.host} is not allowed. {ALLOW_HINT}")
        return target.url, addresses[0]

    # --- BatchEndedListener -----------------------------------------------------------

    async def batch_ended(self, job: BatchJob, callback_url: str) -> None:
        now = self._clock.now()
        delivery_id = str(uuid.uuid4())
        outcome = BatchOutcome(job.id, job.status, job.total, job.error)
        delivery = Delivery(
            id=delivery_id,
            user_id=job.user_id,
            job_id=job.id,
            event=event_of(outcome).value,
            url=callback_url,
            body=batch_event_body(delivery_id, outcome, now).decode(),
            status=DeliveryStatus.PENDING,
            created_at=now,
            next_attempt_at=now,
        )
        await self._deliveries.add(delivery)
        # The first attempt starts now, beside the caller; the pump retries whatever it leaves.
        task = asyncio.create_task(self._attempt_if_claimed(delivery_id), name=f"webhook-{delivery_id}")
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)

    async def settle(self) -> None:
        """Wait for the first attempts begun by batch_ended (for shutdown and tests)."""
        while self._in_flight:
            await asyncio.gather(*self._in_flight, return_exceptions=True)

    # --- delivery ----------------------------------------------------------------------

    async def deliver_due(self) -> int:
        """One round of the pump: attempt every due delivery this process can claim; how many."""
        ids = await self._deliveries.due(self._clock.now(), self._policy.batch_size)
        attempted = await asyncio.gather(*(self._attempt_if_claimed(i) for i in ids))
        return sum(attempted)

    async def _attempt_if_claimed(self, delivery_id: str) -> bool:
        now = self._clock.now()
        token = uuid.uuid4().hex
        try:
            delivery = await self._deliveries.claim(delivery_id, now, now + self._policy.lease, token)
            if delivery is None:
                return False
            await self._attempt(delivery, token)
            return True
        except Exception:  # the lease runs out and another round tries again
            log.exception("webhook attempt failed", extra={"delivery_id": delivery_id})
            return False

    async def _attempt(self, delivery: Delivery, token: str) -> None:
        started = time.monotonic()
        attempted_at = self._clock.now()
        status_code, error = await self._send(delivery)
        attempt = DeliveryAttempt(
            attempted_at=attempted_at,
            duration_ms=round((time.monotonic() - started) * 1000),
            status_code=status_code,
            error=error,
        )
        if error is None:
            status, retry_at = DeliveryStatus.SUCCEEDED, None
        else:
            retry_at = next_attempt_at(delivery.created_at, delivery.attempt_count + 1, self._clock.now())
            status = DeliveryStatus.PENDING if retry_at else DeliveryStatus.FAILED
        await self._deliveries.record(delivery.id, token, attempt, status, retry_at)

    async def _send(self, delivery: Delivery) -> tuple[int | None, str | None]:
        """The answer's status code and, unless it is a 2xx, why the attempt failed."""
        try:
            url, address = await self._target(delivery.url)  # DNS may have changed since submission
        except InvalidInput as refusal:
            return None, refusal.message[:ERROR_TEXT_LENGTH]
        secret = await self._secret_of(delivery.user_id)
        body = delivery.body.encode()
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "X-PerilScope-Event": delivery.event,
            "X-PerilScope-Delivery": delivery.id,
            "X-PerilScope-Signature": sign(secret, int(self._clock.now().timestamp()), body),
        }
        answer = await self._sender.post(url, address, headers, body, self._policy.timeout_seconds)
        if answer.error is not None:
            return answer.status_code, answer.error[:ERROR_TEXT_LENGTH]
        if not is_success(answer.status_code):
            return answer.status_code, f"The receiver answered HTTP {answer.status_code}; a 2xx answer is success."
        return answer.status_code, None

    # --- what the owner sees -----------------------------------------------------------

    async def signing_secret(self, caller: AccessClaims) -> str:
        return await self._secret_of(caller.user_id)

    async def rotate_secret(self, caller: AccessClaims) -> str:
        """A new secret, used from the next attempt on; the old one stops verifying at once."""
        secret = new_signing_secret()
        await self._secrets.replace(caller.user_id, self._box.seal(secret, caller.user_id), self._clock.now())
        return secret

    async def _secret_of(self, user_id: str) -> str:
        sealed = await self._secrets.sealed(user_id)
        if sealed is None:  # made on first need
            await self._secrets.add_if_absent(user_id, self._box.seal(new_signing_secret(), user_id), self._clock.now())
            sealed = await self._secrets.sealed(user_id)
        secret = self._box.open(sealed, user_id) if sealed else None
        if secret is None:
            # The app's secret key changed since it was sealed: a new one (the user sees it on /settings).
            secret = new_signing_secret()
            await self._secrets.replace(user_id, self._box.seal(secret, user_id), self._clock.now())
        return secret

    async def deliveries(self, caller: AccessClaims, limit: int = DELIVERIES_SHOWN) -> list[Delivery]:
        """The caller's newest deliveries with their newest attempts; never another user's."""
        return await self._recent(caller.user_id, limit)

    async def api_deliveries(self, caller: ApiCaller, page: PageRequest = PageRequest(limit=DELIVERIES_SHOWN)) -> Page[Delivery]:
        """The same for a public API caller, whose key must have the read scope, a page at a time."""
        require_scope(caller, ApiScope.READ)
        fetched = await self._deliveries.recent(caller.user_id, page.fetch, ATTEMPTS_SHOWN, page.offset)
        return page_of(fetched, page)

    async def _recent(self, user_id: str, limit: int) -> list[Delivery]:
        return await self._deliveries.recent(user_id, min(max(limit, 1), DELIVERIES_SHOWN), ATTEMPTS_SHOWN)

"""The contact form: a visitor's message goes to the company's configured recipients."""

from __future__ import annotations

from application.errors import InvalidInput
from application.ports.mail import Mailer, OutgoingMail
from application.ports.throttling import AttemptThrottle
from application.throttles import CONTACT_PER_ADDRESS, throttled
from domain.accounts import is_valid_email, normalize_email

MAX_MESSAGE_CHARS = 5000
MAX_SUBJECT_CHARS = 200


class ContactService:
    def __init__(self, mailer: Mailer, recipients: tuple[str, ...], throttle: AttemptThrottle) -> None:
        self._mailer = mailer
        self._recipients = recipients
        self._throttle = throttle

    async def send(self, subject: str, body: str, client: str, reply_to: str | None = None) -> None:
        """The recipients come from settings; a `to_email` chosen by the client is never used."""
        subject, body = subject.strip(), body.strip()
        if not subject or not body:
            raise InvalidInput("Please fill in every field of the form.")
        if len(body) > MAX_MESSAGE_CHARS or len(subject) > MAX_SUBJECT_CHARS:
            raise InvalidInput(f"Your message is too long: please keep it under {MAX_MESSAGE_CHARS} characters.")
        # The subject becomes a mail header, where a line break would start another header.
        if "\r" in subject or "\n" in subject:
            raise InvalidInput("The subject must be a single line: remove the line break.")
        if reply_to is not None and not is_valid_email(normalize_email(reply_to)):
            raise InvalidInput("Please enter a valid email address")
        await throttled(self._throttle, f"contact-address:{client}", CONTACT_PER_ADDRESS, "messages in a short time")
        for recipient in self._recipients:
            await self._mailer.send(OutgoingMail(to=recipient, subject=f"[Contact] {subject}", body=body))

"""SMTP mailer on the standard library, run in a thread so the event loop is not blocked."""

from __future__ import annotations

import asyncio
import smtplib
from dataclasses import dataclass
from email.message import EmailMessage

from application.errors import InvalidInput, ProviderUnavailable
from application.ports.mail import OutgoingMail

MAIL_SERVER_DOWN = "The mail server did not take the message. Please try again later."


@dataclass(frozen=True, slots=True)
class SmtpConfig:
    host: str
    port: int = 587
    username: str | None = None
    password: str | None = None
    starttls: bool = True
    sender: str = "PerilScope <no-reply@perilscope.local>"
    timeout_seconds: float = 10.0


class SmtpMailer:
    def __init__(self, config: SmtpConfig) -> None:
        self._config = config

    async def send(self, mail: OutgoingMail) -> None:
        """InvalidInput for a mail that cannot be written safely (a line break in a header);
        ProviderUnavailable when the server cannot be reached or refuses the message."""
        message = self._message(mail)  # composed first: a refused mail opens no connection
        try:
            await asyncio.to_thread(self._deliver, message)
        except OSError as error:  # smtplib.SMTPException is an OSError too
            raise ProviderUnavailable(MAIL_SERVER_DOWN) from error

    def _message(self, mail: OutgoingMail) -> EmailMessage:
        # EmailMessage refuses a CR or LF in a header value, so nothing can add a header (Bcc: ...).
        message = EmailMessage()
        try:
            message["From"] = self._config.sender
            message["To"] = mail.to
            message["Subject"] = mail.subject
        except (ValueError, IndexError) as error:  # IndexError: the address parser on some malformed input
            raise InvalidInput("The mail's address or subject is not valid: they must be a single line.") from error
        message.set_content(mail.body)
        return message

    def _deliver(self, message: EmailMessage) -> None:
        with smtplib.SMTP(self._config.host, self._config.port, timeout=self._config.timeout_seconds) as smtp:
            if self._config.starttls:
                smtp.starttls()
            if self._config.username:
                smtp.login(self._config.username, self._config.password or "")
            smtp.send_message(message)

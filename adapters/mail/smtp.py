"""SMTP mailer on the standard library, run in a thread so the event loop is not blocked."""

from __future__ import annotations

import asyncio
import smtplib
from dataclasses import dataclass
from email.message import EmailMessage

from application.ports import OutgoingMail


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
        await asyncio.to_thread(self._send, mail)

    def _send(self, mail: OutgoingMail) -> None:
        message = EmailMessage()
        message["From"] = self._config.sender
        message["To"] = mail.to
        message["Subject"] = mail.subject
        message.set_content(mail.body)
        with smtplib.SMTP(self._config.host, self._config.port, timeout=self._config.timeout_seconds) as smtp:
            if self._config.starttls:
                smtp.starttls()
            if self._config.username:
                smtp.login(self._config.username, self._config.password or "")
            smtp.send_message(message)

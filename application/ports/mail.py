"""Sending mail: password-reset links and contact messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class OutgoingMail:
    to: str
    subject: str
    body: str


class Mailer(Protocol):
    async def send(self, mail: OutgoingMail) -> None: ...

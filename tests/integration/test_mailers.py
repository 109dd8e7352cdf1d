"""SmtpMailer against a real SMTP server (aiosmtpd) on a free port, and the outbox mailer."""

from __future__ import annotations

import dataclasses
import email
import socket
from collections.abc import Iterator
from email.message import Message
from email.policy import default as default_policy

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select

from adapters.clock import SystemClock
from adapters.db.account_tables import OutboxMailRow
from adapters.mail.outbox import OutboxMailer
from adapters.mail.smtp import SmtpConfig, SmtpMailer
from application.errors import InvalidInput, ProviderUnavailable
from application.ports.mail import OutgoingMail
from entrypoints.container import Container


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Inbox:
    """aiosmtpd handler that keeps every message it is given."""

    def __init__(self) -> None:
        self.envelopes: list = []

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: ANN001, N802 - aiosmtpd's hook name
        self.envelopes.append(envelope)
        return "250 Message accepted for delivery"

    def message(self, index: int = -1) -> Message:
        return email.message_from_bytes(self.envelopes[index].content, policy=default_policy)


@pytest.fixture
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield inbox, controller.port
    finally:
        controller.stop()


MAIL = OutgoingMail(
    to="ann@example.com",
    subject="Reset your PerilScope password",
    body="Open this link within 30 minutes:\nhttps://app.example/reset-password?token=abc\n",
)


async def test_smtp_mailer_delivers_to_a_real_server(smtp_server: tuple[Inbox, int]) -> None:
    inbox, port = smtp_server
    sender = "PerilScope <no-reply@perilscope.test>"
    mailer = SmtpMailer(SmtpConfig(host="127.0.0.1", port=port, starttls=False, sender=sender))
    await mailer.send(MAIL)

    assert len(inbox.envelopes) == 1
    envelope = inbox.envelopes[0]
    assert envelope.rcpt_tos == ["ann@example.com"] and envelope.mail_from == "no-reply@perilscope.test"
    message = inbox.message()
    assert message["To"] == "ann@example.com"
    assert message["From"] == "PerilScope <no-reply@perilscope.test>"
    assert message["Subject"] == "Reset your PerilScope password"
    assert message.get_content().replace("\r\n", "\n") == MAIL.body  # SMTP lines end in CRLF


async def test_smtp_mailer_reports_an_unreachable_server() -> None:
    mailer = SmtpMailer(SmtpConfig(host="127.0.0.1", port=free_port(), starttls=False, timeout_seconds=2))
    with pytest.raises(ProviderUnavailable):
        await mailer.send(MAIL)


@pytest.mark.parametrize(
    "mail",
    [
        dataclasses.replace(MAIL, subject="Hello\r\nBcc: everyone@example.com"),
        dataclasses.replace(MAIL, subject="Hello\nthere"),
        dataclasses.replace(MAIL, to="ann@example.com\r\nBcc: everyone@example.com"),
    ],
)
async def test_smtp_mailer_refuses_a_line_break_in_a_header(smtp_server: tuple[Inbox, int], mail: OutgoingMail) -> None:
    inbox, port = smtp_server
    mailer = SmtpMailer(SmtpConfig(host="127.0.0.1", port=port, starttls=False))
    with pytest.raises(InvalidInput):
        await mailer.send(mail)
    assert inbox.envelopes == []


async def test_container_picks_smtp_by_setting(container: Container) -> None:
    container.settings.override(dataclasses.replace(container.settings(), mailer="smtp", smtp_port=2525))
    assert isinstance(container.mailer(), SmtpMailer)


async def test_outbox_mailer_stores_the_message(container: Container) -> None:
    mailer = OutboxMailer(container.session_factory(), container.writer(), SystemClock())
    await mailer.send(MAIL)
    async with container.session_factory()() as session:
        row = await session.scalar(select(OutboxMailRow).where(OutboxMailRow.to_address == MAIL.to))
    assert (row.subject, row.body) == (MAIL.subject, MAIL.body)
    assert [r.subject for r in await mailer.recent(5)][0] == MAIL.subject

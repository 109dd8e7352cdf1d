"""The contact form reaches the configured recipients through the mailer, never a client-chosen one."""

from __future__ import annotations

from httpx import AsyncClient
from sqlalchemy import select

from adapters.db.account_tables import OutboxMailRow
from entrypoints.container import Container

MESSAGE = {"subject": "Contact form: Ann Lee", "body": "Name: Ann Lee\nEmail: ann@example.com\n\nHello", "to_email": "attacker@evil.test"}


async def _outbox(container: Container) -> list[OutboxMailRow]:
    async with container.session_factory()() as session:
        return list(await session.scalars(select(OutboxMailRow).order_by(OutboxMailRow.id)))


async def test_message_goes_to_the_configured_recipients(client: AsyncClient, container: Container) -> None:
    response = await client.post("/api/send-email", json=MESSAGE)
    assert response.status_code == 200
    assert response.json() == {"status": "success", "message": "Message sent successfully!"}
    mails = await _outbox(container)
    assert {m.to_address for m in mails} == set(container.settings().contact_recipients)
    assert all("attacker" not in m.to_address for m in mails)
    assert "Hello" in mails[0].body and mails[0].subject == "[Contact] Contact form: Ann Lee"


async def test_empty_long_and_repeated_messages_are_refused(client: AsyncClient, container: Container) -> None:
    assert (await client.post("/api/send-email", json={**MESSAGE, "body": "  "})).status_code == 400
    too_long = await client.post("/api/send-email", json={**MESSAGE, "body": "x" * 5001})
    assert too_long.status_code == 400 and "too long" in too_long.json()["error"]
    statuses = [(await client.post("/api/send-email", json=MESSAGE)).status_code for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    assert len(await _outbox(container)) == 5 * len(container.settings().contact_recipients)

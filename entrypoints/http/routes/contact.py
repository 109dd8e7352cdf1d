"""POST /api/send-email: the public contact form (SPEC §7), through the Mailer port."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Request, post
from litestar.params import JSONBody

from application.contact import MAX_MESSAGE_CHARS
from entrypoints.http.dependencies import Contact
from entrypoints.http.control_characters import MULTILINE_FIELDS
from entrypoints.http.openapi import JSON_BODY, error_responses


class ContactBody(msgspec.Struct):
    subject: Annotated[str, msgspec.Meta(max_length=300)]
    body: Annotated[str, msgspec.Meta(max_length=MAX_MESSAGE_CHARS + 500)]
    to_email: Annotated[str, msgspec.Meta(max_length=254)] | None = None  # accepted, never used
    reply_to: Annotated[str, msgspec.Meta(max_length=254)] | None = None


@post(
    "/api/send-email",
    tags=["contact"],
    status_code=200,
    summary="Send a contact message to the company",
    responses=error_responses(JSON_BODY, 429, 503),
    opt={MULTILINE_FIELDS: ("body",)},
)
async def send_email(request: Request, contact: Contact, data: JSONBody[ContactBody]) -> dict[str, str]:
    client = request.client.host if request.client else "unknown"
    await contact.send(data.subject, data.body, client, data.reply_to)
    return {"status": "success", "message": "Message sent successfully!"}


ROUTES = [send_email]

"""Bad input never makes a 500: control characters are refused at the edge with a 400 that
names the field, on SQLite and PostgreSQL (where a NUL in text is a database error)."""

from __future__ import annotations

import pytest
from httpx import AsyncClient

from adapters.mail.smtp import SmtpConfig, SmtpMailer
from entrypoints.container import Container
from tests.conftest import STRONG_PASSWORD, sign_up_and_log_in
from tests.integration.test_mailers import Inbox, smtp_server  # noqa: F401 - the fixture

CONTACT = {"subject": "Question", "body": "Hello,\r\nplease call me.\n\tAnn"}


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/auth/signup", {"email": "ann\u0000@example.com", "password": STRONG_PASSWORD}, "field `email`"),
        ("/api/auth/login", {"email": "ann@example.com", "password": "Str0ng!\u0000pass"}, "field `password`"),
        ("/forgot-password", {"email": "ann@example.com\u0000"}, "field `email`"),
        ("/api/auth/reset-password", {"token": "t\u0000", "password": STRONG_PASSWORD}, "field `token`"),
        ("/api/send-email", {**CONTACT, "subject": "Hi\u0000"}, "field `subject`"),
        ("/api/send-email", {**CONTACT, "body": "Hi\u0000there"}, "field `body`"),
        ("/api/send-email", {**CONTACT, "reply_to": "ann@example.com\u001b"}, "field `reply_to`"),
    ],
)
async def test_a_control_character_in_a_public_json_field_is_a_400_naming_it(
    client: AsyncClient, path: str, body: dict, field: str
) -> None:
    response = await client.post(path, json=body)
    assert response.status_code == 400, response.text
    answer = response.json()
    assert field in answer["error"].lower() and "control character (U+00" in answer["error"]
    assert answer["status"] == "error" and answer["code"] == "validation_error" and answer["request_id"]


async def test_signed_in_json_fields_nested_ones_and_their_names_are_checked(client: AsyncClient) -> None:
    headers = (await sign_up_and_log_in(client, "nul-nested@example.com"))["headers"]
    profile = await client.patch("/api/auth/me", json={"display_name": "Ann\u0000"}, headers=headers)
    assert profile.status_code == 400 and "`display_name`" in profile.json()["error"]
    job = await client.post("/api/batch-jobs", json={"file_id": "\u0000"}, headers=headers)
    assert job.status_code == 400 and "`file_id`" in job.json()["error"]
    rows = [{"Street Address": "1 Main St"}, {"Street Address": "2 Main St\u0000"}]
    export = await client.post("/api/export", json={"data": rows}, headers=headers)
    assert export.status_code == 400 and "`data[1].Street Address`" in export.json()["error"]
    key = await client.post("/api/export", json={"data": [{"Street\u0007": "x"}]}, headers=headers)
    assert key.status_code == 400 and "field name in `data[0]`" in key.json()["error"].lower()


@pytest.mark.parametrize(
    ("path", "parameter"),
    [
        ("/assets/%00", "path parameter `file_path`"),
        ("/assets/index%00.js", "path parameter `file_path`"),
        ("/data-processing%00", "path parameter `path`"),
        ("/api/view-export/a%00.csv", "path parameter `filename`"),
        ("/api/download/a%0d%0a.csv", "path parameter `filename`"),
        ("/api/search-results/%00", "path parameter `search_id`"),
        ("/api/batch-jobs/%01", "path parameter `job_id`"),
        ("/api/auth/get-user-info/%00", "path parameter `uid`"),
        ("/api/nearby-search?address=1%20Main%20St%00", "query parameter `address`"),
        ("/api/place-photo?ref=abc%0a", "query parameter `ref`"),
    ],
)
async def test_a_control_character_in_a_path_or_query_parameter_is_a_400(
    client: AsyncClient, path: str, parameter: str
) -> None:
    headers = (await sign_up_and_log_in(client, f"nul-path-{abs(hash(path))}@example.com"))["headers"]
    response = await client.get(path, headers=headers)
    assert response.status_code == 400, response.text
    assert parameter in response.json()["error"].lower()


async def test_a_control_character_in_the_refresh_cookie_is_a_400_and_other_cookies_are_not_ours(
    client: AsyncClient,
) -> None:
    client.cookies.set("ps_refresh", "abc\x01def", path="/api/auth")
    refresh = await client.post("/api/auth/refresh")
    assert refresh.status_code == 400 and "cookie `ps_refresh`" in refresh.json()["error"].lower()
    client.cookies.clear()
    client.cookies.set("someone_elses", "a\x01b")
    assert (await client.get("/health")).status_code == 200


async def test_the_contact_message_may_have_line_breaks_and_tabs(client: AsyncClient) -> None:
    assert (await client.post("/api/send-email", json=CONTACT)).status_code == 200


async def test_a_line_break_in_the_contact_subject_never_reaches_smtp(
    client: AsyncClient, container: Container, smtp_server: tuple[Inbox, int]  # noqa: F811
) -> None:
    inbox, port = smtp_server
    container.mailer.override(SmtpMailer(SmtpConfig(host="127.0.0.1", port=port, starttls=False)))
    try:
        injected = await client.post("/api/send-email", json={**CONTACT, "subject": "Hi\r\nBcc: all@example.com"})
        assert injected.status_code == 400
        assert injected.json()["error"] == "Field `subject` must be a single line: remove the line break."
        assert inbox.envelopes == []
        sent = await client.post("/api/send-email", json=CONTACT)
        assert sent.status_code == 200 and len(inbox.envelopes) == len(container.settings().contact_recipients)
    finally:
        container.mailer.reset_override()


@pytest.mark.parametrize("control", ["\x1b", "\x07"], ids=["ESC", "BEL"])
async def test_an_esc_or_bel_in_an_uploaded_cell_is_a_400_naming_its_line(client: AsyncClient, control: str) -> None:
    headers = (await sign_up_and_log_in(client, f"upload-control-{ord(control)}@example.com"))["headers"]
    content = ("Street Address,City,State,Zip,Note\n701 5th Ave,Seattle,WA,98104,ok\n"
               f"1 Main St,Miami,FL,33130,{control}[2J{control}\n")
    response = await client.post("/api/upload-csv", files={"file": ("a.csv", content.encode(), "text/csv")}, headers=headers)
    assert response.status_code == 400, response.text
    assert response.json()["error"] == f"Line 3 contains a control character (U+{ord(control):04X}). Remove it and try again."
    assert response.json()["code"] == "invalid_upload"


async def test_a_refused_callback_host_is_not_told_what_it_resolves_to(client: AsyncClient) -> None:
    from tests.api.test_public_api import create_key

    user = await sign_up_and_log_in(client, "callback-host@example.com")
    key = {"X-API-Key": (await create_key(client, user, ["read", "batch"]))["key"]}
    address = {"address": "701 5th Ave", "city": "Seattle", "state": "WA", "zip": "98104"}
    refused = await client.post("/api/v1/search/batch", json={"addresses": [address], "callback_url": "http://localhost/hook"},
                                headers=key)
    assert refused.status_code == 400 and refused.json()["code"] == "callback_url_refused", refused.text
    assert "host localhost is not allowed" in refused.json()["error"]
    assert "127.0.0.1" not in refused.json()["error"] and "::1" not in refused.json()["error"]

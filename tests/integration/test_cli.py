"""The `perilscope` command on a migrated SQLite file (click's CliRunner)."""

from __future__ import annotations

import asyncio
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from adapters.clock import SystemClock
from adapters.db.engine import create_engine, create_session_factory
from adapters.db.writer import SqlWriter
from adapters.mail.outbox import OutboxMailer
from application.ports.mail import OutgoingMail
from entrypoints.cli import main
from entrypoints.migrate import upgrade_to_head
from tests.conftest import STRONG_PASSWORD


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.db"
    url = f"sqlite+aiosqlite:///{path}"
    upgrade_to_head(url)
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("PERILSCOPE_ENV", "test")
    monkeypatch.setenv("PERILSCOPE_MAILER", "outbox")
    return path


def rows(path: Path, sql: str, *params: object) -> list[tuple]:
    with sqlite3.connect(path) as connection:
        return connection.execute(sql, params).fetchall()


def test_create_admin_then_set_role(database: Path) -> None:
    runner = CliRunner()
    created = runner.invoke(main, ["users", "create-admin", "Boss@Example.com", "--password", STRONG_PASSWORD])
    assert created.exit_code == 0, created.output
    assert "created administrator boss@example.com" in created.output
    sql = "SELECT role, password_hash FROM user_account WHERE email = ?"
    [(role, password_hash)] = rows(database, sql, "boss@example.com")
    assert role == "admin" and password_hash.startswith("$argon2id$")

    demoted = runner.invoke(main, ["users", "set-role", "boss@example.com", "user"])
    assert demoted.exit_code == 0 and "boss@example.com is now user" in demoted.output
    assert rows(database, "SELECT role FROM user_account WHERE email = ?", "boss@example.com") == [("user",)]


def test_user_commands_report_clear_errors(database: Path) -> None:
    runner = CliRunner()
    weak = runner.invoke(main, ["users", "create-admin", "boss@example.com", "--password", "weak"])
    assert weak.exit_code == 1 and "password requirements" in weak.output
    unknown = runner.invoke(main, ["users", "set-role", "nobody@example.com", "admin"])
    assert unknown.exit_code == 1 and "No user with email nobody@example.com" in unknown.output
    bad_role = runner.invoke(main, ["users", "set-role", "nobody@example.com", "owner"])
    assert bad_role.exit_code == 2
    runner.invoke(main, ["users", "create-admin", "boss@example.com", "--password", STRONG_PASSWORD])
    twice = runner.invoke(main, ["users", "create-admin", "boss@example.com", "--password", STRONG_PASSWORD])
    assert twice.exit_code == 1 and "already exists" in twice.output
    assert rows(database, "SELECT count(*) FROM user_account") == [(1,)]


async def send_to_outbox(url: str) -> None:
    engine = create_engine(url)
    try:
        body = "Open this link:\nhttps://x/reset?token=t1"
        mail = OutgoingMail("ann@example.com", "Reset your PerilScope password", body)
        sessions = create_session_factory(engine)
        await OutboxMailer(sessions, SqlWriter(sessions), SystemClock()).send(mail)
    finally:
        await engine.dispose()


def test_mail_outbox_shows_stored_messages(database: Path) -> None:
    runner = CliRunner()
    assert "the outbox is empty" in runner.invoke(main, ["mail", "outbox"]).output
    asyncio.run(send_to_outbox(f"sqlite+aiosqlite:///{database}"))
    shown = runner.invoke(main, ["mail", "outbox", "--limit", "5"])
    assert shown.exit_code == 0, shown.output
    assert "to ann@example.com" in shown.output
    assert "Subject: Reset your PerilScope password" in shown.output
    assert "https://x/reset?token=t1" in shown.output


def test_serve_builds_links_from_its_host_and_port(database: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from entrypoints.settings import Settings

    monkeypatch.delenv("PERILSCOPE_BASE_URL", raising=False)
    seen: dict[str, str] = {}
    # The server process builds its settings from the environment serve leaves it.
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: seen.update(base_url=Settings.from_env().base_url))
    result = CliRunner().invoke(main, ["serve", "--host", "127.0.0.1", "--port", "9137"])
    assert result.exit_code == 0, result.output
    assert seen["base_url"] == "http://127.0.0.1:9137"

    monkeypatch.setenv("PERILSCOPE_BASE_URL", "https://risk.example.com")
    CliRunner().invoke(main, ["serve", "--port", "9137"])
    assert seen["base_url"] == "https://risk.example.com"  # a configured public URL wins


def test_uploads_purge_deletes_unused_uploads_past_the_retention(database: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERILSCOPE_UPLOAD_RETENTION_HOURS", "24")
    runner = CliRunner()
    runner.invoke(main, ["users", "create-admin", "boss@example.com", "--password", STRONG_PASSWORD])
    [(user_id,)] = rows(database, "SELECT id FROM user_account")
    now = datetime.now(UTC)
    with sqlite3.connect(database) as connection:
        for file_id, age in (("old", timedelta(hours=25)), ("new", timedelta(hours=1))):
            connection.execute(
                "INSERT INTO uploaded_file (id, user_id, name, content, row_count, size_bytes, created_at) "
                "VALUES (?, ?, 'a.csv', 'x', 1, 1, ?)",
                (file_id, user_id, (now - age).strftime("%Y-%m-%d %H:%M:%S.%f")),
            )
    purged = runner.invoke(main, ["uploads", "purge"])
    assert purged.exit_code == 0, purged.output
    assert "purged 1 upload(s)" in purged.output
    assert rows(database, "SELECT id FROM uploaded_file") == [("new",)]
def test_reset_mfa_turns_off_two_factor_sign_in(database: Path) -> None:
    runner = CliRunner()
    runner.invoke(main, ["users", "create-admin", "boss@example.com", "--password", STRONG_PASSWORD])
    [(user_id,)] = rows(database, "SELECT id FROM user_account")
    with sqlite3.connect(database) as connection:
        connection.execute(
            "INSERT INTO user_mfa (user_id, secret_sealed, enabled, created_at) VALUES (?, 'v1:x', 1, '2026-01-01')",
            (user_id,),
        )
        connection.execute(
            "INSERT INTO mfa_recovery_code (id, user_id, code_hash) VALUES ('c1', ?, 'h')", (user_id,)
        )
    reset = runner.invoke(main, ["users", "reset-mfa", "Boss@Example.com"])
    assert reset.exit_code == 0, reset.output
    assert "two-factor sign-in is off for boss@example.com" in reset.output
    assert rows(database, "SELECT count(*) FROM user_mfa") == [(0,)]
    assert rows(database, "SELECT count(*) FROM mfa_recovery_code") == [(0,)]
    # The owner is told, in case it was not them who asked.
    [(to, subject)] = rows(database, "SELECT to_address, subject FROM outbox_mail")
    assert to == "boss@example.com" and subject == "Two-factor sign-in is off for your PerilScope account"
    unknown = runner.invoke(main, ["users", "reset-mfa", "nobody@example.com"])
    assert unknown.exit_code == 1 and "No user with email nobody@example.com" in unknown.output

"""Settings refuse unsafe starts; unhandled errors are logged with a request id and leave no internals."""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path

import httpx
import pytest
from litestar import Litestar, get

from entrypoints.http.errors import EXCEPTION_HANDLERS
from entrypoints.http.request_id import request_id_middleware
from entrypoints.logging_setup import JsonFormatter
from entrypoints.settings import KNOWN_PUBLIC_SECRETS, Settings, SettingsError

OLD_PUBLISHED_DEFAULT = "dev-only-secret-change-me-in-production-please"


@pytest.mark.parametrize("environment", ["development", "test", "production"])
def test_a_published_secret_is_refused_in_every_mode(environment: str, tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="published"):
        Settings.from_env(
            {"PERILSCOPE_ENV": environment, "PERILSCOPE_SECRET_KEY": OLD_PUBLISHED_DEFAULT, "PERILSCOPE_VAR_DIR": str(tmp_path)}
        )
    assert OLD_PUBLISHED_DEFAULT in KNOWN_PUBLIC_SECRETS


def test_without_a_configured_secret_one_is_made_once_and_kept_private(tmp_path: Path) -> None:
    first = Settings.from_env({"PERILSCOPE_VAR_DIR": str(tmp_path)})
    secret_file = tmp_path / "secret_key"
    assert secret_file.read_text() == first.secret_key
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    assert len(first.secret_key) >= 32 and first.secret_key not in KNOWN_PUBLIC_SECRETS
    # The next start, and every other process on the machine, signs with the same key.
    assert Settings.from_env({"PERILSCOPE_VAR_DIR": str(tmp_path), "PERILSCOPE_ENV": "production"}).secret_key == first.secret_key
    other_machine = Settings.from_env({"PERILSCOPE_VAR_DIR": str(tmp_path / "elsewhere")})
    assert other_machine.secret_key != first.secret_key


def test_a_configured_secret_wins_and_writes_nothing(tmp_path: Path) -> None:
    settings = Settings.from_env({"PERILSCOPE_SECRET_KEY": "s" * 40, "PERILSCOPE_VAR_DIR": str(tmp_path)})
    assert settings.secret_key == "s" * 40
    assert not (tmp_path / "secret_key").exists()


def test_short_secrets_and_long_tokens_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsError):
        Settings.from_env({"PERILSCOPE_SECRET_KEY": "short"})
    with pytest.raises(SettingsError, match="50 minutes"):
        Settings.from_env({"PERILSCOPE_ACCESS_TOKEN_MINUTES": "60", "PERILSCOPE_VAR_DIR": str(tmp_path)})


def test_the_file_store_is_local_under_var_by_default_and_s3_needs_a_bucket(tmp_path: Path) -> None:
    settings = Settings.from_env({"PERILSCOPE_VAR_DIR": str(tmp_path)})
    assert (settings.file_store, settings.files_dir) == ("local", tmp_path.resolve() / "files")
    with pytest.raises(SettingsError, match="PERILSCOPE_S3_BUCKET"):
        Settings.from_env({"PERILSCOPE_VAR_DIR": str(tmp_path), "PERILSCOPE_FILE_STORE": "s3"})
    with pytest.raises(SettingsError, match="local, s3"):
        Settings.from_env({"PERILSCOPE_VAR_DIR": str(tmp_path), "PERILSCOPE_FILE_STORE": "ftp"})
    s3 = Settings.from_env({
        "PERILSCOPE_VAR_DIR": str(tmp_path), "PERILSCOPE_FILE_STORE": "s3", "PERILSCOPE_S3_BUCKET": "books",
        "PERILSCOPE_S3_ENDPOINT_URL": "http://minio:9000", "PERILSCOPE_S3_REGION": "us-east-1",
    })
    assert (s3.s3_bucket, s3.s3_endpoint_url, s3.s3_region) == ("books", "http://minio:9000", "us-east-1")


async def test_unhandled_error_is_logged_with_request_id_and_hidden(caplog: pytest.LogCaptureFixture) -> None:
    @get("/boom")
    async def boom() -> None:
        raise RuntimeError("database password is hunter2")

    app = Litestar([boom], exception_handlers=EXCEPTION_HANDLERS, middleware=[request_id_middleware], logging_config=None)
    with caplog.at_level(logging.ERROR, logger="perilscope.http"):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            response = await client.get("/boom")
    assert response.status_code == 500
    body = response.json()
    assert body["error"] == "Internal server error" and "hunter2" not in response.text
    assert body["request_id"] == response.headers["x-request-id"]
    record = next(r for r in caplog.records if r.getMessage() == "unhandled error")
    assert record.request_id == body["request_id"]
    line = json.loads(JsonFormatter().format(record))
    assert line["request_id"] == body["request_id"]
    # Where it failed is logged; the exception's text, which can quote request data, is not.
    assert "builtins.RuntimeError" in line["exc"] and "in boom" in line["exc"]
    assert "hunter2" not in json.dumps(line)


def test_batch_chunk_settings_come_from_the_environment_and_are_checked(tmp_path) -> None:  # noqa: ANN001
    base = {"PERILSCOPE_SECRET_KEY": "s" * 40, "PERILSCOPE_VAR_DIR": str(tmp_path)}
    settings = Settings.from_env({**base, "PERILSCOPE_BATCH_CHUNK_ROWS": "500", "PERILSCOPE_BATCH_CHUNK_ATTEMPTS": "5",
                                  "PERILSCOPE_BATCH_LEASE_SECONDS": "2.5", "PERILSCOPE_BATCH_SWEEP_SECONDS": "1"})
    assert (settings.batch_chunk_rows, settings.batch_chunk_attempts) == (500, 5)
    assert (settings.batch_lease_seconds, settings.batch_sweep_seconds) == (2.5, 1.0)
    assert Settings.from_env(base).batch_chunk_rows == 5000
    with pytest.raises(SettingsError, match="PERILSCOPE_BATCH_CHUNK_ROWS"):
        Settings.from_env({**base, "PERILSCOPE_BATCH_CHUNK_ROWS": "0"})
    with pytest.raises(SettingsError, match="PERILSCOPE_BATCH_LEASE_SECONDS"):
        Settings.from_env({**base, "PERILSCOPE_BATCH_LEASE_SECONDS": "0"})


def test_orphan_sweep_and_worker_metrics_settings_are_read_and_checked(tmp_path: Path) -> None:
    base = {"PERILSCOPE_SECRET_KEY": "s" * 40, "PERILSCOPE_VAR_DIR": str(tmp_path)}
    defaults = Settings.from_env(base)
    assert (defaults.orphan_file_age_seconds, defaults.orphan_sweep_seconds, defaults.worker_metrics_port) == (
        3600.0, 900.0, None)
    with pytest.raises(SettingsError, match="PERILSCOPE_ORPHAN_FILE_AGE_SECONDS"):
        Settings.from_env({**base, "PERILSCOPE_ORPHAN_FILE_AGE_SECONDS": "5"})
    with pytest.raises(SettingsError, match="needs PERILSCOPE_METRICS_TOKEN"):
        Settings.from_env({**base, "PERILSCOPE_WORKER_METRICS_PORT": "9464"})
    token = {"PERILSCOPE_METRICS_TOKEN": "t" * 24}
    served = Settings.from_env({**base, **token, "PERILSCOPE_WORKER_METRICS_PORT": "9464",
                                "PERILSCOPE_WORKER_PROCESSES": "4"})
    assert (served.worker_metrics_port, served.worker_processes, served.worker_metrics_host) == (9464, 4, "127.0.0.1")
    with pytest.raises(SettingsError, match="one port per worker process"):
        Settings.from_env({**base, **token, "PERILSCOPE_WORKER_METRICS_PORT": "65535", "PERILSCOPE_WORKER_PROCESSES": "2"})


def test_webhook_allowed_hosts_are_read_as_lower_case_names_and_ips(tmp_path: Path) -> None:
    env = {"PERILSCOPE_SECRET_KEY": "s" * 40, "PERILSCOPE_VAR_DIR": str(tmp_path)}
    assert Settings.from_env(env).webhook_allowed_hosts == ()
    allowed = Settings.from_env(env | {"PERILSCOPE_WEBHOOK_ALLOWED_HOSTS": " Receiver.Internal, 127.0.0.1,,[::1] "})
    assert allowed.webhook_allowed_hosts == ("receiver.internal", "127.0.0.1", "::1")

"""Settings refuse unsafe starts; unhandled errors are logged with a request id and leave no internals."""

from __future__ import annotations

import json
import logging

import httpx
import pytest
from litestar import Litestar, get

from entrypoints.http.errors import EXCEPTION_HANDLERS
from entrypoints.http.request_id import request_id_middleware
from entrypoints.logging_setup import JsonFormatter
from entrypoints.settings import DEFAULT_SECRET, Settings, SettingsError


def test_production_refuses_the_default_secret() -> None:
    with pytest.raises(SettingsError, match="PERILSCOPE_SECRET_KEY"):
        Settings.from_env({"PERILSCOPE_ENV": "production"})
    settings = Settings.from_env({"PERILSCOPE_ENV": "production", "PERILSCOPE_SECRET_KEY": "s" * 40})
    assert settings.secret_key != DEFAULT_SECRET
    assert Settings.from_env({}).is_development


def test_short_secrets_and_long_tokens_are_refused() -> None:
    with pytest.raises(SettingsError):
        Settings.from_env({"PERILSCOPE_SECRET_KEY": "short"})
    with pytest.raises(SettingsError, match="50 minutes"):
        Settings.from_env({"PERILSCOPE_ACCESS_TOKEN_MINUTES": "60"})


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

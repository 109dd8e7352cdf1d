"""The API keeps the contract of its own /schema/openapi.json: schemathesis sends generated
requests (valid and invalid) to every operation of a real server, on SQLite and PostgreSQL,
signed in as an administrator so that every route is reached, and checks each answer: never a
5xx, only documented statuses, bodies that match their documented schema (errors included).

Bounded: a fixed, derandomized number of examples per operation, so the run is repeatable
and takes seconds. `positive_data_acceptance` is left out by design: the schema describes
shapes, while rules such as password strength or a valid e-mail answer 400 (documented)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import BACKENDS, STRONG_PASSWORD, throwaway_database
from tests.processes import create_admin, start_server, stop

EXAMPLES_PER_OPERATION = 15
EXCLUDED_CHECKS = (
    # The schema gives shapes; rules like password strength or a real e-mail answer a documented 400.
    "positive_data_acceptance",
    # Litestar 2 answers OPTIONS on a path with two handlers (GET and PATCH /api/auth/me) with an
    # Allow header naming only the first (litestar-org/litestar#4169, fixed in Litestar 3).
    "allow_header_conformance",
)
SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
ADMIN_EMAIL = "contract-admin@example.com"


# Each backend's server is started once, on one worker of a parallel run: the two run side by side.
@pytest.fixture(scope="module", params=[pytest.param(b, marks=pytest.mark.xdist_group(f"contract_{b}")) for b in BACKENDS])
def api_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """`perilscope serve` on a free port with a database of its own (what it writes is committed)."""
    directory = tmp_path_factory.mktemp(f"contract-{request.param}")
    with throwaway_database(request.param, directory) as database_url:
        env = {"DATABASE_URL": database_url, "PERILSCOPE_ENV": "test", "PERILSCOPE_LOG_LEVEL": "WARNING"}
        create_admin(env, ADMIN_EMAIL)
        log = directory / "server.log"
        server, base_url = start_server(env, log)
        try:
            login = httpx.post(f"{base_url}/api/auth/login", json={"email": ADMIN_EMAIL, "password": STRONG_PASSWORD})
            assert login.status_code == 200, login.text
            token = login.json()["access_token"]
            yield {
                "base_url": base_url, "token": token, "api_key": _public_api_key(base_url, token, login.json()["user"]["uid"]),
                "log": log, "directory": directory,
            }
        finally:
            stop(server)


def _public_api_key(base_url: str, token: str, uid: str) -> str:
    """An API key of the administrator, with a daily limit the run cannot use up, so that the
    public API's operations (/api/v1) are reached too: they take a key, never a web session."""
    signed_in = {"Authorization": f"Bearer {token}"}
    plan = httpx.post(
        f"{base_url}/api/admin/update-user-plan", json={"uid": uid, "plan": "enterprise", "daily_limit": 1_000_000},
        headers=signed_in,
    )
    assert plan.status_code == 200, plan.text
    created = httpx.post(f"{base_url}/api/api-keys", json={"name": "contract", "scopes": ["read", "batch"]}, headers=signed_in)
    assert created.status_code == 201, created.text
    return created.json()["key"]


def test_every_operation_keeps_its_documented_contract(api_server: dict) -> None:
    # The schemathesis command, not its pytest plugin (which does not run on pytest 9): its
    # examples, coverage (boundary values) and fuzzing phases, valid and invalid data, NUL included.
    run = subprocess.run(
        [
            SCHEMATHESIS, "run", f"{api_server['base_url']}/schema/openapi.json",
            "--header", f"Authorization: Bearer {api_server['token']}",
            "--header", f"X-API-Key: {api_server['api_key']}",
            "--checks", "all",
            "--exclude-checks", ",".join(EXCLUDED_CHECKS),
            "--phases", "examples,coverage,fuzzing",
            "--max-examples", str(EXAMPLES_PER_OPERATION),
            "--seed", "1",
            "--generation-deterministic",
            "--generation-allow-x00", "true",
            "--workers", "1",
            "--max-failures", "100",
            "--request-timeout", "30",
            "--no-color",
        ],
        capture_output=True, text=True, timeout=300,
        cwd=api_server["directory"],  # schemathesis keeps a cache of past crashes in the working directory
    )
    assert run.returncode == 0, run.stdout[-20_000:] + run.stderr[-5_000:]
    assert "API Operations:" in run.stdout and "Test cases:" in run.stdout, run.stdout


DEEP_BODY = "[" * 1000 + "]" * 1000  # past any decoder's stack unless the depth is bounded first


def test_a_deeply_nested_body_is_a_documented_400_on_every_json_operation(api_server: dict) -> None:
    """The case schemathesis does not generate: a body nested a thousand levels deep, sent to every
    operation that takes JSON, signed in and not, answers the usual 400 error body."""
    schema = httpx.get(f"{api_server['base_url']}/schema/openapi.json").json()
    signed_in = {"Authorization": f"Bearer {api_server['token']}", "X-API-Key": api_server["api_key"]}
    sent = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if "application/json" not in operation.get("requestBody", {}).get("content", {}):
                continue
            url = api_server["base_url"] + re.sub(r"\{[^}]+\}", "x", path)
            for headers in ({}, signed_in):
                answer = httpx.request(method, url, content=DEEP_BODY,
                                       headers={**headers, "Content-Type": "application/json"}, timeout=30)
                sent += 1
                where = f"{method.upper()} {path} ({'signed in' if headers else 'anonymous'})"
                assert answer.status_code in (400, 401), f"{where}: {answer.status_code} {answer.text[:300]}"
                if answer.status_code == 400:
                    assert "400" in operation["responses"], f"{where}: 400 is not documented"
                    assert answer.json()["code"] == "invalid_input" and answer.json()["status"] == "error", where
    assert sent > 40  # every JSON operation of the API, twice


def test_the_server_logged_no_unhandled_error(api_server: dict) -> None:
    """Runs after the contract test on the same server: nothing there made a 500 behind the scenes."""
    assert "unhandled error" not in api_server["log"].read_text()

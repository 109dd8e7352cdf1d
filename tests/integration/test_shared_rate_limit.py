"""Two real server processes share one request rate limit: requests split between them are
refused once the limit is reached in total, on one SQLite file and on PostgreSQL with Redis;
and with PROMETHEUS_MULTIPROC_DIR either one's /metrics counts the requests of both."""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import cycle, islice
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from sqlalchemy import delete

from adapters.db.account_tables import UserRow
from adapters.db.engine import create_engine
from tests.conftest import IN_CI, STRONG_PASSWORD
from tests.integration.test_taskiq_worker import REDIS_URL, _redis_up
from tests.processes import create_admin, start_server, stop

PER_MINUTE = 6
METRICS_TOKEN = secrets.token_urlsafe(32)
SEATTLE = "701 5th Ave, Seattle, WA 98104"
# The module's two servers are started once, on one worker of a parallel run.
pytestmark = pytest.mark.xdist_group("two_servers")


@dataclass
class TwoServers:
    urls: list[str]
    env: dict[str, str]
    emails: list[str]  # the users made for the module, deleted after it

    def new_user_token(self) -> str:
        """A new user's access token: a user of its own has counters of its own."""
        email = f"limits-{uuid.uuid4().hex[:8]}@example.com"
        create_admin(self.env, email)
        self.emails.append(email)
        login = httpx.post(f"{self.urls[0]}/api/auth/login", json={"email": email, "password": STRONG_PASSWORD})
        assert login.status_code == 200, login.text
        return login.json()["access_token"]


@pytest.fixture(scope="module")
def two_servers(migrated_database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TwoServers]:
    """Two `perilscope serve` processes on one database: on SQLite the counters live in the
    file; on PostgreSQL they live in Redis (as with the Redis queue)."""
    tmp_path = tmp_path_factory.mktemp("two-servers")
    (tmp_path / "metrics").mkdir()
    env = {
        "DATABASE_URL": migrated_database_url, "PERILSCOPE_ENV": "test", "PERILSCOPE_LOG_LEVEL": "WARNING",
        "PERILSCOPE_RATE_LIMIT_PER_MINUTE": str(PER_MINUTE), "PERILSCOPE_VAR_DIR": str(tmp_path / "var"),
        "PERILSCOPE_THROTTLE": "database",
        "PERILSCOPE_METRICS_TOKEN": METRICS_TOKEN, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
    }
    if migrated_database_url.startswith("postgresql"):
        if not _redis_up():
            if IN_CI:
                pytest.fail("Redis at 127.0.0.1:6379 is required under CI=true")
            pytest.skip("Redis at 127.0.0.1:6379 is unavailable")
        env.update(PERILSCOPE_THROTTLE="redis", REDIS_URL=REDIS_URL)
    emails: list[str] = []
    servers = []
    try:
        for name in ("first", "second"):
            servers.append(start_server(env, tmp_path / f"{name}.log"))
        urls = [url for _, url in servers]
        yield TwoServers(urls, env, emails)
    finally:
        for server, _ in servers:
            stop(server)
        asyncio.run(_delete_users(migrated_database_url, emails))


async def _delete_users(database_url: str, emails: list[str]) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(delete(UserRow).where(UserRow.email.in_(emails)))
    finally:
        await engine.dispose()


def test_requests_split_between_two_servers_share_one_limit(two_servers: TwoServers) -> None:
    # The windows are whole minutes of the clock the servers and this test share. A run that
    # crossed into the next minute proves nothing: it is run again by a new user, with counters of
    # its own (a crossing is rare: the requests take well under a second).
    for _attempt in range(3):
        token = two_servers.new_user_token()
        started_in = int(time.time() // 60)
        statuses = [_nearby_search(url, token) for url in islice(cycle(two_servers.urls), PER_MINUTE + 4)]
        if int(time.time() // 60) == started_in:
            break
    else:
        pytest.fail("three runs in a row crossed a minute's end")
    # Each server alone would admit PER_MINUTE; together they admit PER_MINUTE, then refuse.
    assert statuses == [200] * PER_MINUTE + [429] * 4, statuses


def _nearby_search(url: str, token: str) -> int:
    answer = httpx.get(
        f"{url}/api/nearby-search", params={"address": SEATTLE}, headers={"Authorization": f"Bearer {token}"}, timeout=120,
    )
    if answer.status_code == 429:
        assert answer.json()["code"] == "rate_limited" and int(answer.headers["retry-after"]) >= 1
    return answer.status_code


def test_either_servers_metrics_count_the_requests_of_both(two_servers: TwoServers) -> None:
    urls = two_servers.urls
    for url in urls:
        for _ in range(3):
            assert httpx.get(f"{url}/health").status_code == 200
    for url in urls:
        scraped = httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        assert scraped.status_code == 200, scraped.text
        health = [
            sample.value
            for family in text_string_to_metric_families(scraped.text)
            for sample in family.samples
            if sample.name == "perilscope_http_requests_total" and sample.labels.get("path") == "/health"
        ]
        assert health == [6.0]

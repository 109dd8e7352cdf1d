"""/metrics: Prometheus text for the bearer of PERILSCOPE_METRICS_TOKEN only; requests counted
by route template and status; lookups timed by the application."""

from __future__ import annotations

import dataclasses
import math
import secrets

import pytest
from dependency_injector import providers
from httpx import AsyncClient
from prometheus_client.parser import text_string_to_metric_families

from application.ports.batch import QueueDepth
from entrypoints.container import Container
from tests.api.test_batch import _run_batch
from tests.conftest import sign_up_and_log_in

TOKEN = secrets.token_urlsafe(32)
SEATTLE = "701 5th Ave, Seattle, WA 98104"


@pytest.fixture
def metrics_on(container: Container) -> Container:
    container.settings.override(providers.Object(dataclasses.replace(container.settings(), metrics_token=TOKEN)))
    return container


async def scrape(client: AsyncClient) -> dict[tuple[str, frozenset], float]:
    answer = await client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def requests_counted(samples: dict, path: str, status: int) -> float:
    labels = frozenset({"method": "GET", "path": path, "status_code": str(status), "app_name": "perilscope"}.items())
    return samples.get(("perilscope_http_requests_total", labels), 0.0)


async def test_without_a_token_setting_there_are_no_metrics(client: AsyncClient) -> None:
    answer = await client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status_code == 404
    assert "perilscope_" not in answer.text


async def test_only_the_bearer_of_the_token_reads_metrics(metrics_on: Container, client: AsyncClient) -> None:
    assert (await client.get("/metrics")).status_code == 401
    wrong = await client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN[:-1]}x"})
    assert wrong.status_code == 401 and "perilscope_" not in wrong.text
    user = await sign_up_and_log_in(client, "metrics-user@example.com")  # a user's session is not the token
    assert (await client.get("/metrics", headers=user["headers"])).status_code == 401


async def test_requests_are_counted_by_route_template_and_status(metrics_on: Container, client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "metrics-counted@example.com")
    before = await scrape(client)
    assert (await client.get("/api/nearby-search", params={"address": SEATTLE}, headers=user["headers"])).status_code == 200
    for name in ("one.csv", "two.csv"):  # two raw paths, one route
        assert (await client.get(f"/api/download/{name}", headers=user["headers"])).status_code == 404
    after = await scrape(client)

    assert requests_counted(after, "/api/nearby-search", 200) == requests_counted(before, "/api/nearby-search", 200) + 1
    template = "/api/download/{filename}"
    assert requests_counted(after, template, 404) == requests_counted(before, template, 404) + 2
    assert not any("one.csv" in str(labels) for _, labels in after)  # raw paths never become labels
    duration = ("perilscope_http_request_duration_seconds_count",
                frozenset({"method": "GET", "path": "/api/nearby-search", "status_code": "200", "app_name": "perilscope"}.items()))
    assert after[duration] == before.get(duration, 0.0) + 1


async def test_lookups_are_timed_by_the_application(metrics_on: Container, client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "metrics-lookup@example.com")
    key = ("perilscope_lookup_seconds_count", frozenset({"source": "single", "located": "yes"}.items()))
    before = (await scrape(client)).get(key, 0.0)
    assert (await client.get("/api/nearby-search", params={"address": SEATTLE}, headers=user["headers"])).status_code == 200
    after = await scrape(client)
    assert after[key] == before + 1
    assert ("perilscope_batch_jobs_running", frozenset()) in after



async def test_batch_chunks_are_timed_and_their_rows_counted(metrics_on: Container, client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "metrics-batch@example.com")
    done = ("perilscope_batch_chunk_seconds_count", frozenset({"outcome": "done"}.items()))
    rows = ("perilscope_batch_rows_processed_total", frozenset())
    before = await scrape(client)
    job = await _run_batch(client, metrics_on, user["headers"])
    assert job["status"] == "done", job
    after = await scrape(client)
    assert after[done] == before.get(done, 0.0) + 1  # three rows: one chunk
    assert after[rows] == before.get(rows, 0.0) + 3
    assert after[("perilscope_batch_chunks_in_flight", frozenset())] == 0


class FixedDepthQueue:
    def __init__(self, depth: QueueDepth | None) -> None:
        self._depth = depth

    async def depth(self) -> QueueDepth:
        if self._depth is None:
            raise ConnectionError("the queue is unreachable")
        return self._depth


async def test_the_job_queues_depth_is_read_at_each_scrape(metrics_on: Container, client: AsyncClient) -> None:
    waiting, taken = ("perilscope_batch_queue_waiting", frozenset()), ("perilscope_batch_queue_taken", frozenset())
    with metrics_on.job_queue.override(providers.Object(FixedDepthQueue(QueueDepth(waiting=4, taken=1)))):
        samples = await scrape(client)
    assert (samples[waiting], samples[taken]) == (4, 1)
    with metrics_on.job_queue.override(providers.Object(FixedDepthQueue(None))):
        samples = await scrape(client)  # still served, the depth unknown (not 0, not the last reading)
    assert math.isnan(samples[waiting]) and math.isnan(samples[taken])
    samples = await scrape(client)  # the real, idle, in-process queue
    assert (samples[waiting], samples[taken]) == (0, 0)

"""How responsive the server stays while it runs a batch in-process: GET /health sent every
10 ms, for as long as a batch of unique real-looking addresses runs (embedded default: SQLite,
in-process jobs, one server worker). Requests leave on schedule whether or not earlier ones have
answered, and each is timed from when it was due, so a frozen loop shows in every request that
arrived during the freeze (a client that waits for each answer would mostly measure the gaps).

    .venv/bin/python bench/health_during_batch.py [--rows 100000] [--mode job|search]

--mode job (default) uploads the file and starts a batch job (POST /api/batch-jobs), measuring
until the job is done; --mode search measures during the older one-request POST /api/search.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from bench.batch import build_input  # noqa: E402
from bench.loadgen import percentile  # noqa: E402
from bench.server import admin_token, running_server  # noqa: E402
from entrypoints.settings import Settings  # noqa: E402


async def _job_until_done(client: httpx.AsyncClient, file_id: str) -> dict:
    started = await client.post("/api/batch-jobs", json={"file_id": file_id})
    started.raise_for_status()
    job_id = started.json()["job"]["id"]
    while True:
        job = (await client.get(f"/api/batch-jobs/{job_id}")).json()["job"]
        if job["status"] in ("done", "failed"):
            return job
        await asyncio.sleep(0.5)


async def _legacy_search(client: httpx.AsyncClient, file_id: str) -> dict:
    response = await client.post("/api/search", json={"file_id": file_id})
    response.raise_for_status()
    return {"status": "done", "rows": len(response.json()["data"])}


HEALTH_INTERVAL_SECONDS = 0.01


async def _health_on_schedule(base_url: str, stop: Callable[[], bool]) -> tuple[list[float], list[str]]:
    """(latency of each GET /health, timed from when it was due; the errors among them)."""
    latencies: list[float] = []
    failures: list[str] = []
    limits = httpx.Limits(max_connections=500, max_keepalive_connections=500)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=120) as client:

        async def one(due: float) -> None:
            try:
                (await client.get("/health")).raise_for_status()
            except httpx.HTTPError as error:  # a server too busy to accept: counted as waited until now
                failures.append(repr(error))
            latencies.append(time.perf_counter() - due)

        requests = []
        due = time.perf_counter()
        while not stop():
            requests.append(asyncio.create_task(one(due)))
            due += HEALTH_INTERVAL_SECONDS
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
        await asyncio.gather(*requests)
    return latencies, failures


async def measure(base_url: str, token: str, content: bytes, mode: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=600) as client:
        upload = await client.post("/api/upload-csv", files={"file": ("portfolio.csv", content, "text/csv")})
        upload.raise_for_status()
        file_id = upload.json()["file_id"]

        started = time.perf_counter()
        work = asyncio.create_task(_job_until_done(client, file_id) if mode == "job" else _legacy_search(client, file_id))
        health = asyncio.create_task(_health_on_schedule(base_url, work.done))
        result = await work
        elapsed = time.perf_counter() - started
        latencies, failures = await health

    if result["status"] != "done":
        raise SystemExit(f"the batch failed: {result}")
    rows = len(content.splitlines()) - 1
    what = "batch job (upload done, start to export ready)" if mode == "job" else "POST /api/search"
    print(f"{rows:,} unique addresses, {what}: {elapsed:.1f} s, {rows / elapsed:,.0f} addresses/s")
    print(
        f"GET /health every {HEALTH_INTERVAL_SECONDS * 1000:.0f} ms during it: {len(latencies):,} requests  "
        f"p50 {percentile(latencies, 50) * 1000:6.1f} ms  p99 {percentile(latencies, 99) * 1000:6.1f} ms  max {max(latencies) * 1000:7.1f} ms"
        + (f"  ({len(failures)} failed, e.g. {failures[0]})" if failures else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--mode", choices=("job", "search"), default="job")
    args = parser.parse_args()

    content = build_input(args.rows, Settings.from_env().data_dir, unique=True)
    with running_server() as (base_url, env):
        token = admin_token(base_url, env)
        settings = {"monthly_search_limit": 10, "rate_limiting": False, "search_caching": False}
        headers = {"Authorization": f"Bearer {token}"}
        httpx.put(f"{base_url}/api/admin/settings", json=settings, headers=headers).raise_for_status()
        # A server that has answered a lookup has its reference data in memory, as in production.
        warm_up = httpx.get(f"{base_url}/api/nearby-search", params={"address": "701 5th Ave, Seattle, WA 98104"}, headers=headers)
        warm_up.raise_for_status()
        asyncio.run(measure(base_url, token, content, args.mode))


if __name__ == "__main__":
    main()

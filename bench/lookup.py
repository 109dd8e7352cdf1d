"""Latency of GET /api/nearby-search at 32 concurrent clients on the embedded default
(SQLite, embedded data), with GET /health's throughput in the same run as the framework floor.

    .venv/bin/python bench/lookup.py [--requests 2000] [--concurrency 32] [--workers 1] [--rate-limited]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.loadgen import percentile, run  # noqa: E402
from bench.server import admin_token, running_server  # noqa: E402
from urllib.parse import quote  # noqa: E402

import httpx  # noqa: E402

# Real addresses: Seattle buildings with many occupants, and ZIPs across the country.
ADDRESSES = [
    "701 5th Ave, Seattle, WA 98104",
    "601 Union St, Seattle, WA 98101",
    "1420 5th Ave, Seattle, WA 98101",
    "100 Biscayne Blvd, Miami, FL 33130",
    "1600 Pennsylvania Ave NW, Washington, DC 20500",
    "200 E Colfax Ave, Denver, CO 80203",
    "233 S Wacker Dr, Chicago, IL 60606",
    "1 Market St, San Francisco, CA 94105",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--cached", action="store_true", help="serve repeat addresses from the search cache")
    parser.add_argument("--rate-limited", action="store_true",
                        help="count every request in the shared per-user rate limit (a limit this run never reaches)")
    args = parser.parse_args()
    if args.rate_limited:
        os.environ["PERILSCOPE_RATE_LIMIT_PER_MINUTE"] = str(10 * args.requests)

    with running_server(workers=args.workers) as (base_url, env):
        headers = {"Authorization": f"Bearer {admin_token(base_url, env)}"}
        # Measure the full lookup: no answers from the 24-hour cache, no per-user rate limit.
        # (--cached measures the cache instead; --rate-limited the limit's counter.)
        settings = {"monthly_search_limit": 10, "rate_limiting": args.rate_limited, "search_caching": args.cached}
        httpx.put(f"{base_url}/api/admin/settings", json=settings, headers=headers).raise_for_status()
        # Warm up: first requests load usaddress's model and fill connection pools.
        def lookup_path(i: int) -> str:
            return f"/api/nearby-search?address={quote(ADDRESSES[i % len(ADDRESSES)])}"

        asyncio.run(run(base_url, lookup_path, 200, 8, headers))
        health, health_wall, health_errors = asyncio.run(run(base_url, lambda i: "/health", args.requests * 5, args.concurrency))
        lookups, lookup_wall, lookup_errors = asyncio.run(run(base_url, lookup_path, args.requests, args.concurrency, headers))
        if health_errors or lookup_errors:
            raise SystemExit(f"errors: {(health_errors + lookup_errors)[:5]}")

    print(f"GET /health             {len(health) / health_wall:8.0f} req/s   "
          f"p50 {percentile(health, 50) * 1000:6.1f} ms  p99 {percentile(health, 99) * 1000:6.1f} ms")
    print(f"GET /api/nearby-search  {len(lookups) / lookup_wall:8.0f} req/s   "
          f"p50 {percentile(lookups, 50) * 1000:6.1f} ms  p99 {percentile(lookups, 99) * 1000:6.1f} ms   "
          f"(mean {statistics.mean(lookups) * 1000:.1f} ms, {args.concurrency} clients, {args.requests} requests, "
          f"{args.workers} server worker(s), cache {'on' if args.cached else 'off'}, "
          f"rate limit {'counted' if args.rate_limited else 'off'})")


if __name__ == "__main__":
    main()

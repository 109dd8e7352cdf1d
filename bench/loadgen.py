"""A small closed-loop HTTP/1.1 load generator on asyncio streams (keep-alive, one request in
flight per connection). Lighter than a full client library, so on a 2-core machine it takes
less CPU from the server it measures."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from urllib.parse import urlsplit


async def _one_client(host: str, port: int, next_path: Callable[[], str | None], headers: str, latencies: list[float], errors: list[str]) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while (path := next_path()) is not None:
            started = time.perf_counter()
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{headers}\r\n".encode())
            status_line = await reader.readline()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - started)
            if b" 200 " not in status_line:
                errors.append(status_line.decode().strip())
    finally:
        writer.close()


async def run(base_url: str, paths: Callable[[int], str], total: int, concurrency: int, headers: dict[str, str] | None = None) -> tuple[list[float], float, list[str]]:
    """Returns (latencies in seconds, wall seconds, error status lines)."""
    parts = urlsplit(base_url)
    header_text = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    counter = iter(range(total))
    latencies: list[float] = []
    errors: list[str] = []

    def next_path() -> str | None:
        i = next(counter, None)
        return None if i is None else paths(i)

    started = time.perf_counter()
    await asyncio.gather(*(_one_client(parts.hostname, parts.port, next_path, header_text, latencies, errors) for _ in range(concurrency)))
    return latencies, time.perf_counter() - started, errors


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]

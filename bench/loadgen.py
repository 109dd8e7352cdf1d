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


class TimedRun:
    """What one timed run saw: each request's latency, the status lines, the answers served from
    the search cache, and the wall time."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.statuses: dict[str, int] = {}
        self.cache_hits = 0
        self.wall = 0.0

    @property
    def per_second(self) -> float:
        return len(self.latencies) / self.wall if self.wall else 0.0


# msgspec writes JSON without spaces, so a cached answer's receipt holds exactly these bytes; a
# substring test costs the generator far less CPU than parsing each answer.
FROM_CACHE = b'"from_cache":true'


async def _timed_client(host: str, port: int, next_path: Callable[[], str], headers: str, deadline: float,
                        seen: TimedRun) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < deadline:
            path = next_path()
            started = time.perf_counter()
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{headers}\r\n".encode())
            status_line = await reader.readline()
            if not status_line:
                raise ConnectionError("the server closed the connection")
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            body = await reader.readexactly(length)
            seen.latencies.append(time.perf_counter() - started)
            status = status_line.decode("latin-1").split(" ", 2)[1]
            seen.statuses[status] = seen.statuses.get(status, 0) + 1
            seen.cache_hits += FROM_CACHE in body
    finally:
        writer.close()


async def run_for(base_url: str, seconds: float, next_path: Callable[[], str],
                  client_headers: list[dict[str, str]]) -> TimedRun:
    """One connection per entry of `client_headers` (a user's token, an API key), each sending its
    next request as soon as the last is answered, until `seconds` have passed. `next_path` is
    shared by all, so paths it hands out are never repeated."""
    parts = urlsplit(base_url)
    seen = TimedRun()
    started = time.perf_counter()
    deadline = started + seconds
    await asyncio.gather(*(
        _timed_client(parts.hostname, parts.port, next_path, "".join(f"{k}: {v}\r\n" for k, v in headers.items()),
                      deadline, seen)
        for headers in client_headers
    ))
    seen.wall = time.perf_counter() - started
    return seen

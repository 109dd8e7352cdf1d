"""Batch throughput: from upload to export, for inputs built from the real data, with peak memory.

    .venv/bin/python bench/batch.py --rows 100000 --unique            # in this process, embedded default
    .venv/bin/python bench/batch.py --rows 100000 --unique --http     # a real server: upload, job, download
    .venv/bin/python bench/batch.py --rows 100000 --unique --http --local-workers 0  # the server alone
    .venv/bin/python bench/batch.py --rows 100000 --unique --workers 2  # PostgreSQL + Redis, 2 worker processes
    .venv/bin/python bench/batch.py --rows 1000000 --unique --workers 2 --jobs 4  # 4 jobs of 250,000 at once

--unique makes every address different, so no answer is reused (repeats flatter the figure).
Over HTTP, the detailed CSV is downloaded too (its time, MB/s and time to the first bytes), and each
process's resident memory is sampled: the bench prints its peak in each phase (upload, job,
downloads, portfolio). --trace-memory starts Python's tracemalloc in the server and its workers
and writes their largest live allocations after each phase to /tmp/perilscope-trace-<pid>-<n>.txt
(slow: for finding where memory goes, not for timing).

--workers N runs the server with the Taskiq queue on the local Redis and a new PostgreSQL database
(127.0.0.1, user postgres), and N `perilscope worker` processes sharing the job's chunks.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import gzip
import io
import json
import random
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.ports.accounts import AccessClaims  # noqa: E402
from domain.accounts import Role  # noqa: E402
from bench.server import PERILSCOPE, admin_token, child_pids, cpu_seconds, peak_rss_mb, running_server  # noqa: E402
from entrypoints.settings import Settings, default_local_workers  # noqa: E402

# A job's status is asked for as often as the dashboard asks (JOB_POLL_MS in
# web/src/features/search/useBatchJobs.ts): each ask is the server's work, on the workers' cores.
POLL_SECONDS = 1.0


def build_input(rows: int, data_dir: Path, seed: int = 7, unique: bool = False) -> bytes:
    """Half real Seattle addresses (buildings and businesses), half street addresses in real ZIPs
    across the country (their occupants are unknown, their perils are real). With unique, no
    address repeats, so the job answers every row rather than reusing answers."""
    rng = random.Random(seed)
    seattle = []
    with open(data_dir / "buildings_seattle_2016.csv", newline="") as handle:
        seattle += [(r["Address"], r["City"], r["State"], r["ZipCode"]) for r in csv.DictReader(handle) if r["ZipCode"]]
    with gzip.open(data_dir / "businesses_seattle_active_2026.csv.gz", "rt", newline="") as handle:
        seattle += [(r["street_address"], r["city"], r["state"], r["zip"]) for r in csv.DictReader(handle) if r["zip"]]
    with gzip.open(data_dir / "zip_county_primary.csv.gz", "rt", newline="") as handle:
        zips = [(r["zip"], r["city"], r["state"]) for r in csv.DictReader(handle) if r["state"]]
    if unique:
        seattle = list(dict.fromkeys(seattle))
        rng.shuffle(seattle)
    written: set[tuple[str, str, str, str]] = set()
    out = io.StringIO()
    writer = csv.writer(out)
    # A schedule's own column beside the address: its total insured value (made up, as the
    # street numbers are), which the portfolio summary can sum by county and rating.
    writer.writerow(["Street Address", "City", "State", "Zip", "Country", "TIV"])
    count = 0
    while count < rows:
        if count % 2 == 0 and seattle:
            address = seattle.pop() if unique else rng.choice(seattle)
        else:
            zip_code, city, state = rng.choice(zips)
            street = f"{rng.randint(1, 9999)} {rng.choice(['Main St', 'Oak Ave', 'Park Rd', '1st St', 'Elm Dr'])}"
            address = (street, city, state, zip_code)
        if unique:
            if address in written:
                continue
            written.add(address)
        writer.writerow([*address, "US", rng.randrange(50_000, 5_000_000, 1_000)])
        count += 1
    return out.getvalue().encode()


# Room for a million rows' export (about 5.8 GB, as stored today): the bench measures speed, and a
# batch that could never fit the storage allowance is refused at its start.
BENCH_STORAGE = {"PERILSCOPE_USER_STORAGE_BYTES": str(16 * 2**30)}


async def run(rows: int, unique: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="perilscope-batch-") as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/bench.db"
        env = {"DATABASE_URL": url, "PERILSCOPE_ENV": "test", "PATH": "", "PERILSCOPE_FILES_DIR": f"{tmp}/files"}
        perilscope = str(Path(sys.executable).parent / "perilscope")
        for command in (["db", "upgrade"], ["data", "load"], ["users", "create-admin", "bench@example.com", "--password", "Bench!pass1"]):
            subprocess.run([perilscope, *command], env=env, check=True, capture_output=True, cwd=ROOT)

        from entrypoints.container import build_container

        settings = Settings.from_env({"DATABASE_URL": url, "PERILSCOPE_ENV": "test", "PERILSCOPE_FILES_DIR": f"{tmp}/files",
                                      **BENCH_STORAGE})
        container = build_container(settings)
        user = await container.accounts().set_role("bench@example.com", Role.ADMIN)
        caller = AccessClaims(user.id)
        content = build_input(rows, settings.data_dir, unique=unique)
        await container.reference_index().data()  # loaded once per server start, not per batch

        started, cpu_started = time.perf_counter(), time.process_time()
        upload = await container.batch().upload(caller, "bench.csv", content)
        job = await container.batch().start(caller, upload.id)
        await container.job_queue().drain()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started

        finished = await container.batch().job(caller, job.id)
        assert finished.status == "done", finished
        export = await container.batch().export(caller, finished.export_name)
        stored = await stored_bytes(container.file_store(), export)
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{rows:>7,} addresses  upload to export ready {elapsed:6.1f} s  {rows / elapsed:7,.0f} addresses/s  "
            f"export {export.size_bytes / 1e6:5.1f} MB  stored {stored / rows:7,.0f} bytes per row  "
            f"peak RSS {peak_mb:5.0f} MB\n"
            # CPU time holds still on a machine others are using too, where wall time does not.
            f"{'':>7}  CPU {cpu:6.1f} s  {rows / cpu:7,.0f} addresses per CPU-second"
        )
        await container.engine().dispose()


def resident_mb(pid: int, field: str = "VmRSS") -> float | None:
    """A process's resident memory now (`field`: VmRSS, or RssAnon: its own data, or RssFile: the
    code and files it maps, shared with other processes)."""
    try:
        return next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                    if line.startswith(field + ":")) / 1024
    except (OSError, StopIteration):
        return None


class MemoryPhases:
    """Each process's resident memory (the server, its children, the workers), sampled every
    `interval` s: the peak of each phase, a phase ending at each `mark`."""

    def __init__(self, processes: list[subprocess.Popen], interval: float = 0.05) -> None:
        self._processes = processes
        self._interval = interval
        self._peaks: dict[str, float] = {}
        self.phases: list[tuple[str, dict[str, float], dict[str, str]]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def pids(self) -> dict[str, int]:
        named = {"server": self._processes[0].pid}
        for process in self._processes[1:]:
            named[f"worker {len(named)}"] = process.pid
        for child in child_pids(self._processes[0].pid):
            named[f"server's child {child}"] = child
        return named

    def _sample(self) -> None:
        while not self._stop.wait(self._interval):
            sizes = {name: resident_mb(pid) for name, pid in self.pids().items()}
            with self._lock:
                for name, size in sizes.items():
                    if size is not None:
                        self._peaks[name] = max(self._peaks.get(name, 0.0), size)

    def __enter__(self) -> MemoryPhases:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def mark(self, phase: str) -> None:
        now = {name: f"{resident_mb(pid, 'RssAnon') or 0:.0f}+{resident_mb(pid, 'RssFile') or 0:.0f}"
               for name, pid in self.pids().items()}
        with self._lock:
            self.phases.append((phase, dict(self._peaks), now))
            self._peaks.clear()

    def report(self) -> str:
        lines = ["  peak resident memory (MB) in each phase (at its end: own data + mapped code and files):"]
        for phase, peaks, now in self.phases:
            lines.append(f"    {phase:<24}" + ", ".join(f"{name} {peak:4.0f} ({now.get(name, '?')})"
                                                       for name, peak in sorted(peaks.items())))
        return "\n".join(lines)


# Started in every Python process of the server when --trace-memory: tracemalloc, and on SIGUSR1
# the largest live allocations (by line) written to /tmp/perilscope-trace-<pid>-<n>.txt.
TRACE_SITECUSTOMIZE = """
import os, signal, tracemalloc
tracemalloc.start(int(os.environ.get("PERILSCOPE_TRACE_FRAMES", "1")))
_count = [0]
def _dump(*_):
    _count[0] += 1
    snapshot = tracemalloc.take_snapshot()
    stats = snapshot.statistics("lineno")
    with open(f"/tmp/perilscope-trace-{os.getpid()}-{_count[0]}.txt", "w") as out:
        current, peak = tracemalloc.get_traced_memory()
        out.write(f"traced now {current / 2**20:.1f} MB, peak {peak / 2**20:.1f} MB\\n")
        for stat in stats[:40]:
            out.write(f"{stat}\\n")
    tracemalloc.reset_peak()
signal.signal(signal.SIGUSR1, _dump)
"""


def dump_traces(phases: MemoryPhases) -> None:
    for pid in phases.pids().values():
        try:
            os.kill(pid, signal.SIGUSR1)
        except ProcessLookupError:
            pass


def download_timed(client: httpx.Client, path: str) -> tuple[int, float, float]:
    """Bytes, seconds to the first bytes and seconds in all of a streamed download."""
    started = time.perf_counter()
    first, size = None, 0
    with client.stream("GET", path) as answer:
        answer.raise_for_status()
        for piece in answer.iter_bytes():
            if first is None and piece:
                first = time.perf_counter() - started
            size += len(piece)
    return size, first or 0.0, time.perf_counter() - started


def over_http(rows: int, unique: bool, workers: int, local_workers: int, jobs_count: int = 1,
              trace_memory: bool = False) -> None:
    """Upload, start, poll and download through a real server; with workers, on PostgreSQL + Redis;
    else embedded, with the server's local worker processes. With `jobs_count`, the rows are that
    many uploads, started together: the workers' throughput over several jobs, whose splits and
    exports overlap other jobs' chunks, beside one job's time from upload to download."""
    parts = split_input(build_input(rows, Settings.from_env().data_dir, unique=unique), jobs_count)
    trace_dir = tempfile.mkdtemp(prefix="perilscope-trace-") if trace_memory else None
    if trace_dir:
        Path(trace_dir, "sitecustomize.py").write_text(TRACE_SITECUSTOMIZE)
    with distributed(workers, local_workers) as extra_env:
        processes: list[subprocess.Popen] = []
        if trace_dir:
            extra_env = {**extra_env, "PYTHONPATH": f"{trace_dir}:{ROOT}"}
        with (running_server(extra_env={**extra_env, **BENCH_STORAGE}, on_start=processes.append) as (base_url, env),
              MemoryPhases(processes) as phases):
            worker_logs, log_paths = start_workers(workers, {**env, "PERILSCOPE_LOG_LEVEL": "INFO"}, processes)
            headers = {"Authorization": f"Bearer {admin_token(base_url, env)}"}
            with httpx.Client(base_url=base_url, headers=headers, timeout=600) as client:
                client.put("/api/admin/settings", json={"monthly_search_limit": 10, "rate_limiting": False,
                                                       "search_caching": False}).raise_for_status()
                cpus_before = [cpu_seconds(process.pid, with_children=bool(workers)) for process in processes]

                def mark(phase: str) -> None:
                    phases.mark(phase)
                    if trace_memory:
                        dump_traces(phases)

                mark("started")
                started = time.perf_counter()
                file_ids = [client.post("/api/upload-csv", files={"file": (f"bench{n}.csv", part, "text/csv")}
                                        ).raise_for_status().json()["file_id"] for n, part in enumerate(parts)]
                uploaded = time.perf_counter()
                mark("upload")
                jobs = [client.post("/api/batch-jobs", json={"file_id": file_id}).raise_for_status().json()["job"]
                        for file_id in file_ids]
                while any(job["status"] not in ("done", "failed") for job in jobs):
                    time.sleep(POLL_SECONDS)
                    jobs = [client.get(f"/api/batch-jobs/{job['id']}").raise_for_status().json()["job"]
                            if job["status"] not in ("done", "failed") else job for job in jobs]
                if any(job["status"] != "done" for job in jobs):
                    raise SystemExit(f"a batch failed: {jobs}\n{worker_logs()}")
                seen_done = time.perf_counter()
                mark("job")
                exported = sum(len(client.get(f"/api/download/{job['export_filename']}").raise_for_status().content)
                               for job in jobs)
                elapsed = time.perf_counter() - started
                mark("download SPEC CSV")
                detailed = download_timed(client, f"/api/exports/{jobs[0]['export_filename']}/detailed?format=csv")
                mark("download detailed CSV")
                cpus_during = [_spent(cpu_seconds(process.pid, with_children=bool(workers)), before)
                               for process, before in zip(processes, cpus_before)]
                summaries = portfolio_times(client, jobs[0]["export_filename"])
                mark("portfolio")
            stored = asyncio.run(stored_bytes_over_http(env, [job["export_filename"] for job in jobs]))
            if not workers:  # the server's local workers are its children
                processes += [_Process(pid) for pid in child_pids(processes[0].pid)]
            # Each process on its own: a local worker is not the server's memory.
            peaks = [peak_rss_mb(process.pid, with_children=bool(workers)) for process in processes]
            cpus = [cpu_seconds(process.pid, with_children=bool(workers)) for process in processes]
            for worker in processes[1:] if workers else []:
                worker.terminate()
                worker.wait(timeout=30)
    where = (f"PostgreSQL + Redis, {workers} worker(s)" if workers
             else f"embedded default (SQLite, in-process, {local_workers} local worker(s))")
    print(f"{rows:>9,} {'unique ' if unique else ''}addresses over HTTP, {where}"
          + (f", as {jobs_count} jobs started together" if jobs_count > 1 else ""))
    print(f"  upload {uploaded - started:6.1f} s; upload to export downloaded {elapsed:6.1f} s  "
          f"{rows / elapsed:7,.0f} rows/s  export {exported / 1e6:5.1f} MB "
          f"(seen done at {seen_done - started:.1f} s, downloaded in {elapsed - (seen_done - started):.1f} s)")
    size, first, took = detailed
    print(f"  detailed CSV (after): {size / 1e6:.1f} MB, first bytes {first:.2f} s, in {took:.2f} s, {size / 1e6 / took:.1f} MB/s")
    print(f"  stored: {stored / 1e6:7.1f} MB, {stored / rows:7,.0f} bytes per row (the export's files in the store)")
    print(f"  peak RSS: server {peaks[0]:5.0f} MB" + "".join(
        f", worker {n} {peak:5.0f} MB" for n, peak in enumerate(peaks[1:], start=1)))
    print("  CPU seconds (since each process started): " + ", ".join(
        f"{'server' if n == 0 else f'worker {n}'} {_seconds(cpu)}" for n, cpu in enumerate(cpus))
        + (f"; {rows / sum(cpus):,.0f} rows per CPU-second in all" if None not in cpus else "; unreadable, so no rate"))
    print("  CPU seconds from upload to download: " + ", ".join(
        f"{'server' if n == 0 else f'worker {n}'} {_seconds(cpu)}" for n, cpu in enumerate(cpus_during)))
    print("  portfolio summary over HTTP (first ask, then kept): " + ", ".join(
        f"{what} {first:.2f} s / {again:.2f} s" for what, (first, again) in summaries.items()))
    print(phases.report())
    if trace_memory:
        print("  tracemalloc's largest allocations after each phase: /tmp/perilscope-trace-<pid>-<n>.txt")
    if workers:
        print(work_shares(log_paths))


async def stored_bytes(files, export) -> int:  # noqa: ANN001 - a FileStore, an ExportFile
    """The bytes the store holds for the export: each of its files (`keys`; for a columnar
    export, its manifest and every chunk file the manifest names) counted once, as stored."""
    from application.ports.results import read_manifest

    keys = set(export.keys)
    if export.manifest_key:
        keys |= {export.manifest_key, *(await read_manifest(files, export.manifest_key)).keys}
    return sum([await files.size(key) for key in keys])


async def stored_bytes_over_http(env: dict[str, str], export_names: list[str]) -> int:
    """The stored bytes of the server's exports of these names, read from its database and file
    store (the bench's own: it set both)."""
    from sqlalchemy import select

    from adapters.db.batch_tables import ExportFileRow
    from entrypoints.container import build_container

    container = build_container(Settings.from_env(env))
    try:
        total = 0
        for name in export_names:
            async with container.session_factory()() as session:
                user_id = await session.scalar(select(ExportFileRow.user_id).where(ExportFileRow.name == name))
            export = await container.batch_store().export(user_id, name)
            total += await stored_bytes(container.file_store(), export)
        return total
    finally:
        await container.engine().dispose()


def split_input(content: bytes, count: int) -> list[bytes]:
    """The CSV as `count` files of consecutive rows, each with the header (the bench's rows are
    one line each)."""
    header, _, body = content.partition(b"\n")
    lines = body.splitlines(keepends=True)
    size = -(-len(lines) // count)
    return [header + b"\n" + b"".join(lines[start:start + size]) for start in range(0, len(lines), size)]


def _spent(now: float | None, before: float | None) -> float | None:
    return None if now is None or before is None else now - before


def portfolio_times(client: httpx.Client, export_name: str) -> dict[str, tuple[float, float]]:
    """Seconds to answer the export's portfolio summary (GET /api/exports/{name}/portfolio): the
    default, another peril, and the upload's value column (TIV), each asked twice."""
    times = {}
    for what, params in (("default", {}), ("peril ERQK", {"peril": "ERQK"}), ("value column TIV", {"value_column": "TIV"})):
        seconds = []
        for _ in range(2):
            started = time.perf_counter()
            answer = client.get(f"/api/exports/{export_name}/portfolio", params=params)
            if answer.status_code != 200:
                print(f"  portfolio summary, {what}: {answer.status_code} {answer.text[:300]}")
                break
            seconds.append(time.perf_counter() - started)
        else:
            times[what] = (seconds[0], seconds[1])
    return times


def _seconds(cpu: float | None) -> str:
    return "unknown" if cpu is None else f"{cpu:6.1f}"


def work_shares(logs: list[Path]) -> str:
    """Who did what, from the workers' logs (application/batch_runner.py logs each chunk, split
    and export): chunks and rows per worker, their time answering, and the rows per second of the
    chunks alone, which shows the workers' scaling apart from the server and the finish."""
    lines, chunk_rows, chunk_seconds, chunk_cpu = [], 0, 0.0, 0.0
    for number, path in enumerate(logs, start=1):
        records = [json.loads(line) for line in path.read_text(errors="replace").splitlines() if line.startswith("{")]
        chunks = [r for r in records if r.get("msg") == "batch chunk ended" and r.get("outcome") == "done"]
        rows, seconds = sum(c["rows"] for c in chunks), sum(c["seconds"] for c in chunks)
        cpu = sum(c.get("cpu_seconds", 0) for c in chunks)
        chunk_rows, chunk_seconds, chunk_cpu = chunk_rows + rows, chunk_seconds + seconds, chunk_cpu + cpu
        other = ""
        for what in ("batch job split", "batch export stored"):
            spent = [r["seconds"] for r in records if r.get("msg") == what]
            if spent:
                other += f", {what.removeprefix('batch ')} {sum(spent):.1f} s" + (
                    f" ({len(spent)} jobs)" if len(spent) > 1 else "")
        lines.append(f"  worker {number}: {len(chunks)} chunks, {rows:,} rows in {seconds:.1f} s ({cpu:.1f} s CPU)"
                     f", {rows / seconds if seconds else 0:,.0f} rows/s of chunk time{other}")
    return "\n".join(lines + [f"  chunks: {chunk_rows:,} rows in {chunk_seconds:.1f} s of chunk time "
                              f"({chunk_rows / chunk_seconds if chunk_seconds else 0:,.0f} rows/s per worker-second), "
                              f"{chunk_cpu:.1f} s of CPU ({chunk_rows / chunk_cpu if chunk_cpu else 0:,.0f} rows/s per CPU-second)"])


class _Process:
    """A process the bench did not start, known by its pid."""

    def __init__(self, pid: int) -> None:
        self.pid = pid


@contextmanager
def distributed(workers: int, local_workers: int) -> Iterator[dict[str, str]]:
    """The embedded default with its local workers; else a new PostgreSQL database and a queue of
    its own."""
    if not workers:
        yield {"PERILSCOPE_LOCAL_WORKERS": str(local_workers)}
        return
    name = f"perilscope_bench_{uuid.uuid4().hex[:8]}"
    psql = ["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-c"]
    subprocess.run([*psql, f"CREATE DATABASE {name}"], check=True)
    try:
        yield {"DATABASE_URL": f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}",
               "PERILSCOPE_JOB_QUEUE": "taskiq", "REDIS_URL": "redis://127.0.0.1:6379/0",
               "PERILSCOPE_JOB_QUEUE_NAME": f"perilscope:bench:{name}"}
    finally:
        subprocess.run([*psql, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=False)


def start_workers(count: int, env: dict[str, str], processes: list[subprocess.Popen]
                  ) -> tuple[Callable[[], str], list[Path]]:
    """`count` worker processes, each listening before this returns; gives their logs' tails, and
    the logs."""
    logs = [Path(tempfile.mkstemp(prefix="perilscope-worker-", suffix=".log")[1]) for _ in range(count)]
    for log in logs:
        processes.append(subprocess.Popen([PERILSCOPE, "worker"], env=env, cwd=ROOT, stdout=log.open("wb"),
                                          stderr=subprocess.STDOUT))
    deadline = time.monotonic() + 120
    while not all("Listening started" in log.read_text(errors="replace") for log in logs):
        if time.monotonic() > deadline:
            raise SystemExit("the workers did not start:\n" + "\n".join(log.read_text()[-2000:] for log in logs))
        time.sleep(0.2)
    return lambda: "\n".join(log.read_text(errors="replace")[-2000:] for log in logs), logs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--unique", action="store_true", help="no address repeats")
    parser.add_argument("--http", action="store_true", help="through a real server: upload, job, download")
    parser.add_argument("--workers", type=int, default=0, help="worker processes on PostgreSQL + Redis (implies --http)")
    parser.add_argument("--jobs", type=int, default=1, help="the rows as this many jobs started together (implies --http)")
    parser.add_argument("--local-workers", type=int, default=default_local_workers(None),
                        help="the embedded server's local worker processes (default: as `perilscope serve` on this machine)")
    parser.add_argument("--trace-memory", action="store_true",
                        help="tracemalloc in the server's processes: their largest allocations after each phase")
    args = parser.parse_args()
    if args.http or args.workers or args.jobs > 1 or args.trace_memory:
        over_http(args.rows, args.unique, args.workers, args.local_workers, args.jobs, args.trace_memory)
    else:
        asyncio.run(run(args.rows, args.unique))


if __name__ == "__main__":
    main()

"""A throwaway PerilScope server for benchmarks: temp SQLite database, migrated, data loaded."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
PERILSCOPE = str(Path(sys.executable).parent / "perilscope")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def running_server(workers: int = 1, extra_env: dict[str, str] | None = None, on_start=None,  # noqa: ANN001
                   checkout: Path = ROOT):
    """Yields (base_url, env); the server and its database are gone afterwards. `extra_env` adds
    settings, such as the hosts webhooks may call (or another DATABASE_URL); `on_start` is given
    the server process (to read its peak memory). `checkout` serves another checkout of the
    project (a `git worktree` of main, say) with this one's virtualenv, to compare the two."""
    with tempfile.TemporaryDirectory(prefix="perilscope-bench-") as tmp:
        port = free_port()
        env = {
            **os.environ,
            # The checkout's packages come before the editable install's (which points here).
            "PYTHONPATH": str(checkout),
            # Another checkout's own defaults would look beside it for the data and the secret.
            "PERILSCOPE_DATA_DIR": os.environ.get("PERILSCOPE_DATA_DIR", str(ROOT.parent / "shared" / "data")),
            "PERILSCOPE_VAR_DIR": f"{tmp}/var",
            "DATABASE_URL": f"sqlite+aiosqlite:///{tmp}/bench.db",
            "PERILSCOPE_ENV": "test",
            "PERILSCOPE_WARM_REFERENCE_DATA": "true",  # as a real server does
            "PERILSCOPE_LOG_LEVEL": "WARNING",
            "PERILSCOPE_FILES_DIR": f"{tmp}/files",  # uploads and exports go with the database
            **(extra_env or {}),
        }
        cli = [sys.executable, "-m", "entrypoints.cli"]  # the checkout's CLI, not the installed script's
        subprocess.run([*cli, "db", "upgrade"], env=env, check=True, capture_output=True, cwd=checkout)
        subprocess.run([*cli, "data", "load"], env=env, check=True, capture_output=True, cwd=checkout)
        server = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "entrypoints.asgi:app", "--host", "127.0.0.1", "--port", str(port),
             "--workers", str(workers), "--no-access-log", "--log-level", "warning"],
            env=env, cwd=checkout,
        )
        if on_start is not None:
            on_start(server)
        base_url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"{base_url}/ready", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            else:
                raise RuntimeError("server did not become ready")
            yield base_url, env
        finally:
            server.terminate()
            server.wait(timeout=20)


def admin_session(base_url: str, env: dict[str, str]) -> dict:
    """An administrator's session (no monthly limit; may set its own API plan): the login answer."""
    email, password = "bench@example.com", "Bench!pass1"
    subprocess.run([PERILSCOPE, "users", "create-admin", email, "--password", password], env=env, check=True,
                   capture_output=True, cwd=ROOT)
    response = httpx.post(f"{base_url}/api/auth/login", json={"email": email, "password": password})
    response.raise_for_status()
    return response.json()


def admin_token(base_url: str, env: dict[str, str]) -> str:
    """An administrator's token, so a benchmark measures lookups, not the quota."""
    return admin_session(base_url, env)["access_token"]


def child_pids(pid: int) -> list[int]:
    """The running children of a process (empty when it cannot be read)."""
    try:
        return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
                for child in (task / "children").read_text().split()]
    except OSError:
        return []


def cpu_seconds(pid: int, with_children: bool = True) -> float | None:
    """CPU time (user + system) of a running process and, unless told not, its descendants so far:
    on a machine others share, rows per CPU-second holds still where wall time does not."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    children = child_pids(pid) if with_children else []
    return own + sum(cpu for cpu in map(cpu_seconds, children) if cpu is not None)  # a child gone meanwhile took its time with it


def peak_rss_mb(pid: int, with_children: bool = True) -> float | None:
    """Peak resident memory (Linux VmHWM) of a running process and, unless told not, its
    descendants, summed (a taskiq worker runs its tasks in a child process), or None when it
    cannot be read."""
    try:
        own = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                   if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return None
    children = child_pids(pid) if with_children else []
    return own + sum(peak or 0 for peak in map(peak_rss_mb, children))


@contextmanager
def fresh_postgres_database(server_url: str):  # noqa: ANN201
    """Yields the URL of a new, empty database on the PostgreSQL server of `server_url` (a
    postgresql+asyncpg:// DATABASE_URL), dropped afterwards: each run starts from nothing, as the
    embedded default does, and leaves nothing behind."""
    import asyncio
    import secrets

    import asyncpg
    from sqlalchemy.engine import make_url

    url = make_url(server_url)
    name = f"perilscope_bench_{secrets.token_hex(4)}"
    admin_dsn = url.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False)

    async def execute(statement: str) -> None:
        connection = await asyncpg.connect(admin_dsn)
        try:
            await connection.execute(statement)
        finally:
            await connection.close()

    asyncio.run(execute(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

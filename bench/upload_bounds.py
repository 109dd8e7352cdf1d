"""What uploads cost the database now that they are bounded (issue #10 item 15): a regular user
uploads 19.6 MB files until the storage cap refuses one, the retention purge runs a day later, and
the same uploads again reuse the freed pages instead of growing the file.

    .venv/bin/python bench/upload_bounds.py
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dependency_injector import providers  # noqa: E402

from application.errors import StorageFull  # noqa: E402
from application.ports.accounts import AccessClaims  # noqa: E402
from bench.batch import build_input  # noqa: E402
from entrypoints.settings import Settings  # noqa: E402

TARGET_BYTES = int(19.6 * 1024 * 1024)


class MovableClock:
    def __init__(self) -> None:
        self.offset = timedelta()

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset


def padded_input(data_dir: Path) -> bytes:
    """100,000 real addresses with a notes column, to the issue's 19.6 MB."""
    lines = build_input(100_000, data_dir).decode().splitlines()
    pad = max(0, (TARGET_BYTES - sum(len(line) + 1 for line in lines)) // len(lines) - 1)
    return ("\n".join(f"{line},{'Notes' if i == 0 else 'x' * pad}" for i, line in enumerate(lines)) + "\n").encode()


def file_mb(path: Path) -> float:
    with sqlite3.connect(path) as db:
        pages, free, size = (db.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "freelist_count", "page_size"))
    return pages * size / 1e6, free * size / 1e6


async def upload_until_refused(container, caller, content: bytes, tries: int) -> int:  # noqa: ANN001
    accepted = 0
    for _ in range(tries):
        try:
            await container.batch().upload(caller, "portfolio.csv", content)
            accepted += 1
        except StorageFull as refused:
            print(f"  refused: {refused.message}")
            break
    return accepted


async def run() -> None:
    with tempfile.TemporaryDirectory(prefix="perilscope-uploads-") as tmp:
        path = Path(tmp) / "bench.db"
        url = f"sqlite+aiosqlite:///{path}"
        env = {"DATABASE_URL": url, "PERILSCOPE_ENV": "test", "PATH": ""}
        subprocess.run([str(Path(sys.executable).parent / "perilscope"), "db", "upgrade"], env=env, check=True,
                       capture_output=True, cwd=ROOT)
        from entrypoints.container import build_container

        settings = Settings.from_env({"DATABASE_URL": url, "PERILSCOPE_ENV": "test", "PERILSCOPE_RATE_LIMIT_PER_MINUTE": "1000"})
        container = build_container(settings)
        clock = MovableClock()
        container.clock.override(providers.Object(clock))
        user = await container.accounts().create_user("uploader@example.com", "Bench!pass1")
        caller = AccessClaims(user.id)
        content = padded_input(settings.data_dir)
        print(f"upload {len(content) / 2**20:.1f} MB, storage cap {settings.user_storage_bytes / 2**20:.0f} MB, "
              f"retention {settings.upload_retention_hours} h")

        accepted = await upload_until_refused(container, caller, content, tries=12)
        size, free = file_mb(path)
        print(f"accepted {accepted} uploads; database {size:.0f} MB ({free:.0f} MB free pages)")

        clock.offset = timedelta(hours=settings.upload_retention_hours + 1)
        purged = await container.batch().purge_uploads()
        size, free = file_mb(path)
        print(f"a day later the purge deleted {purged}; database {size:.0f} MB ({free:.0f} MB free pages)")

        accepted = await upload_until_refused(container, caller, content, tries=12)
        size, free = file_mb(path)
        print(f"accepted {accepted} uploads again; database {size:.0f} MB ({free:.0f} MB free pages)")
        container.search_store().close()
        await container.engine().dispose()


if __name__ == "__main__":
    asyncio.run(run())

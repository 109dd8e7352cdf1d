"""The embedded server's idle memory (issue #13: its peak under 300 MB): resident memory after
importing the ASGI app and after loading the reference index, and which heavy SDKs got imported
(none should: entrypoints/optional_adapters.py). Needs a loaded database, e.g.

    DATABASE_URL=sqlite+aiosqlite:////tmp/lean.db .venv/bin/perilscope db upgrade
    DATABASE_URL=sqlite+aiosqlite:////tmp/lean.db .venv/bin/perilscope data load
    DATABASE_URL=sqlite+aiosqlite:////tmp/lean.db .venv/bin/python bench/idle_memory.py
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HEAVY = ("pandas", "numpy", "boto3", "redis", "taskiq", "taskiq_redis", "xlsxwriter")


def resident_mb() -> int:
    status = Path("/proc/self/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS")).split()[1]) // 1024


async def main() -> None:
    start = resident_mb()
    import entrypoints.asgi as asgi

    imported = resident_mb()
    await asgi.container.reference_index().data()
    loaded = resident_mb()
    print(f"resident memory: {start} MB at start, {imported} MB with the app imported, {loaded} MB with the reference index")
    print(f"heavy SDKs imported: {[name for name in HEAVY if name in sys.modules] or 'none'}")


if __name__ == "__main__":
    asyncio.run(main())

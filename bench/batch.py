"""Batch throughput on the embedded default (SQLite, in-process jobs): from upload to export
ready, for inputs built from the real data, with the process's peak memory.

    .venv/bin/python bench/batch.py --rows 10000
    .venv/bin/python bench/batch.py --rows 100000
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import gzip
import io
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.ports.accounts import AccessClaims  # noqa: E402
from domain.accounts import Role  # noqa: E402
from entrypoints.settings import Settings  # noqa: E402


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
    writer.writerow(["Street Address", "City", "State", "Zip", "Country"])
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
        writer.writerow([*address, "US"])
        count += 1
    return out.getvalue().encode()


async def run(rows: int) -> None:
    with tempfile.TemporaryDirectory(prefix="perilscope-batch-") as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/bench.db"
        env = {"DATABASE_URL": url, "PERILSCOPE_ENV": "test", "PATH": ""}
        perilscope = str(Path(sys.executable).parent / "perilscope")
        for command in (["db", "upgrade"], ["data", "load"], ["users", "create-admin", "bench@example.com", "--password", "Bench!pass1"]):
            subprocess.run([perilscope, *command], env=env, check=True, capture_output=True, cwd=ROOT)

        from entrypoints.container import build_container

        settings = Settings.from_env({"DATABASE_URL": url, "PERILSCOPE_ENV": "test"})
        container = build_container(settings)
        user = await container.accounts().set_role("bench@example.com", Role.ADMIN)
        caller = AccessClaims(user.id)
        content = build_input(rows, settings.data_dir)
        await container.reference_index().data()  # loaded once per server start, not per batch

        started = time.perf_counter()
        upload = await container.batch().upload(caller, "bench.csv", content)
        job = await container.batch().start(caller, upload.id)
        await container.job_queue().drain()
        elapsed = time.perf_counter() - started

        finished = await container.batch().job(caller, job.id)
        assert finished.status == "done", finished
        export = await container.batch().export(caller, finished.export_name)
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{rows:>7,} addresses  upload to export ready {elapsed:6.1f} s  {rows / elapsed:7,.0f} addresses/s  "
            f"export {len(export.content) / 1e6:5.1f} MB  peak RSS {peak_mb:5.0f} MB"
        )
        await container.engine().dispose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    asyncio.run(run(parser.parse_args().rows))


if __name__ == "__main__":
    main()

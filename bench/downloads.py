"""An export's downloads from its columnar dataset (adapters/results/downloads.py): for each format,
the time to the first byte, the whole time, the bytes and MB/s, and the process's peak memory.

    .venv/bin/python bench/downloads.py --rows 100000                 # every format, local store
    .venv/bin/python bench/downloads.py --rows 1000000 --formats csv  # the detailed CSV at a million

Each format runs in a process of its own (its peak memory is its own), on the dataset the first
one wrote (kept in --keep's folder, or a temporary one); --one-process runs them one after another.

The dataset is written with the real chunk writer (chunks of 5,000 rows) from varied answers: five
counties and two NRI releases, a tract on half the rows, one to three occupants on a third."""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters.files.local import LocalFileStore  # noqa: E402
from adapters.results.chunk_writer import ChunkTable, chunk_keys  # noqa: E402
from adapters.results.downloads import ResultDownloads  # noqa: E402
from application.ports.results import ExportManifest, ManifestChunk, decode_manifest, encode_manifest  # noqa: E402
from domain.address import BuildingKey  # noqa: E402
from domain.lookup_result import Location, LookupResult, Provenance, TractPerils  # noqa: E402
from domain.occupancy import GeoPoint, Occupant, ParsedAddress  # noqa: E402
from domain.perils import HAZARDS, PerilScores  # noqa: E402

COUNTIES = (("53033", "King County", "WA"), ("06037", "Los Angeles County", "CA"), ("12086", "Miami-Dade County", "FL"),
            ("17031", "Cook County", "IL"), ("48201", "Harris County", "TX"))
RATINGS = ("Very High", "Relatively High", "Relatively Moderate", "Relatively Low", "Very Low")
USER_COLUMNS = ["policy_no", "Street Address", "City", "State", "Zip", "insured_value"]


def scores(seed: int) -> PerilScores:
    rng = random.Random(seed)
    return PerilScores(scores={h.code: round(rng.uniform(0, 100), 3) for h in HAZARDS},
                       ratings={h.code: rng.choice(RATINGS) for h in HAZARDS}, total=round(rng.uniform(0, 100), 2),
                       total_rating=rng.choice(RATINGS))


def answer(index: int, rng: random.Random) -> LookupResult:
    fips, name, state = COUNTIES[index % len(COUNTIES)]
    release = "1.20.0" if index % 7 else "1.19.0"
    street = f"{100 + index} Main St"
    tract = fips + f"{index % 40:06d}" if index % 2 else None
    occupants = tuple(Occupant(name=f"Business {index}-{k}", vicinity=street, types=("store",), naics_code="531120",
                               business_status="OPERATIONAL") for k in range(index % 4 if index % 3 == 0 else 0))
    return LookupResult(
        search_id=str(index), query=f"{street}, Springfield, {state} 98104",
        address=ParsedAddress(street, "Springfield", state, "98104", None, BuildingKey(street.upper(), "98104")),
        location=Location("zip_share", fips, name, state, round(rng.random(), 4), index % 5 == 0,
                          point=GeoPoint(rng.uniform(25, 48), rng.uniform(-124, -70), "zip_centroid"), tract_geoid=tract),
        perils=scores(hash((fips, release)) & 0xFFFF), building=None,
        provenance=Provenance(release, "embedded", "registry", "NRI", None, "2026-11-28T10:00:00+00:00"),
        occupants=occupants,
        tract_perils=TractPerils(tract, fips, scores(int(tract)), release, "geocoder") if tract else None,
    )


async def write(files: LocalFileStore, rows: int, chunk_rows: int = 5000) -> ExportManifest:
    rng = random.Random(27)
    chunks = []
    for index, start in enumerate(range(0, rows, chunk_rows)):
        table = ChunkTable(USER_COLUMNS)
        for row in range(start, min(rows, start + chunk_rows)):
            values = [f"P-{row}", f"{100 + row} Main St", "Springfield", "WA", "98104", str(rng.randint(1, 9) * 250_000)]
            table.add(row + 2, values, answer(row, rng))
        facts, scores_key = chunk_keys(f"jobs/bench/out/{index}.a1")
        written = await table.write(files, facts, scores_key)
        chunks.append(ManifestChunk(index=index, first_row=start, rows=written.rows, facts=facts, scores=scores_key))
    return ExportManifest(user_columns=USER_COLUMNS, rows=rows, chunks=chunks)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def measure(downloads: ResultDownloads, manifest: ExportManifest, fmt: str) -> None:
    cpu = cpu_seconds()
    started = time.perf_counter()
    first = None
    size = 0
    pieces = downloads.spec_csv(manifest) if fmt == "spec" else downloads.detailed(manifest, fmt)
    async for piece in pieces:
        # The first rows, not a CSV's header (sent before any query).
        if first is None and (size or fmt not in ("spec", "csv")):
            first = time.perf_counter() - started
        size += len(piece)
    took = time.perf_counter() - started
    cpu = cpu_seconds() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{fmt:8} first rows {first or 0:6.3f} s  whole {took:7.2f} s  {size / 1e6:8.1f} MB  "
          f"{size / 1e6 / took:6.1f} MB/s  {cpu:6.2f} CPU s ({size / 1e6 / cpu:6.1f} MB per CPU s)  "
          f"peak RSS so far {peak:5.0f} MB", flush=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--formats", default="spec,csv,jsonl,parquet,xlsx")
    parser.add_argument("--keep", type=Path, help="a folder to keep the dataset in, and to take it from next time")
    parser.add_argument("--one-process", action="store_true", help="every format in this process, one after another")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="perilscope-bench-downloads-") as scratch:
        folder = args.keep or Path(scratch)
        files = LocalFileStore(folder)
        started = time.perf_counter()
        kept = folder / f"manifest-{args.rows}.json"
        if kept.exists():
            manifest = decode_manifest(kept.read_bytes())
        else:
            manifest = await write(files, args.rows)
            kept.write_bytes(encode_manifest(manifest))
        stored = sum((folder / key).stat().st_size for key in manifest.keys)
        print(f"dataset: {args.rows:,} rows in {len(manifest.chunks)} chunks, {stored / 1e6:.1f} MB stored "
              f"({stored / args.rows:.0f} B a row), written in {time.perf_counter() - started:.1f} s", flush=True)
        formats = args.formats.split(",")
        if args.one_process or len(formats) == 1:
            downloads = ResultDownloads(files)
            for fmt in formats:
                await measure(downloads, manifest, fmt)
            return
        for fmt in formats:
            subprocess.run([sys.executable, __file__, "--rows", str(args.rows), "--keep", str(folder), "--formats", fmt],
                           check=True)


if __name__ == "__main__":
    asyncio.run(main())

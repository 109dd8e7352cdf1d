"""The portfolio summary's time for big batches, from the columnar dataset (issue #27). A dataset
of N rows is written with the real chunk writer (adapters/results/chunk_writer.py, chunks of 5,000
rows) from a pool of answers over 3,000 counties (half with census-tract scores), with the
upload's columns policy, tiv (numbers written several ways, some unreadable or blank) and note;
a batch of 1,000,000 rows is not run through geocoding here. Then the summary as the route asks
it (ExportQueries.portfolio, adapters/results/portfolio.py; no HTTP, no database), each on the
same PortfolioQueries, as a user switches: the default (composite, no value column: the export's
score rows and grouped table made), another peril (the riskiest only read again), a value column
(one grouped scan), and another peril with it; then each again on a fresh instance (nothing kept);
and peak memory. The dataset is kept in --dir and used again when its manifest is there.

    .venv/bin/python bench/portfolio.py --rows 1000000 --dir /tmp/portfolio-1m
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters.files.local import LocalFileStore  # noqa: E402
from adapters.results.chunk_writer import ChunkTable, chunk_keys  # noqa: E402
from adapters.results.portfolio import PortfolioQueries  # noqa: E402
from application.portfolio import PortfolioQuery  # noqa: E402
from bench.export_dataset import merged_scores  # noqa: E402
from application.ports.results import ExportManifest, ManifestChunk, decode_manifest, encode_manifest  # noqa: E402
from domain.address import BuildingKey  # noqa: E402
from domain.lookup_result import Location, LookupResult, Provenance, TractPerils, not_located  # noqa: E402
from domain.occupancy import Building, GeoPoint, Occupant, OccupantCoverage, ParsedAddress  # noqa: E402
from domain.perils import HAZARDS, PerilScores  # noqa: E402
from domain.row_facts import answer_facts, score_rows  # noqa: E402

RATINGS = ["Very Low", "Relatively Low", "Relatively Moderate", "Relatively High", "Very High"]
CHUNK_ROWS = 5000
COLUMNS = ["policy", "tiv", "note"]


def _scores(rng: random.Random) -> PerilScores:
    values = {h.code: (None if rng.random() < 0.2 else round(rng.random() * 100, 2)) for h in HAZARDS}
    return PerilScores(values, {c: rng.choice(RATINGS) for c, v in values.items() if v is not None},
                       round(rng.random() * 100, 2), rng.choice(RATINGS))


def answers(rng: random.Random, count: int = 20_000) -> list[tuple[dict, list[dict]]]:
    """A pool of answers' facts and score rows (a county's scores the same for all its answers)."""
    counties: dict[str, PerilScores] = {}
    pool = []
    for index in range(count):
        if rng.random() < 0.02:
            result = not_located(f"{index} Nowhere", "could not read", "2026-11-28T10:00:00+00:00", f"s{index}")
        else:
            fips = f"{1000 + rng.randrange(3000):05d}"
            perils = counties.setdefault(fips, _scores(rng))
            geoid = f"{fips}{index:06d}"
            tract = TractPerils(geoid, fips, _scores(rng), "1.20.0", "geocoder") if rng.random() < 0.5 else None
            address = ParsedAddress(f"{index} Main St", "Town", "ST", "00000", None, BuildingKey(f"{index} MAIN ST", "00000"),
                                    street_read=rng.random() < 0.9)
            occupants = rng.choice([None, 0, 1, 3])
            code = rng.choice([None, "722511", "522110", "311811"])
            result = LookupResult(
                search_id=f"s{index}", query=f"{index} Main St", address=address,
                location=Location("zip", fips, f"County {fips}", "ST", 1.0, rng.random() < 0.1,
                                  point=GeoPoint(47.6, -122.3, rng.choice(["building", "census_exact", "zip_centroid"])),
                                  tract_geoid=geoid if tract else None),
                perils=perils, building=Building(address="x", property_name="Tower") if rng.random() < 0.3 else None,
                provenance=Provenance("1.20.0", "embedded", "registry", "NRI", None, "2026-11-28T10:00:00+00:00"),
                occupants=tuple(Occupant(f"o{i}", "here", naics_code=code) for i in range(occupants or 0)),
                occupant_coverage=None if occupants is None else OccupantCoverage(True, "registry", "here"),
                tract_perils=tract,
            )
        pool.append((answer_facts(result), score_rows(result)))
    return pool


async def write(files: LocalFileStore, rows: int) -> ExportManifest:
    rng = random.Random(7)
    pool = answers(rng)
    chunks = []
    for index, start in enumerate(range(0, rows, CHUNK_ROWS)):
        table = ChunkTable(COLUMNS)
        for line in range(start, min(rows, start + CHUNK_ROWS)):
            facts, scores = pool[rng.randrange(len(pool))]
            tiv = rng.choice([f"{rng.randint(1, 10**7):,}", str(rng.randint(1, 10**7)), "n/a", "", f"${rng.randint(1, 10**6)}"])
            table.add_facts(line + 2, [f"P{line}", tiv, "x"], facts, scores)
        facts_key, scores_key = chunk_keys(f"jobs/bench/out/{index}.a1")
        await table.write(files, facts_key, scores_key)
        chunks.append(ManifestChunk(index, start, table.rows, facts_key, scores_key))
    return ExportManifest(COLUMNS, rows, chunks)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--own-scores", action="store_true", help="each chunk keeps its score rows (no merge at finish)")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    files = LocalFileStore(args.dir)
    stored = args.dir / f"manifest-{args.rows}{'-own' if args.own_scores else ''}.json"
    if stored.exists():
        manifest = decode_manifest(stored.read_bytes())
    else:
        started = time.perf_counter()
        manifest = await write(files, args.rows)
        if not args.own_scores:
            manifest = await merged_scores(files, manifest, "bench", "bench")
        stored.write_bytes(encode_manifest(manifest))
        print(f"dataset of {args.rows:,} rows written in {time.perf_counter() - started:.1f} s")
    variants = [(None, "composite"), (None, "HRCN"), ("tiv", "composite"), ("tiv", "ERQK")]
    kept = PortfolioQueries(files)
    for label, queries in (("kept", kept), ("fresh", None)):
        for value_column, peril in variants:
            started, cpu = time.perf_counter(), time.process_time()
            summary = await (queries or PortfolioQueries(files)).portfolio(manifest, PortfolioQuery(value_column, peril))
            print(f"{label:5} value={value_column!s:5} peril={peril:9} {time.perf_counter() - started:6.3f} s wall "
                  f"{time.process_time() - cpu:6.3f} s CPU  rows={summary.headline.rows:,} counties={len(summary.counties)}")
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())

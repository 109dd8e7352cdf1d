"""The export viewer at scale (issue #27 target: a filtered, sorted page under 300 ms at 1,000,000
rows): a dataset of N unique-ish rows written with the real chunk writer (adapters/results/
chunk_writer.py: ChunkTable, chunks of 5,000) into a local file store, then pages of
GET /api/exports/{name}/rows as ExportRowsService answers them (adapters/results/viewer.py), each
timed (median and worst of --repeat runs, after the export's first open, which is timed alone).

    .venv/bin/python bench/export_rows.py --rows 1000000 --dir /tmp/viewer-bench

The dataset is kept in --dir and reused when its manifest is there (writing 1,000,000 rows takes
a few minutes of one core)."""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters.files.local import LocalFileStore  # noqa: E402
from adapters.results.chunk_writer import ChunkTable, chunk_keys  # noqa: E402
from adapters.results.viewer import ViewerQueries  # noqa: E402
from application.export_rows import ExportRowsService  # noqa: E402
from bench.export_dataset import merged_scores  # noqa: E402
from application.ports.accounts import AccessClaims  # noqa: E402
from application.ports.batch import ExportFile  # noqa: E402
from application.ports.results import ExportManifest, ManifestChunk, manifest_key, read_manifest, write_manifest  # noqa: E402
from domain.export_rows import RowFilter, RowOrder  # noqa: E402
from domain.lookup_result import Location, Provenance  # noqa: E402
from domain.perils import HAZARDS, PerilScores  # noqa: E402
from domain.row_facts import COUNTY, answer_facts, score_row  # noqa: E402
from domain.occupancy import GeoPoint, ParsedAddress  # noqa: E402
from domain.address import BuildingKey  # noqa: E402
from domain.lookup_result import LookupResult  # noqa: E402

NAME = "bench_export_20261128_100000_000001.csv"
USER_COLUMNS = ["Location ID", "Street Address", "City", "State", "Zip", "TIV", "Occupancy"]
RATINGS = ("Very High", "Relatively High", "Relatively Moderate", "Relatively Low", "Very Low", "Insufficient Data")
LEVELS = ("building", "census_exact", "place", "zip_centroid", None)
STATES = ("WA", "CA", "TX", "FL", "NY", "IL", "PA", "OH", "GA", "NC", "MI", "NJ", "VA", "AZ", "MA", "CO")


def scores_of(rng: random.Random) -> PerilScores:
    scores = {h.code: (None if rng.random() < 0.1 else round(rng.uniform(0, 100), 3)) for h in HAZARDS}
    ratings = {code: (rng.choice(RATINGS) if value is not None else "Not Applicable") for code, value in scores.items()}
    total = None if rng.random() < 0.02 else round(rng.uniform(0, 100), 2)
    return PerilScores(scores=scores, ratings=ratings, total=total, total_rating=rng.choice(RATINGS) if total is not None else "Insufficient Data")


def template(fips: str, state: str, level: str | None) -> LookupResult:
    street = ParsedAddress("1 Main St", "Springfield", state, "98104", None, BuildingKey("1 MAIN ST", "98104"))
    point = GeoPoint(47.6, -122.3, level) if level else None
    return LookupResult(
        search_id="s", query="1 Main St", address=street if level else None,
        location=Location("zip", fips if level else None, f"County {fips}" if level else None, state if level else None,
                          0.9 if level else None, False, point=point),
        perils=None, building=None, provenance=Provenance("1.20.0", "embedded", "registry", "NRI", None, "2026-11-28T10:00:00+00:00"),
    )


async def write(files: LocalFileStore, rows: int, chunk_rows: int, own_scores: bool) -> ExportManifest:
    rng = random.Random(27)
    counties = [(f"{s:02d}{c:03d}", STATES[s % len(STATES)]) for s in range(1, 57) for c in range(1, 60, 2)]
    county_scores = {fips: score_row(COUNTY, fips, "1.20.0", scores_of(rng)) for fips, _ in counties}
    templates = {(fips, level): answer_facts(template(fips, state, level)) for fips, state in counties for level in LEVELS}
    chunks, start, began = [], 0, time.perf_counter()
    while start < rows:
        size = min(chunk_rows, rows - start)
        table = ChunkTable(USER_COLUMNS)
        for position in range(start, start + size):
            fips, state = rng.choice(counties)
            level = rng.choice(LEVELS)
            facts = dict(templates[(fips, level)])
            street = f"{position * 7 % 99991} {rng.choice(('Main', 'Oak', 'Pine', 'Elm', 'Cedar'))} St"
            facts["normalized_address"] = f"{street}, City {position % 5003}, {state} {position % 99999:05d}" if level else ""
            facts["address"] = f"{facts['normalized_address'] or street}\nTotal Space Available: Unknown\nRental Rate: Unknown"
            facts["low_confidence"] = rng.random() < 0.08
            facts["occupant_count"] = rng.randint(0, 40) if rng.random() < 0.7 else None
            if level:
                facts["scored"] = True
                facts["lat"], facts["lng"] = rng.uniform(25, 49), rng.uniform(-124, -67)
                facts["status"] = "answered" if rng.random() < 0.9 else "answered at ZIP level"
            values = [f"L{position}", street, f"City {position % 5003}", state, f"{position % 99999:05d}",
                      str(rng.randint(10_000, 90_000_000)), rng.choice(("Office", "Retail", "Warehouse"))]
            table.add_facts(position + 2, values, facts, [county_scores[fips]] if level else ())
        facts_key, scores_key = chunk_keys(f"jobs/bench/out/{len(chunks)}.a1")
        await table.write(files, facts_key, scores_key)
        chunks.append(ManifestChunk(index=len(chunks), first_row=start, rows=size, facts=facts_key, scores=scores_key))
        start += size
        if len(chunks) % 20 == 0:
            print(f"  {start:,} rows written ({time.perf_counter() - began:.0f} s)", flush=True)
    manifest = ExportManifest(user_columns=USER_COLUMNS, rows=rows, chunks=chunks)
    if not own_scores:
        manifest = await merged_scores(files, manifest, "u", "bench")
    await write_manifest(files, manifest_key("u", "bench"), manifest)
    return manifest


class Exports:
    def __init__(self, export: ExportFile) -> None:
        self.exported = export

    async def export(self, user_id: str, name: str) -> ExportFile | None:
        return self.exported if name == self.exported.name else None


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--chunk-rows", type=int, default=5000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/viewer-bench"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--own-scores", action="store_true", help="each chunk keeps its score rows (no merge at finish)")
    args = parser.parse_args()
    files = LocalFileStore(args.dir)
    key = manifest_key("u", "bench")
    try:
        manifest = await read_manifest(files, key)
        assert manifest.rows == args.rows and (manifest.scores is None) == args.own_scores
        print(f"dataset of {manifest.rows:,} rows in {args.dir} (kept from before)")
    except Exception:  # noqa: BLE001 - not there yet, or of another size
        began = time.perf_counter()
        manifest = await write(files, args.rows, args.chunk_rows, args.own_scores)
        print(f"dataset of {manifest.rows:,} rows written in {time.perf_counter() - began:.0f} s")
    stored = sum(p.stat().st_size for p in args.dir.rglob("*.parquet"))
    print(f"stored: {stored / 1e6:.1f} MB, {stored / manifest.rows:.1f} bytes a row, {len(manifest.chunks)} chunks")

    export = ExportFile(id="bench", user_id="u", name=NAME, exported_at=datetime.now(UTC), manifest_key=key)
    service = ExportRowsService(Exports(export), files, ViewerQueries(files))  # type: ignore[arg-type]
    caller = AccessClaims(user_id="u")
    began = time.perf_counter()
    first = await service.page(caller, NAME, RowFilter(), 0, 100)
    print(f"first open (paths, county scores, every filter's counts) + first page: {(time.perf_counter() - began) * 1000:.0f} ms")
    king = first.choices.counties[len(first.choices.counties) // 2].value
    state = first.choices.states[0].value
    cases: list[tuple[str, RowFilter, RowOrder, int]] = [
        ("first page, input order", RowFilter(), RowOrder(), 0),
        ("page at row 900,000, input order", RowFilter(), RowOrder(), 900_000),
        ("county filter", RowFilter(county=king), RowOrder(), 0),
        ("state + rating filter", RowFilter(state=state, rating="Very High"), RowOrder(), 0),
        ("low confidence + status filter, deep page", RowFilter(low_confidence="yes", status="answered"), RowOrder(), 30_000),
        ("address search 'oak st, city 12'", RowFilter(search="oak st, city 12"), RowOrder(), 0),
        ("sorted by Total_Score desc", RowFilter(), RowOrder("Total_Score", True), 0),
        ("sorted by ERQK_Score asc, page at 500,000", RowFilter(), RowOrder("ERQK_Score", False), 500_000),
        ("state filter, sorted by HRCN_Score desc", RowFilter(state=state), RowOrder("HRCN_Score", True), 0),
        ("match level + rating + search, sorted by WFIR_Score desc", RowFilter(match_level="building", rating="Very High", search="main"),
         RowOrder("WFIR_Score", True), 100),
    ]
    print(f"\n{'page of 100 rows':58} {'median':>8} {'worst':>8} {'matching':>10}")
    for label, wanted, order, offset in cases:
        times, page = [], None
        for _ in range(args.repeat):
            began = time.perf_counter()
            page = await service.page(caller, NAME, wanted, offset, 100, order)
            times.append((time.perf_counter() - began) * 1000)
        assert page is not None and (len(page.rows) == 100 or page.total_matching < offset + 100)
        print(f"{label:58} {statistics.median(times):6.0f} ms {max(times):6.0f} ms {page.total_matching:>10,}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory of this process (writing included when written now): {peak:.0f} MB")


if __name__ == "__main__":
    asyncio.run(main())

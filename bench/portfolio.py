"""The portfolio summary endpoint's time for big batches. A detailed export of N rows is written to a
file store, built like the batch job builds it (every column, perils, ratings, location and
receipt), across 3,000 counties, with a value column with some bad cells. Its records are then
tallied as an export's assembly tallies them (application/batch.py assemble: the portfolio tally
of every variant) and the tally is stored as assembly stores it; a batch of 1,000,000 rows is not
run through geocoding here. Prints the CPU seconds of that tally (and of the default one only, as
assembly tallied before), then the summary use case's seconds (read the stored file, answer, name
the sectors, encode the route's JSON; a fresh service each, nothing kept; no HTTP, no sign-in, no
database: a fake store gives the export) for the default summary, another peril, a value column,
and both; with --stream, also the seconds of the one pass that exports assembled before need for
a value column; and peak memory.

    .venv/bin/python bench/portfolio.py --rows 100000 --stream
    .venv/bin/python bench/portfolio.py --rows 1000000
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters.files.local import LocalFileStore  # noqa: E402
from application.portfolio import PortfolioService  # noqa: E402
from application.portfolio_tally import RecordTally, encode_tally  # noqa: E402
from application.record_blocks import feed_records  # noqa: E402
from application.ports.accounts import AccessClaims  # noqa: E402
from application.ports.batch import ExportFile  # noqa: E402
from application.batch_files import write_bytes  # noqa: E402
from domain.detailed_export import ANSWER_COLUMN_NAMES  # noqa: E402
from entrypoints.http.portfolio_schema import portfolio_body  # noqa: E402
from domain.perils import HAZARDS  # noqa: E402

RATINGS = ["Very Low", "Relatively Low", "Relatively Moderate", "Relatively High", "Very High"]


def answer(rng: random.Random, county: int) -> bytes:
    record: dict = dict.fromkeys(ANSWER_COLUMN_NAMES)
    scores = {f"{h.code}_Score": (None if rng.random() < 0.2 else round(rng.random() * 100, 2)) for h in HAZARDS}
    record.update(scores)
    record.update({f"{h.code}_Rating": rng.choice(RATINGS) for h in HAZARDS})
    record.update(
        status="answered", match_level=rng.choice(["building", "census_exact", "zip_centroid"]),
        county_fips=f"{county:05d}", county_name=f"County {county}", county_state="ST", low_confidence="no",
        Total_Score=round(rng.random() * 100, 2), risk_rating=rng.choice(RATINGS), occupant_count=rng.randint(0, 5),
        naics_codes=rng.choice(["", "722511 445110", "522110", "311811"]), normalized_address="1 Main St, Town, ST 00000",
        address="1 Main St, Town, ST 00000\nYear Built: Unknown", perils={**scores, "Total_Score": 50.0},
        ratings={h.code: "Very Low" for h in HAZARDS},
        location={"method": "zip", "county_fips": f"{county:05d}", "alternatives": [], "notes": [], "lat": 47.6, "lng": -122.3},
        receipt={"nri_version": "1.20.0", "datasets": [{"dataset": "NRI", "version": "1.20", "as_of": "2025-12"}] * 6},
    )
    return msgspec.json.encode(record)


async def write_detail(files: LocalFileStore, key: str, rows: int) -> int:
    """The records written as they are made, never held whole; returns the bytes written."""
    rng = random.Random(7)
    answers = [answer(rng, 1001 + i) for i in range(3000)]
    size = 0
    async with files.open_writer(key) as writer:
        block = bytearray()
        for row in range(rows):
            value = rng.choice(["1,250,000", "300000", "n/a", ""]) if row % 10 == 0 else str(rng.randint(1, 10**7))
            own = msgspec.json.encode({"row": row + 2, "input": {"policy": f"P-{row}", "tiv": value}})
            block += own[:-1] + b"," + rng.choice(answers)[1:] + b"\n"
            if len(block) > 1024 * 1024:
                await writer.write(bytes(block))
                size += len(block)
                block.clear()
        await writer.write(bytes(block))
        size += len(block)
    return size


class OneExport:
    def __init__(self, file: ExportFile) -> None:
        self.file = file

    async def export(self, user_id: str, name: str) -> ExportFile:
        return self.file

    async def legacy_text(self, user_id: str, name: str, detailed: bool) -> str | None:
        return None


class SectorNames:
    async def titles(self, codes: set[str]) -> dict[str, str]:
        return {code: f"Sector {code}" for code in codes}


async def assembled(files: LocalFileStore, key: str, default_only: bool) -> float:
    """The CPU seconds (of this process: the machine is shared) that the records take through
    assembly's tally (application/batch.py assemble: decode the fields read, tally)."""
    summary = RecordTally() if default_only else RecordTally.every_variant()  # before: the default only
    start = time.process_time()
    await feed_records(files.read(key), summary.add_block)
    if not default_only:
        await write_bytes(files, "exports/u/e.summary", encode_tally(summary.tally))
    return time.process_time() - start


async def timed(service: PortfolioService, value_column: str | None, peril: str) -> tuple[float, float]:
    """Wall and CPU seconds of one summary asked of the use case and encoded as the route answers it."""
    wall, cpu = time.perf_counter(), time.process_time()
    portfolio = await service.summary(AccessClaims(user_id="u"), "bench.csv", value_column=value_column, peril=peril)
    msgspec.json.encode(portfolio_body(portfolio))
    assert portfolio.summary.ranked_by == peril and (value_column is None) == (portfolio.summary.value is None)
    return time.perf_counter() - wall, time.process_time() - cpu


async def run(rows: int, stream: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="perilscope-portfolio-") as tmp:
        files = LocalFileStore(Path(tmp))
        size = await write_detail(files, "exports/u/e.jsonl", rows)
        before = await assembled(files, "exports/u/e.jsonl", default_only=True)
        now = await assembled(files, "exports/u/e.jsonl", default_only=False)
        stored_size = len(b"".join([piece async for piece in files.read("exports/u/e.summary")]))
        print(f"{rows:,} rows ({size / 1e6:.0f} MB of JSON Lines); assembly's decoding and tally: "
              f"{now:.1f} s CPU with the tally of every variant, {before:.1f} s with the default one only; "
              f"stored tally {stored_size / 1e3:.0f} kB")
        export = ExportFile(id="e", user_id="u", name="bench.csv", exported_at=None,  # type: ignore[arg-type]
                            csv_key="exports/u/e.csv", detail_key="exports/u/e.jsonl",
                            summary_key="exports/u/e.summary", detail_columns=("policy", "tiv"))
        for column, peril in ((None, "composite"), (None, "ERQK"), ("tiv", "composite"), ("tiv", "HRCN")):
            service = PortfolioService(OneExport(export), files, SectorNames())  # type: ignore[arg-type]
            wall, cpu = await timed(service, column, peril)
            print(f"  summary (use case + JSON), value column {column}, peril {peril}: {wall:.3f} s ({cpu:.3f} s CPU)")
        if stream:
            legacy = ExportFile(id="e", user_id="u", name="bench.csv", exported_at=None,  # type: ignore[arg-type]
                                csv_key="exports/u/e.csv", detail_key="exports/u/e.jsonl", detail_columns=("policy", "tiv"))
            service = PortfolioService(OneExport(legacy), files, SectorNames())  # type: ignore[arg-type]
            wall, cpu = await timed(service, "tiv", "HRCN")
            print(f"  an export assembled before, value column tiv, peril HRCN (one pass over the records): "
                  f"{wall:.2f} s ({cpu:.2f} s CPU)")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak memory {peak_mb:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--stream", action="store_true", help="also time the one pass an export assembled before needs")
    arguments = parser.parse_args()
    asyncio.run(run(arguments.rows, arguments.stream))


if __name__ == "__main__":
    main()

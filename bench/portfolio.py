"""The portfolio summary's time for big batches: the use case (decode every JSON Lines record,
tally, name the sectors) over a detailed export of N rows in a file store, built like the batch
job builds it (every column, perils, ratings, location and receipt), across 3,000 counties, a value
column with some bad cells. Prints the seconds of the default summary (built once, as the export's
assembly does, then read as stored), of a value-column summary (streamed from the file) and peak memory.

    .venv/bin/python bench/portfolio.py --rows 100000
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
from application.portfolio_tally import encode_summary, tally_pieces  # noqa: E402
from application.ports.accounts import AccessClaims  # noqa: E402
from application.ports.batch import ExportFile  # noqa: E402
from application.batch_files import write_bytes  # noqa: E402
from domain.detailed_export import ANSWER_COLUMN_NAMES  # noqa: E402
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


async def run(rows: int) -> None:
    with tempfile.TemporaryDirectory(prefix="perilscope-portfolio-") as tmp:
        files = LocalFileStore(Path(tmp))
        size = await write_detail(files, "exports/u/e.jsonl", rows)
        start = time.perf_counter()
        default = await tally_pieces(files.read("exports/u/e.jsonl"), None, "composite")
        await write_bytes(files, "exports/u/e.summary.json", encode_summary(default.summary()))
        built = time.perf_counter() - start
        export = ExportFile(id="e", user_id="u", name="bench.csv", exported_at=None,  # type: ignore[arg-type]
                            csv_key="exports/u/e.csv", detail_key="exports/u/e.jsonl",
                            summary_key="exports/u/e.summary.json", detail_columns=("policy", "tiv"))
        service = PortfolioService(OneExport(export), files, SectorNames())  # type: ignore[arg-type]
        caller = AccessClaims(user_id="u")
        start = time.perf_counter()
        await service.summary(caller, "bench.csv")
        stored = time.perf_counter() - start
        start = time.perf_counter()
        portfolio = await service.summary(caller, "bench.csv", value_column="tiv")
        streamed = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{rows:,} rows ({size / 1e6:.0f} MB of JSON Lines): default summary built in {built:.2f} s (during "
          f"assembly), answered from the stored one in {stored:.3f} s; value-column summary streamed in "
          f"{streamed:.2f} s; {len(portfolio.summary.counties):,} counties; peak memory {peak_mb:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    asyncio.run(run(parser.parse_args().rows))


if __name__ == "__main__":
    main()

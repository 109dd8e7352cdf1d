"""The portfolio summary's time for big batches: the use case (decode every JSON Lines record,
tally, name the sectors) over a detailed export of N rows, built like the batch job builds it
(every column, perils, ratings, location and receipt), across 3,000 counties, a value column
with some bad cells. Prints seconds and peak memory.

    .venv/bin/python bench/portfolio.py --rows 100000
    .venv/bin/python bench/portfolio.py --rows 1000000
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import sys
import time
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.ports.accounts import AccessClaims  # noqa: E402
from application.ports.batch import ExportFile  # noqa: E402
from application.portfolio import PortfolioService  # noqa: E402
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


def detail(rows: int) -> str:
    rng = random.Random(7)
    answers = [answer(rng, 1001 + i) for i in range(3000)]
    lines = []
    for row in range(rows):
        value = rng.choice(["1,250,000", "300000", "n/a", ""]) if row % 10 == 0 else str(rng.randint(1, 10**7))
        own = msgspec.json.encode({"row": row + 2, "input": {"policy": f"P-{row}", "tiv": value}})
        lines.append((own[:-1] + b"," + rng.choice(answers)[1:]).decode())
    return "\n".join(lines) + "\n"


class OneExport:
    def __init__(self, text: str) -> None:
        self.file = ExportFile(id="e", user_id="u", name="bench.csv", content="", exported_at=None,  # type: ignore[arg-type]
                               detail=text, detail_columns=("policy", "tiv"))

    async def export(self, user_id: str, name: str) -> ExportFile:
        return self.file

    async def export_detail(self, user_id: str, name: str) -> str | None:
        return self.file.detail


class SectorNames:
    async def titles(self, codes: set[str]) -> dict[str, str]:
        return {code: f"Sector {code}" for code in codes}


async def run(rows: int) -> None:
    text = detail(rows)
    service = PortfolioService(OneExport(text), SectorNames())  # type: ignore[arg-type]
    caller = AccessClaims(user_id="u")
    start = time.perf_counter()
    portfolio = await service.summary(caller, "bench.csv", value_column="tiv")
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{rows:,} rows ({len(text) / 1e6:.0f} MB of JSON Lines): summary in {seconds:.2f} s, "
          f"{len(portfolio.summary.counties):,} counties, peak memory {peak_mb:.0f} MB (the export text included)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    asyncio.run(run(parser.parse_args().rows))


if __name__ == "__main__":
    main()

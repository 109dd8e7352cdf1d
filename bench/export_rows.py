"""The export viewer's first open of a big export, before and after its rows index was stored
while assembling: the first page of GET /api/exports/{name}/rows (ExportRowsService.page) over a
detailed export of N rows in a local file store, built like bench/portfolio.py builds it. Also
prints what storing the index adds to assembly (one decode shared with the default summary).

    .venv/bin/python bench/export_rows.py --rows 20000
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters.files.local import LocalFileStore  # noqa: E402
from application.export_records import ExportRecords  # noqa: E402
from application.export_rows import ExportRowsService  # noqa: E402
from application.portfolio_tally import RecordTally  # noqa: E402
from application.ports.accounts import AccessClaims  # noqa: E402
from application.ports.batch import ExportFile  # noqa: E402
from application.ports.files import whole_lines  # noqa: E402
from bench.portfolio import OneExport, write_detail  # noqa: E402
from domain.export_rows import RowFilter  # noqa: E402

DETAIL, ROWS_INDEX = "exports/u/e.jsonl", "exports/u/e.rows"


async def store_index(files: LocalFileStore) -> tuple[float, float]:
    """Seconds of the summary alone, then of the summary and the index as assembly makes them."""
    start = time.perf_counter()
    summary = RecordTally()
    async for block in whole_lines(files.read(DETAIL)):
        summary.add_block(block)
    summary_only = time.perf_counter() - start
    start = time.perf_counter()
    records = ExportRecords()
    async with files.open_writer(ROWS_INDEX) as writer:
        async for block in whole_lines(files.read(DETAIL)):
            records.add_block(block)
            await writer.write(records.rows_index.take_rows())
        await writer.write(records.rows_index.stored_tail())
    return summary_only, time.perf_counter() - start


async def first_page(files: LocalFileStore, export: ExportFile) -> tuple[float, float]:
    """Seconds of the first page of a new service (nothing kept), then of a filtered page after it."""
    service = ExportRowsService(OneExport(export), files)  # type: ignore[arg-type]
    caller = AccessClaims(user_id="u")
    start = time.perf_counter()
    page = await service.page(caller, export.name, RowFilter(), 0, 100)
    first = time.perf_counter() - start
    start = time.perf_counter()
    await service.page(caller, export.name, RowFilter(county=page.choices.counties[0].value), 0, 100)
    return first, time.perf_counter() - start


async def run(rows: int) -> None:
    with tempfile.TemporaryDirectory(prefix="perilscope-export-rows-") as tmp:
        files = LocalFileStore(Path(tmp))
        size = await write_detail(files, DETAIL, rows)
        old = ExportFile(id="e", user_id="u", name="bench.csv", exported_at=None,  # type: ignore[arg-type]
                         csv_key="exports/u/e.csv", detail_key=DETAIL, detail_columns=("policy", "tiv"))
        before, before_filter = await first_page(files, old)
        summary_only, with_index = await store_index(files)
        after, after_filter = await first_page(files, replace(old, rows_index_key=ROWS_INDEX))
        index_mb = await files.size(ROWS_INDEX) / 1e6
    print(f"{rows:,} rows ({size / 1e6:.0f} MB of JSON Lines), first page of 100:\n"
          f"  built from the detailed records (before): {before:.2f} s, then a filtered page {before_filter * 1000:.1f} ms\n"
          f"  read from the stored index (after):       {after:.3f} s, then a filtered page {after_filter * 1000:.1f} ms\n"
          f"  stored index {index_mb:.1f} MB; assembly's record pass {summary_only:.2f} s for the summary alone, "
          f"{with_index:.2f} s for the summary and the index (one decode)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=20_000)
    asyncio.run(run(parser.parse_args().rows))


if __name__ == "__main__":
    main()

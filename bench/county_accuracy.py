"""How often the county is right, on real addresses with a known county (shared/data/eval), and how
often a wrong county is *not* marked low-confidence. Both input paths: a single lookup's one-line
text through the address parser, and a batch upload's columns.

    .venv/bin/python bench/county_accuracy.py

Prints, per path: right-county rate, wrong-and-unmarked rate, low-confidence rate, and, for
comparison, the ZIP's primary (largest-area) county that PerilScope used before. A third figure
takes the same addresses typed without their ZIP code (`street, city, ST`, #26 item 7): each is
read as the place its city and state name (and the building record its street matches), as a
single lookup reads it; one that names no place or several counts as refused (not right)."""

from __future__ import annotations

import asyncio
import csv
import io
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from application.errors import InvalidInput  # noqa: E402
from domain.address import AddressError  # noqa: E402
from domain.batch_input import read_batch_csv  # noqa: E402
from domain.occupancy import address_from_parts  # noqa: E402
from entrypoints.settings import Settings  # noqa: E402


def eval_rows(data_dir: Path) -> list[dict[str, str]]:
    with open(data_dir / "eval" / "addresses_cms_hospitals_2017.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def as_batch_upload(rows: list[dict[str, str]]) -> bytes:
    """The eval file as a user would upload it: the README's split of `street, city, ST 12345`."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["Street Address", "City", "State", "Zip", "Country"])
    for row in rows:
        street, city, state_zip = row["address"].rsplit(", ", 2)
        state, _, zip_code = state_zip.partition(" ")
        writer.writerow([street, city, state, zip_code, "US"])
    return out.getvalue().encode()


def tally(name: str, outcomes: list[tuple[str | None, bool, str]], truth: list[str], seconds: float) -> None:
    n = len(truth)
    right = sum(1 for (county, _, _), expected in zip(outcomes, truth) if county == expected)
    unmarked = sum(1 for (county, low, _), expected in zip(outcomes, truth) if county != expected and not low)
    low = sum(1 for _, is_low, _ in outcomes if is_low)
    methods = Counter(method for _, _, method in outcomes)
    print(
        f"{name:<28} right {100 * right / n:6.2f}%   wrong and not marked {100 * unmarked / n:5.2f}%   "
        f"marked low-confidence {100 * low / n:5.2f}%   ({n} addresses, {seconds:.2f} s)   methods {dict(methods)}"
    )


async def main() -> None:
    with tempfile.TemporaryDirectory(prefix="perilscope-county-") as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/bench.db"
        env = {"DATABASE_URL": url, "PERILSCOPE_ENV": "test", "PERILSCOPE_VAR_DIR": tmp, "PATH": ""}
        perilscope = str(Path(sys.executable).parent / "perilscope")
        for command in (["db", "upgrade"], ["data", "load"]):
            subprocess.run([perilscope, *command], env=env, check=True, capture_output=True, cwd=ROOT)

        from entrypoints.container import build_container

        settings = Settings.from_env({"DATABASE_URL": url, "PERILSCOPE_ENV": "test", "PERILSCOPE_VAR_DIR": tmp})
        container = build_container(settings)
        providers = container.lookup_providers()
        data = await container.reference_index().data()
        rows = eval_rows(settings.data_dir)
        truth = [row["county_fips"] for row in rows]

        started = time.perf_counter()
        single: list[tuple[str | None, bool, str]] = []
        for row in rows:
            try:
                choice = await providers.locator.locate(providers.parser.parse(row["address"]))
                single.append((choice.county_fips, choice.low_confidence, choice.method))
            except AddressError:
                single.append((None, True, "refused"))
        single_seconds = time.perf_counter() - started

        started = time.perf_counter()
        batch: list[tuple[str | None, bool, str]] = []
        for row in read_batch_csv("eval.csv", as_batch_upload(rows)):
            # As application/batch.py builds a row's address: the columns are already separate.
            address = address_from_parts(row.street, row.city, row.state, row.zip)
            if address is None:
                batch.append((None, True, "refused"))
                continue
            choice = await providers.locator.locate(address)
            batch.append((choice.county_fips, choice.low_confidence, choice.method))
        batch_seconds = time.perf_counter() - started

        lookup = container.lookup()
        started = time.perf_counter()
        without_zip: list[tuple[str | None, bool, str]] = []
        for row in rows:
            try:
                typed = row["address"].rsplit(" ", 1)[0]  # "street, city, ST 12345" → "street, city, ST"
                location = await lookup.locate(await lookup.read_one(providers.parser.parse(typed)))
                without_zip.append((location.county_fips, location.low_confidence, location.method))
            except (AddressError, InvalidInput):
                without_zip.append((None, True, "refused"))
        without_zip_seconds = time.perf_counter() - started

        primary = []
        for row in rows:
            county = data.county_by_zip.get(row["address"].rsplit(" ", 1)[-1][:5])
            primary.append((county.county_fips if county else None, False, "zip_primary"))

        tally("single lookups", single, truth, single_seconds)
        tally("batch rows", batch, truth, batch_seconds)
        tally("single, typed without ZIP", without_zip, truth, without_zip_seconds)
        tally("before: ZIP primary county", primary, truth, 0.0)
        await container.engine().dispose()


if __name__ == "__main__":
    asyncio.run(main())

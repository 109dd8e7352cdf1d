"""The export viewer's pages as DuckDB queries over a real dataset (adapters/results/viewer.py):
any filters, any sort, any page of any rows written in any chunking give what a reference computed
in Python from the same answers gives; and the service's checks (unknown values named, no dataset)."""

from __future__ import annotations

import asyncio
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from adapters.files.local import LocalFileStore
from adapters.results.viewer import KEPT_SEARCHES, ViewerQueries
from application.errors import InvalidInput, NotFound
from application.export_rows import ExportRowsService
from application.ports.accounts import AccessClaims
from application.ports.batch import ExportFile
from domain.detailed_export import ANSWERED, NOT_LOCATED, ZIP_LEVEL
from domain.export_rows import SORT_COLUMNS, RowFilter, RowOrder
from domain.lookup_result import LookupResult, address_text
from tests.fakes import InMemoryFileStore
from tests.support.result_dataset import Row, batch_rows, sample_answer, write_dataset

CALLER = AccessClaims(user_id="u1")
NAME = "book_export_20261128_100000_000001.csv"


# --- the reference: what each row is filtered and sorted by, from its answer ----------------------

def keys_of(result: LookupResult) -> dict[str, str]:
    location, point = result.location, result.location.point
    if result.address is None or not location.located:
        status = NOT_LOCATED
    elif not result.address.street_read:
        status = ZIP_LEVEL
    else:
        status = ANSWERED
    return {
        "match_level": point.match_level if point else "none",
        "county": location.county_fips or "not located",
        "state": location.state or "not located",
        "rating": (result.perils.total_rating if result.perils else None) or "no rating",
        "low_confidence": "yes" if location.low_confidence else "no",
        "status": status,
    }


def searched_text(result: LookupResult) -> str:
    normalized = result.address.one_line if result.address else ""
    return normalized or address_text(result).split("\n", 1)[0]


def score_of(result: LookupResult, column: str) -> float | None:
    if result.perils is None:
        return None
    return result.perils.total if column == "Total_Score" else result.perils.scores.get(column.removesuffix("_Score"))


def reference(rows: list[Row], wanted: RowFilter, order: RowOrder) -> list[tuple[int, Row]]:
    matching = [
        (index, row) for index, row in enumerate(rows)
        if all(value is None or keys_of(row[2])[name] == value for name, value in wanted.chosen().items())
        and (not wanted.search or wanted.search.casefold() in searched_text(row[2]).casefold())
    ]
    if order.column:
        known = [m for m in matching if score_of(m[1][2], order.column) is not None]
        unknown = [m for m in matching if score_of(m[1][2], order.column) is None]
        known.sort(key=lambda m: (-score_of(m[1][2], order.column) if order.descending else score_of(m[1][2], order.column), m[1][0]))  # type: ignore[operator]
        matching = known + unknown
    return matching


class Exports:
    """The BatchStore's export lookup, for one user's datasets."""

    def __init__(self) -> None:
        self.by_name: dict[str, ExportFile] = {}

    async def export(self, user_id: str, name: str) -> ExportFile | None:
        export = self.by_name.get(name)
        return export if export and export.user_id == user_id else None


async def viewer_of(files: Any, rows: list[Row], user_columns: list[str], chunk_sizes: list[int]) -> ExportRowsService:
    written = await write_dataset(files, user_columns, rows, chunk_sizes=chunk_sizes, user_id="u1")
    exports = Exports()
    exports.by_name[NAME] = ExportFile(id="export1", user_id="u1", name=NAME, exported_at=datetime.now(UTC),
                                       manifest_key=written.manifest_key)
    return ExportRowsService(exports, files, ViewerQueries(files))  # type: ignore[arg-type]


def filter_for(draw: st.DrawFn, rows: list[Row]) -> RowFilter:
    keys = [keys_of(result) for _, _, result in rows]

    def pick(name: str) -> str | None:
        present = sorted({k[name] for k in keys})
        return draw(st.one_of(st.none(), st.sampled_from(present))) if present and draw(st.booleans()) else None

    search = draw(st.one_of(st.none(), st.sampled_from(["5th", "CALLE", "main st", "po box", "seattle", "nowhere", "zz%", "_"])))
    return RowFilter(match_level=pick("match_level"), county=pick("county"), rating=pick("rating"), state=pick("state"),
                     low_confidence=pick("low_confidence"), status=pick("status"), search=search)


@given(rows=batch_rows(user_columns=2, max_size=30), data=st.data())
@settings(max_examples=15, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate), suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_any_filter_and_sort_of_any_rows_is_the_reference(rows: list[Row], data: st.DataObject) -> None:
    chunk_sizes = data.draw(st.lists(st.integers(1, 12), min_size=1, max_size=4))
    wanted = filter_for(data.draw, rows)
    order = RowOrder(data.draw(st.one_of(st.none(), st.sampled_from(SORT_COLUMNS))), data.draw(st.booleans()))
    offset, limit = data.draw(st.integers(0, 32)), data.draw(st.integers(1, 12))

    async def check() -> None:
        with tempfile.TemporaryDirectory() as root:
            service = await viewer_of(LocalFileStore(Path(root)), rows, ["TIV", "Street Address"], chunk_sizes)
            page = await service.page(CALLER, NAME, wanted, offset, limit, order)
            expected = reference(rows, wanted, order)
            assert (page.total_rows, page.total_matching) == (len(rows), len(expected))
            assert page.columns == ["TIV", "Street Address"]
            assert [(r.index, r.row) for r in page.rows] == [(i, row[0]) for i, row in expected[offset:offset + limit]]
            for shown, (_, (_, values, result)) in zip(page.rows, expected[offset:offset + limit], strict=True):
                assert shown.values == tuple(values)
                assert shown.total_score == score_of(result, "Total_Score")
                assert shown.sort_score == (score_of(result, order.column) if order.column else None)
                assert shown.county_fips == result.location.county_fips
                assert shown.low_confidence == result.location.low_confidence
            counted = {name: Counter(keys_of(result)[name] for _, _, result in rows) for name in wanted.chosen()}
            choices = page.choices
            for name, offered in (("match_level", choices.match_levels), ("county", choices.counties), ("rating", choices.ratings),
                                  ("state", choices.states), ("low_confidence", choices.low_confidence), ("status", choices.statuses)):
                assert {c.value: c.rows for c in offered} == dict(counted[name]), name

    asyncio.run(check())


async def test_searches_in_turn_on_one_export_each_answer_the_reference_and_few_are_kept(tmp_path: Path) -> None:
    """The rows a search found are kept for the next pages of the same search (a few texts, the
    latest): every page, in whatever order the texts come back, is still the reference."""
    rows = batch_rows(user_columns=2, max_size=30).filter(lambda drawn: len(drawn) >= 12).example()
    service = await viewer_of(LocalFileStore(tmp_path), rows, ["TIV", "Street Address"], [7])
    texts = ["5th", "main st", "seattle", "CALLE", "po box", "nowhere", "5th", "seattle"]
    for text in texts:
        for offset in (0, 3):
            wanted, order = RowFilter(search=text), RowOrder("Total_Score", True)
            page = await service.page(CALLER, NAME, wanted, offset, 3, order)
            expected = reference(rows, wanted, order)
            assert page.total_matching == len(expected), text
            assert [(r.index, r.row) for r in page.rows] == [(i, row[0]) for i, row in expected[offset:offset + 3]], text
    [prepared] = service._queries._prepared.values()  # noqa: SLF001 - the bound of what is kept
    assert list(prepared.found) == ["CALLE", "po box", "nowhere", "5th", "seattle"][-KEPT_SEARCHES:]


async def test_choices_are_ordered_and_labelled_and_unknown_values_are_named(tmp_path: Path) -> None:
    rows = [(2, ["1", "a"], sample_answer()), (3, ["2", "b"], sample_answer()),
            (5, ["3", None], _not_located())]
    service = await viewer_of(LocalFileStore(tmp_path), rows, ["TIV", "Street Address"], [2])
    page = await service.page(CALLER, NAME, RowFilter(), 0, 10)
    assert [(c.value, c.label, c.rows) for c in page.choices.counties] == [("53033", "King, WA", 2), ("not located", "Not located", 1)]
    assert [c.value for c in page.choices.match_levels] == ["building", "none"]
    assert [c.value for c in page.choices.statuses] == ["answered", "not located"]
    assert [(c.value, c.label) for c in page.choices.states] == [("WA", "WA"), ("not located", "Not located")]
    assert [c.value for c in page.choices.ratings] == ["Very High", "no rating"]
    assert [(r.index, r.row, r.values) for r in page.rows] == [(0, 2, ("1", "a")), (1, 3, ("2", "b")), (2, 5, ("3", None))]
    with pytest.raises(InvalidInput, match="county must be one of the values in this export: 53033, not located"):
        await service.page(CALLER, NAME, RowFilter(county="99999"), 0, 10)
    with pytest.raises(InvalidInput, match="sort must be one of: Total_Score, AVLN_Score"):
        await service.page(CALLER, NAME, RowFilter(), 0, 10, RowOrder("risk_rating"))
    with pytest.raises(InvalidInput, match="limit must be from 1 to 500"):
        await service.page(CALLER, NAME, RowFilter(), 0, 501)
    with pytest.raises(NotFound):
        await service.page(AccessClaims(user_id="u2"), NAME, RowFilter(), 0, 10)
    deep = await service.page(CALLER, NAME, RowFilter(status="answered"), 5, 10)
    assert (deep.total_matching, deep.rows) == (2, [])


def _not_located() -> LookupResult:
    from domain.lookup_result import not_located

    return not_located("nowhere at all", "could not read", "2026-11-28T10:00:00+00:00", "s")


async def test_an_export_without_a_dataset_has_no_rows_and_the_in_memory_store_reads_through_the_cache() -> None:
    files = InMemoryFileStore()
    service = await viewer_of(files, [(2, ["x"], sample_answer())], ["TIV"], [5])
    page = await service.page(CALLER, NAME, RowFilter(search="5TH AVE"), 0, 5, RowOrder("ERQK_Score", descending=True))
    assert [(r.row, r.sort_score, r.values) for r in page.rows] == [(2, 99.2, ("x",))]
    exports = service._store  # noqa: SLF001
    exports.by_name["client_export.csv"] = ExportFile(id="c", user_id="u1", name="client_export.csv",  # type: ignore[attr-defined]
                                                      exported_at=datetime.now(UTC), source="client", csv_key="exports/u1/c.csv")
    with pytest.raises(NotFound, match="no detailed version"):
        await service.page(CALLER, "client_export.csv", RowFilter(), 0, 5)

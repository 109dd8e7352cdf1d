"""The export viewer's index of rows: odd and old records never fail, filters combine, and the
kept indexes stay within their memory budget."""

from __future__ import annotations

import msgspec
import pytest

from application.errors import InvalidInput, NotFound
from application.export_rows import ExportRowsService, build_index
from application.ports.accounts import AccessClaims
from application.ports.batch import ExportFile
from domain.export_rows import RowFilter, filter_problems
from tests.fakes import InMemoryFileStore

RECORDS = [
    {"row": 2, "address": "1 A St", "match_level": "building", "county_fips": "53033", "county_name": "King",
     "county_state": "WA", "Total_Score": 90.5, "risk_rating": "Very High", "low_confidence": "no", "perils": {"x": 1}},
    # From before match levels were written, with odd types: unknown, not a failure.
    {"row": "3", "address": 7, "county_fips": "53033", "county_name": "King", "county_state": "WA",
     "Total_Score": "high", "occupant_count": True, "low_confidence": ["yes"]},
    {"row": 4, "address": "3 C St", "match_level": "none", "status": "not located"},
    {"row": 5, "address": "4 D St", "match_level": "zip_centroid", "county_fips": "06037", "county_name": "Los Angeles",
     "county_state": "CA", "Total_Score": 0, "risk_rating": "Relatively Low"},
]


def lines(records: list[dict]) -> list[str]:
    return [msgspec.json.encode(r).decode() for r in records] + [""]


def test_odd_and_old_records_are_read_as_unknown() -> None:
    index = build_index(lines(RECORDS))
    first, odd, unread, zero = index.rows_at(range(index.count))
    assert (first.total_score, first.rating, first.low_confidence, first.index) == (90.5, "Very High", False, 0)
    assert (odd.row, odd.address, odd.total_score, odd.occupant_count, odd.match_level) == (None, "", None, None, None)
    assert odd.low_confidence is None
    assert unread.county_fips is None and zero.total_score == 0.0  # a real 0 stays 0
    choices = index.choices
    assert [c.value for c in choices.match_levels] == ["building", "zip_centroid", "none", "unknown"]
    assert [(c.value, c.label, c.rows) for c in choices.counties] == [
        ("53033", "King, WA", 2), ("06037", "Los Angeles, CA", 1), ("not located", "Not located", 1)]
    assert [c.value for c in choices.ratings] == ["Very High", "Relatively Low", "no rating"]


def test_filters_combine_and_unknown_values_are_named() -> None:
    index = build_index(lines(RECORDS))
    assert list(index.matching(RowFilter(county="53033"))) == [0, 1]
    assert list(index.matching(RowFilter(county="53033", match_level="unknown"))) == [1]
    assert list(index.matching(RowFilter(rating="no rating", match_level="none"))) == [2]
    problems = filter_problems(RowFilter(county="99999", rating="Very High"), index.choices)
    assert problems == ["county must be one of the values in this export: 53033, 06037, not located."]


class Store:
    """The exports' rows (BatchStore), each with its detailed records in a file store that counts reads."""

    def __init__(self, details: dict[str, str]) -> None:
        self.files = CountingFiles(piece_size=64)  # small pieces: records cut anywhere
        self.exports_by_name = {}
        for name, detail in details.items():
            self.files.files[f"exports/u1/{name}.jsonl"] = detail.encode()
            self.exports_by_name[name] = ExportFile(id=name, user_id="u1", name=name, exported_at=None,  # type: ignore[arg-type]
                                                    csv_key=f"exports/u1/{name}", detail_key=f"exports/u1/{name}.jsonl")

    @property
    def reads(self) -> int:
        return self.files.reads

    async def export(self, user_id: str, name: str) -> ExportFile | None:
        export = self.exports_by_name.get(name)
        return export if export and export.user_id == user_id else None


class CountingFiles(InMemoryFileStore):
    reads = 0

    def read(self, key: str, chunk_size: int | None = None):  # noqa: ANN201
        self.reads += 1
        return super().read(key, chunk_size)


CALLER = AccessClaims(user_id="u1")


async def test_indexes_are_kept_within_the_budget_newest_first() -> None:
    detail = "\n".join(lines(RECORDS))
    store = Store({f"book{i}_export.csv": detail for i in range(3)})
    one_index = build_index(lines(RECORDS)).size_bytes
    service = ExportRowsService(store, store.files, kept_bytes=2 * one_index)  # type: ignore[arg-type]
    for name in ("book0_export.csv", "book1_export.csv", "book0_export.csv"):
        page = await service.page(CALLER, name, RowFilter(), 1, 2)
        assert [r.index for r in page.rows] == [1, 2] and page.total_matching == 4
    assert store.reads == 2  # book0 asked twice, read once
    await service.page(CALLER, "book2_export.csv", RowFilter(), 0, 1)  # book1, least recently used, leaves
    await service.page(CALLER, "book0_export.csv", RowFilter(), 0, 1)
    assert store.reads == 3
    await service.page(CALLER, "book1_export.csv", RowFilter(), 0, 1)
    assert store.reads == 4
    with pytest.raises(InvalidInput):
        await service.page(CALLER, "book0_export.csv", RowFilter(), 0, 501)
    with pytest.raises(NotFound):
        await service.page(CALLER, "other_export.csv", RowFilter(), 0, 1)

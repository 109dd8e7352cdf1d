"""The export viewer's index of rows: odd and old records never fail, filters combine, the kept
indexes stay within their memory budget, and an index stored while assembling answers as one built
from the records (a damaged one is rebuilt)."""

from __future__ import annotations

from dataclasses import replace

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from application.errors import InvalidInput, NotFound
from application.export_rows import ExportRowsService, build_index
from application.rows_index import (
    RowsIndex,
    RowsIndexBuilder,
    StoredIndexMerger,
    UnreadableIndex,
    decode_stored,
    read_index_part,
)
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
    def __init__(self, piece_size: int) -> None:
        super().__init__(piece_size)
        self.keys_read: list[str] = []  # whole files
        self.ranges_read: list[tuple[str, int]] = []

    @property
    def reads(self) -> int:
        return len(self.keys_read)

    def read(self, key: str, chunk_size: int | None = None):  # noqa: ANN201
        self.keys_read.append(key)
        return super().read(key, chunk_size)

    async def read_range(self, key: str, start: int, length: int) -> bytes:
        self.ranges_read.append((key, length))
        return await super().read_range(key, start, length)


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


def many_records(count: int) -> list[dict]:
    """Records of every kind above, with counties and ratings varying, to page and filter."""
    ratings = ("Very High", "Relatively Low", None, "Insufficient Data")
    return [{**RECORDS[i % len(RECORDS)], "row": i + 2, "address": f"{i} Main St",
             "county_fips": None if i % 7 == 3 else f"{53000 + i % 11:05d}", "risk_rating": ratings[i % 4]}
            for i in range(count)]


def stored(records: list[dict], rows_taken_every: int) -> bytes:
    """The stored index's file as assembly writes it: the rows' JSON taken as it is made, then the tail."""
    builder, content = RowsIndexBuilder(), bytearray()
    for number, line in enumerate(lines(records)):
        builder.add_line(line)
        if number % rows_taken_every == 0:
            content += builder.take_rows()
    content += builder.take_rows()
    return bytes(content + builder.stored_tail())


def same_answers(stored_index: RowsIndex, built: RowsIndex) -> None:
    assert stored_index.count == built.count and stored_index.choices == built.choices
    assert stored_index.rows_at(range(built.count)) == built.rows_at(range(built.count))
    for level in [None, *(c.value for c in built.choices.match_levels)]:
        for county in [None, *(c.value for c in built.choices.counties)]:
            for rating in [None, *(c.value for c in built.choices.ratings)]:
                wanted = RowFilter(match_level=level, county=county, rating=rating)
                assert stored_index.matching(wanted) == built.matching(wanted)


@pytest.mark.parametrize("rows_taken_every", [1, 7, 1000])
def test_a_stored_index_answers_as_one_built_from_the_records(rows_taken_every: int) -> None:
    records = many_records(300)
    built = build_index(lines(records))
    same_answers(decode_stored(bytearray(stored(records, rows_taken_every))), built)
    assert build_index(lines([])).count == decode_stored(bytearray(stored([], 1))).count == 0


@pytest.mark.parametrize("damage", [
    lambda content: content[:5],  # cut short
    lambda content: content[:-20] + content[-8:],  # the header cut
    lambda content: content[:-8] + (10**9).to_bytes(8, "little"),  # a length past the start
    lambda content: b"x" + content,  # rows that no longer end where the header says
    # The header's last county is a filter choice's: changed, it has no code.
    lambda content: content[:content.rindex(b"53033")] + b"53034" + content[content.rindex(b"53033") + 5:],
])
def test_a_damaged_stored_index_is_refused(damage) -> None:  # noqa: ANN001
    with pytest.raises(UnreadableIndex, match="stored rows index"):
        decode_stored(bytearray(damage(stored(RECORDS, 1))))


async def test_the_stored_index_is_read_not_the_detailed_records_and_a_damaged_one_is_rebuilt() -> None:
    records = many_records(80)
    detail = "\n".join(lines(records))
    store = Store({"book_export.csv": detail, "damaged_export.csv": detail})
    for name, content in (("book_export.csv", stored(records, 3)), ("damaged_export.csv", b"not an index")):
        key = f"exports/u1/{name}.rows"
        store.files.files[key] = content
        store.exports_by_name[name] = replace(store.exports_by_name[name], rows_index_key=key)
    service = ExportRowsService(store, store.files)  # type: ignore[arg-type]
    built = build_index(lines(records))

    page = await service.page(CALLER, "book_export.csv", RowFilter(county="53003"), 1, 3)
    # Ranges of the stored index (its length, its header, the page's rows), never the detailed records.
    assert store.files.keys_read == [] and {key for key, _ in store.files.ranges_read} == {"exports/u1/book_export.csv.rows"}
    wanted = built.matching(RowFilter(county="53003"))
    [(_, rows_bytes)] = store.files.ranges_read[2:]  # the page's rows, close together: one range
    assert rows_bytes == built.ends[wanted[3]] - built.ends[wanted[1] - 1], "the page's span, not every row"
    assert page.rows == built.rows_at(wanted[1:4]) and page.total_matching == len(wanted) > 4
    assert page.total_rows == 80 and page.choices == built.choices
    whole = await service.page(CALLER, "book_export.csv", RowFilter(), 0, 80)
    assert whole.rows == built.rows_at(range(80))

    rebuilt = await service.page(CALLER, "damaged_export.csv", RowFilter(), 0, 80)
    assert store.files.keys_read == ["exports/u1/damaged_export.csv.jsonl"]
    assert rebuilt.rows == built.rows_at(range(80))


@given(st.lists(st.tuples(st.integers(1, 40), st.booleans()), max_size=6), st.integers(0, 6))
@settings(max_examples=40, deadline=None)
def test_an_index_merged_from_chunk_parts_is_the_index_of_the_whole(chunks: list[tuple[int, bool]], shift: int) -> None:
    """Chunks index their own rows (numbered from the chunk's first row); merged in order, their
    parts give the very file one pass over every record gives (a county's label is the first seen),
    whether a part's rows' JSON is a file of its own (the export's file is composed of those) or,
    stored before, sits in front of its arrays."""
    records = many_records(sum(size for size, _ in chunks) + shift)[shift:]
    merger, merged, first = StoredIndexMerger(), bytearray(), 0
    for size, json_apart in chunks:
        part = RowsIndexBuilder(first_index=first)
        for line in lines(records[first:first + size]):
            part.add_line(line)
        if json_apart:
            rows_json = part.take_rows()
            read = read_index_part(part.stored_tail())
            assert (read.rows_bytes, len(read.rows_in_front)) == (len(rows_json), 0)
            merger.take(read)
            merged += rows_json
        else:
            merged += merger.part_rows(part.stored())
        first += size
    merged += merger.stored_tail()
    assert bytes(merged) == stored(records, 1)


def test_a_part_holding_some_of_its_rows_json_is_refused() -> None:
    part = RowsIndexBuilder()
    for line in lines(many_records(3)):
        part.add_line(line)
    rows_json = part.take_rows()
    with pytest.raises(UnreadableIndex, match="some of its rows"):
        read_index_part(rows_json[:5] + part.stored_tail())

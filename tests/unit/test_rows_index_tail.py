"""The stored rows index's header, written in pieces with the arrays as views of themselves
(application/rows_index.py), is byte for byte what msgspec encodes from the whole header, for
arrays whose bytes take each of msgpack's bin sizes, and reads back."""

from __future__ import annotations

from array import array

import msgspec
import pytest

from application import rows_index

from application.rows_index import (
    STORED_VERSION,
    RowsIndexBuilder,
    StoredIndexHeader,
    StoredIndexMerger,
    decode_stored,
    header_pieces,
)
from domain.export_rows import FilterChoices


@pytest.mark.parametrize("rows", [0, 3, 31, 40, 5000, 40000])
def test_the_header_in_pieces_is_msgspecs_encoding(rows: int) -> None:
    ends = array("Q", range(1, rows + 1))  # one byte of rows' JSON each
    levels, counties, ratings = array("H", [0] * rows), array("H", [1] * rows), array("H", [2] * rows)
    codes = ({"zip": 0}, {"": 0, "53033": 1}, {"": 0, "Very High": 1})
    choices = FilterChoices(match_levels=(), counties=(), ratings=())
    whole = StoredIndexHeader(STORED_VERSION, rows, ends.tobytes(), levels.tobytes(), counties.tobytes(),
                              ratings.tobytes(), codes, choices)
    views = (memoryview(column).cast("B") for column in (ends, levels, counties, ratings))
    viewed = StoredIndexHeader(STORED_VERSION, rows, *views, codes, choices)

    expected = msgspec.msgpack.encode(whole)
    written = b"".join(header_pieces(viewed))

    assert written == expected + len(expected).to_bytes(8, "little")
    assert msgspec.msgpack.decode(written[:-8], type=StoredIndexHeader) == whole


def test_a_stored_index_written_in_pieces_reads_back() -> None:
    builder = RowsIndexBuilder()
    for row in range(300):
        builder.add_record({"row": row + 2, "address": f"{row} Main St", "match_level": "zip", "county_fips": "53033",
                            "risk_rating": "Very High" if row % 2 else "Relatively Low"})
    index = decode_stored(bytearray(builder.stored()))
    assert index.count == 300
    assert [row.address for row in index.rows_at([0, 299])] == ["0 Main St", "299 Main St"]


def _merged(rows: int, part_rows: int) -> bytearray:
    """An export's stored index merged from chunks' parts of `part_rows` rows, as assembly does."""
    merger = StoredIndexMerger()
    content = bytearray()
    for first in range(0, rows, part_rows):
        builder = RowsIndexBuilder(first)
        for row in range(first, min(rows, first + part_rows)):
            builder.add_record({"row": row + 2, "address": f"{row} Main St", "county_fips": "53033",
                                "match_level": ["zip", "building"][row % 2],
                                "risk_rating": "Very High" if row % 3 else "Relatively Low"})
        content += merger.part_rows(builder.stored())
    for piece in merger.stored_tail_pieces():
        content += piece
    return content


def test_arrays_spilled_to_temporary_files_give_the_same_stored_index(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = _merged(1000, part_rows=70)
    monkeypatch.setattr("application.rows_index.SPILL_ROWS", 100)  # several spills, and rows left in memory
    written: list[int] = []
    write = rows_index._SpillFile.write
    monkeypatch.setattr(rows_index._SpillFile, "write", lambda spill, view: written.append(view.nbytes) or write(spill, view))
    spilled = _merged(1000, part_rows=70)

    assert len(written) > 4 and sum(written) < 1000 * 14  # spilled several times, the last rows never
    assert spilled == kept
    index = decode_stored(spilled)
    assert [row.index for row in index.rows_at([0, 500, 999])] == [0, 500, 999]
    assert [row.address for row in index.rows_at([0, 999])] == ["0 Main St", "999 Main St"]

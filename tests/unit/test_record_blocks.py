"""Blocks of JSON Lines records decoded where they lie (application/record_blocks.py)."""

from __future__ import annotations

import tracemalloc

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from application.record_blocks import decoded_records, fields_struct

Fields = fields_struct("Fields", ("row", "county"))
decode = msgspec.json.Decoder(Fields).decode

records = st.lists(st.fixed_dictionaries({
    "row": st.integers(min_value=0, max_value=10**6),
    "county": st.one_of(st.none(), st.text(max_size=12)),  # any text: JSON escapes its line breaks
}), max_size=20)
blank_lines = st.lists(st.sampled_from([b"", b" ", b"\r", b"\t  ", b"\x0b"]), max_size=2)
endings = st.sampled_from([b"\n", b"\r\n"])


@settings(max_examples=200, deadline=None)
@given(records, st.data(), st.booleans(), st.booleans())
def test_every_record_is_read_once_in_order_whatever_the_blank_lines(
        rows: list[dict], data: st.DataObject, as_bytearray: bool, last_ended: bool) -> None:
    lines: list[bytes] = []
    for row in rows:
        lines += data.draw(blank_lines)
        lines.append(data.draw(st.sampled_from([b"", b" "])) + msgspec.json.encode(row))
    lines += data.draw(blank_lines)
    block = b"".join(line + data.draw(endings) for line in lines)
    if not last_ended and block.endswith(b"\n"):
        block = block.rstrip(b"\r\n")
    block = bytearray(block) if as_bytearray else block

    assert list(decoded_records(block, decode)) == rows


def test_a_block_is_not_copied_line_by_line() -> None:
    # A chunk's block is tens of megabytes: reading it as a list of its lines held it twice.
    line = msgspec.json.encode({"row": 1, "county": "King County, WA", "pad": "x" * 5000}) + b"\n"
    block = line * 4000  # 20 MB, as a chunk of 4,000 rows
    tracemalloc.start()
    try:
        count = sum(1 for _ in decoded_records(block, decode))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 4000
    assert peak < len(block) / 10

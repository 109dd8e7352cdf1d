"""The export viewer's compact index of an export's rows (application/export_rows.py answers pages
and filters from it): the few fields the viewer shows, encoded together, and each row's filter
values as small codes. Built from the detailed records as they stream by, either while the export
is assembled (stored as a file beside it) or on the first open of an export from before that.

The stored file is the rows' JSON, written as the rows are made (assembly memory holds only the
small per-row arrays, 14 bytes a row), followed by a msgpack header (the arrays as raw little-endian
bytes, the codes, the choices) and the header's length in 8 bytes. Loading it is a read and a copy
per array, with no per-row parse: the rows' JSON is decoded a page at a time, as before."""

from __future__ import annotations

import sys
import tempfile
from array import array
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

import msgspec

from application.record_blocks import decoded_records, fields_struct
from domain.export_rows import VIEWER_FIELDS, ChoicesTally, FilterChoices, RowFilter, row_keys

# Only the fields the viewer shows: msgspec skips the rest (perils, receipt, tract...) unbuilt.
ViewerFields = fields_struct("ViewerFields", VIEWER_FIELDS)


class ExportRow(msgspec.Struct):
    """One row of the export as the viewer shows it; null is unknown."""

    index: int  # position in the export (0-based): the group page is /search-result/export:{name}:{index}
    row: int | None  # line of the row in the uploaded file
    address: str  # the address text with its building facts as 'Key: value' lines (SPEC §3)
    status: str | None  # answered, answered at ZIP level, not located
    message: str | None
    match_level: str | None
    low_confidence: bool | None
    county_fips: str | None
    county_name: str | None
    county_state: str | None
    total_score: float | None  # NRI composite score of the county
    rating: str | None  # its composite rating
    top_3: str | None
    occupant_count: int | None
    naics_codes: str | None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def viewer_row(index: int, record: dict[str, Any]) -> ExportRow:
    """A record's viewer fields, each of the expected type or null (old or odd files never fail)."""
    confidence = record.get("low_confidence")  # "yes"/"no" in the flat record
    return ExportRow(
        index=index,
        row=_count(record.get("row")),
        address=_text(record.get("address")) or "",
        status=_text(record.get("status")),
        message=_text(record.get("message")),
        match_level=_text(record.get("match_level")),
        low_confidence=confidence if isinstance(confidence, bool) else {"yes": True, "no": False}.get(_text(confidence) or ""),
        county_fips=_text(record.get("county_fips")),
        county_name=_text(record.get("county_name")),
        county_state=_text(record.get("county_state")),
        total_score=_number(record.get("Total_Score")),
        rating=_text(record.get("risk_rating")),
        top_3=_text(record.get("top_3")),
        occupant_count=_count(record.get("occupant_count")),
        naics_codes=_text(record.get("naics_codes")),
    )


class _Codes:
    """Each distinct filter value as a small number, so a row's three values take 6 bytes."""

    def __init__(self) -> None:
        self.of: dict[str, int] = {}

    def code(self, value: str) -> int:
        return self.of.setdefault(value, len(self.of))


ReadRange = Callable[[int, int], Awaitable[bytes]]  # (start, length) of a stored file: its bytes
# Rows read from a stored index whose offsets are at most this far apart are read together.
_READ_GAP_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class StoredRows:
    """The rows' JSON left in the stored index's file, read a page at a time: a 1,000,000-row
    index holds 14 MB of arrays in memory instead of 350 MB."""

    read_range: ReadRange


@dataclass(frozen=True, slots=True)
class RowsIndex:
    rows: bytes | bytearray | StoredRows  # every row's ExportRow JSON, one after another
    ends: array  # where each row's JSON ends in `rows`
    levels: array  # each row's filter values, as codes of the dicts below
    counties: array
    ratings: array
    codes: tuple[dict[str, int], dict[str, int], dict[str, int]]
    choices: FilterChoices

    @property
    def count(self) -> int:
        return len(self.ends)

    @property
    def size_bytes(self) -> int:
        held = 0 if isinstance(self.rows, StoredRows) else len(self.rows)
        return held + self.count * (self.ends.itemsize + 3 * self.levels.itemsize)

    def matching(self, wanted: RowFilter) -> array:
        """Positions of the rows passing the filter, in export order."""
        columns = []
        for value, codes, column in zip((wanted.match_level, wanted.county, wanted.rating), self.codes,
                                        (self.levels, self.counties, self.ratings), strict=True):
            if value is not None:
                columns.append((codes[value], column))
        positions = range(self.count)
        for code, column in columns:
            positions = [i for i in positions if column[i] == code]
        return array("I", positions)

    def _start(self, position: int) -> int:
        return self.ends[position - 1] if position else 0

    def rows_at(self, positions: Iterable[int]) -> list[ExportRow]:
        """Rows of an index held in memory."""
        if isinstance(self.rows, StoredRows):
            raise TypeError("The rows of a stored index are read from its file: use read_rows.")
        decode = msgspec.json.Decoder(ExportRow).decode
        return [decode(self.rows[self._start(i):self.ends[i]]) for i in positions]

    async def read_rows(self, positions: Iterable[int]) -> list[ExportRow]:
        """Rows of any index; of a stored one, rows close together are read in one range."""
        if not isinstance(self.rows, StoredRows):
            return self.rows_at(positions)
        decode = msgspec.json.Decoder(ExportRow).decode
        found: list[ExportRow] = []
        for run in _runs(list(positions), self._start, self.ends):
            first = self._start(run[0])
            span = await self.rows.read_range(first, self.ends[run[-1]] - first)
            found += [decode(span[self._start(i) - first:self.ends[i] - first]) for i in run]
        return found


class RowsIndexBuilder:
    """Builds a RowsIndex from the records as they stream by, one decoded at a time; memory grows
    with the viewer fields only, or only with the per-row arrays when the rows' JSON is taken
    away as it is made (`take_rows`, to a stored index's file)."""

    def __init__(self, first_index: int = 0) -> None:
        self._first_index = first_index  # a chunk's part: the position of its first row in the export
        self._decode = msgspec.json.Decoder(ViewerFields).decode
        self._encode = msgspec.json.Encoder().encode
        self._tally = ChoicesTally()
        self._codes = (_Codes(), _Codes(), _Codes())  # match level, county, rating
        self._rows, self._ends = bytearray(), array("Q")
        self._taken = 0  # bytes of rows' JSON already handed out by take_rows
        self._columns = (array("H"), array("H"), array("H"))

    def add_line(self, line: str | bytes) -> None:
        if line.strip():
            self.add_record(msgspec.structs.asdict(self._decode(line)))

    def add_record(self, record: dict[str, Any]) -> None:
        """A decoded record (a dict with at least the viewer's fields; others are ignored)."""
        keys = row_keys(record)
        self._tally.add(keys, record)
        self._rows += self._encode(viewer_row(self._first_index + len(self._ends), record))
        self._ends.append(self._taken + len(self._rows))
        for column, codes, value in zip(self._columns, self._codes, (keys.match_level, keys.county, keys.rating),
                                        strict=True):
            column.append(codes.code(value))

    def add_block(self, block: bytes) -> None:
        for record in decoded_records(block, self._decode):
            self.add_record(record)

    def take_rows(self) -> bytes:
        """The rows' JSON made since the last take, to be written in order to the stored index."""
        made = bytes(self._rows)
        self._rows.clear()
        self._taken += len(made)
        return made

    def stored_tail(self) -> bytes:
        """What follows the rows' JSON in the stored index: the header and its length."""
        if self._rows:
            raise ValueError("Take the last rows (take_rows) before the stored index's tail.")
        return b"".join(_stored_tail_pieces(self._taken, self._ends, self._columns, self._codes, self._tally))

    def stored(self) -> bytes:
        """The whole stored file (a chunk's part: small)."""
        return self.take_rows() + self.stored_tail()

    def index(self) -> RowsIndex:
        if self._taken:
            raise ValueError("Some rows were taken away (take_rows): read the index from where they went.")
        levels, counties, ratings = self._columns
        return RowsIndex(bytes(self._rows), self._ends, levels, counties, ratings,
                         tuple(codes.of for codes in self._codes), self._tally.choices())


def _runs(positions: list[int], start: Callable[[int], int], ends: array) -> list[list[int]]:
    """Positions in groups, each to be read as one range: rows closer than a gap go together."""
    runs: list[list[int]] = []
    for position in positions:
        if runs and 0 <= start(position) - ends[runs[-1][-1]] <= _READ_GAP_BYTES:
            runs[-1].append(position)
        else:
            runs.append([position])
    return runs


@dataclass(frozen=True, slots=True)
class IndexPart:
    """A chunk's stored part of the index, read and checked, not yet taken in: its arrays, and the
    bytes of rows' JSON they index. The JSON is a file of its own (ports/chunks.PartKeys.rows_json),
    or, in a part stored before it had one, in front of the header (`rows_in_front`)."""

    index: RowsIndex
    rows_bytes: int
    rows_in_front: memoryview


def read_index_part(part: bytes) -> IndexPart:
    """UnreadableIndex if it is damaged, or of another version."""
    header_start = _header_start(len(part), part[-_LENGTH_BYTES:]) if len(part) >= _LENGTH_BYTES else -1
    if header_start < 0:
        raise UnreadableIndex("A chunk's stored rows index is too short.")
    header = _header(memoryview(part)[header_start:-_LENGTH_BYTES])
    if header_start not in (0, header.rows_bytes):
        raise UnreadableIndex("A chunk's stored rows index holds some of its rows' JSON, not all.")
    index = _index(header, header.rows_bytes, bytearray())  # its arrays; the rows are the caller's to place
    return IndexPart(index, header.rows_bytes, memoryview(part)[:header_start])


class StoredIndexMerger:
    """The stored index of a whole export from its chunks' stored parts, in order: the caller
    writes each part's rows' JSON (`part_rows`) as it is; this keeps the arrays, with each part's
    ends moved past the rows before it and its codes made the export's."""

    def __init__(self) -> None:
        self._tally = ChoicesTally()
        self._codes = (_Codes(), _Codes(), _Codes())
        self._ends = array("Q")
        self._columns = (array("H"), array("H"), array("H"))
        self._rows_bytes = 0
        # Every SPILL_ROWS rows the arrays go to temporary files (ends, then the three columns), so
        # the assembly's memory is the same for any row count (they were 14 bytes a row).
        self._spilled: tuple[_SpillFile, ...] = ()

    def part_rows(self, part: bytes) -> memoryview:
        """The part's rows' JSON, its arrays and choices taken in (UnreadableIndex if damaged)."""
        checked = read_index_part(part)
        self.take(checked)
        return checked.rows_in_front

    def take(self, part: IndexPart) -> None:
        """A chunk's part, read and checked, taken in: its rows' JSON goes in order after the rows before."""
        index = part.index
        moved = self._rows_bytes
        self._ends.extend(end + moved for end in index.ends)
        for column, codes, part_codes, part_column in zip(self._columns, self._codes, index.codes,
                                                          (index.levels, index.counties, index.ratings), strict=True):
            ours = {code: codes.code(value) for value, code in part_codes.items()}
            column.extend(ours[code] for code in part_column)
        self._tally.add_choices(index.choices)
        self._rows_bytes += part.rows_bytes
        if len(self._ends) >= SPILL_ROWS:
            self._spill()

    def _spill(self) -> None:
        arrays = (self._ends, *self._columns)
        self._spilled = self._spilled or tuple(_SpillFile() for _ in arrays)
        for spill, column in zip(self._spilled, arrays, strict=True):
            with _little_endian(column) as view:
                spill.write(view)
            del column[:]

    def stored_tail_pieces(self) -> Iterator[bytes | memoryview]:
        """What follows the rows' JSON: the header and its length, in pieces to write in order;
        the arrays are read back from their files a MB at a time, or are views of themselves,
        never copied whole (each copy was 14 bytes a row, at the end of assembly, its peak)."""
        return _stored_tail_pieces(self._rows_bytes, self._ends, self._columns, self._codes, self._tally,
                                   self._spilled)

    def stored_tail(self) -> bytes:
        return b"".join(self.stored_tail_pieces())


def _stored_tail_pieces(rows_bytes: int, ends: array, columns: tuple[array, array, array],
                        codes: tuple[_Codes, _Codes, _Codes], tally: ChoicesTally,
                        spilled: tuple[_SpillFile, ...] = ()) -> Iterator[bytes | memoryview]:
    arrays = [_Spilled(spill, _little_endian(column))
              for spill, column in zip(spilled or (_SpillFile.none(),) * 4, (ends, *columns), strict=True)]
    return header_pieces(StoredIndexHeader(
        version=STORED_VERSION, rows_bytes=rows_bytes, ends=arrays[0], levels=arrays[1], counties=arrays[2],
        ratings=arrays[3], codes=tuple(one.of for one in codes), choices=tally.choices(),
    ))


def build_index(lines: Iterable[str]) -> RowsIndex:
    """An index of records held in memory (small exports, tests)."""
    builder = RowsIndexBuilder()
    for line in lines:
        builder.add_line(line)
    return builder.index()


STORED_VERSION = 1
_LENGTH_BYTES = 8  # the header's length, at the very end of the file


class StoredIndexHeader(msgspec.Struct, array_like=True):
    version: int
    rows_bytes: int
    ends: bytes  # array "Q", little-endian
    levels: bytes  # arrays "H", little-endian
    counties: bytes
    ratings: bytes
    codes: tuple[dict[str, int], dict[str, int], dict[str, int]]
    choices: FilterChoices


class UnreadableIndex(ValueError):
    """A stored index of another version, or damaged: the caller builds one from the records."""


def _little_endian(column: array) -> memoryview:
    """The column's bytes, little-endian: a view of the array itself where the machine is."""
    if sys.byteorder == "little":
        return memoryview(column).cast("B")
    swapped = array(column.typecode, column)
    swapped.byteswap()
    return memoryview(swapped).cast("B")


def _column(typecode: str, content: bytes) -> array:
    column = array(typecode)
    try:
        column.frombytes(content)
    except ValueError as error:  # not a whole number of items
        raise UnreadableIndex(f"A stored rows index's column could not be read: {error}") from error
    if sys.byteorder == "big":
        column.byteswap()
    return column


def header_pieces(index_parts: StoredIndexHeader) -> Iterator[bytes | memoryview]:
    """The header as msgspec encodes it (an array of its fields, array_like), then its length; a
    field given as a view (an array's bytes), or as spilled bytes, is written as a bin of its own,
    read back a piece at a time, never copied whole."""
    fields = [getattr(index_parts, name) for name in StoredIndexHeader.__struct_fields__]
    length = 0
    for piece in _field_pieces(fields):
        length += len(piece)
        yield piece
    yield length.to_bytes(_LENGTH_BYTES, "little")


def _field_pieces(fields: list[Any]) -> Iterator[bytes | memoryview]:
    yield bytes([_FIXARRAY | len(fields)])
    for value in fields:
        if isinstance(value, memoryview):
            yield _bin_prefix(value.nbytes)
            yield value
        elif isinstance(value, _Spilled):
            yield _bin_prefix(value.nbytes)
            yield from value.pieces()
        else:
            yield _ENCODE(value)


SPILL_ROWS = 65536  # rows of arrays kept in memory before they go to a temporary file (0.9 MB)
_READ_BYTES = 1 << 20


class _SpillFile:
    """An anonymous temporary file (gone when closed or collected) of one array's bytes."""

    def __init__(self, opened: bool = True) -> None:
        self._handle: IO[bytes] | None = tempfile.TemporaryFile() if opened else None  # noqa: SIM115 - closed once read
        self.nbytes = 0

    @classmethod
    def none(cls) -> _SpillFile:
        return cls(opened=False)

    def write(self, content: memoryview) -> None:
        assert self._handle is not None
        self._handle.write(content)
        self.nbytes += content.nbytes

    def pieces(self) -> Iterator[bytes]:
        if self._handle is None:
            return
        self._handle.seek(0)
        while piece := self._handle.read(_READ_BYTES):
            yield piece
        self._handle.close()
        self._handle = None


@dataclass(frozen=True, slots=True)
class _Spilled:
    """An array's bytes: those in its temporary file, then those still in memory."""

    spill: _SpillFile
    rest: memoryview

    @property
    def nbytes(self) -> int:
        return self.spill.nbytes + self.rest.nbytes

    def pieces(self) -> Iterator[bytes | memoryview]:
        yield from self.spill.pieces()
        yield self.rest


_ENCODE = msgspec.msgpack.Encoder().encode
_FIXARRAY = 0x90  # msgpack: an array of up to 15 items, its length in the low bits


def _bin_prefix(length: int) -> bytes:
    """msgpack's bin header, in the smallest form, as msgspec writes it."""
    if length < 1 << 8:
        return b"\xc4" + length.to_bytes(1, "big")
    if length < 1 << 16:
        return b"\xc5" + length.to_bytes(2, "big")
    return b"\xc6" + length.to_bytes(4, "big")


def decode_stored(content: bytearray) -> RowsIndex:
    """The index from its stored file's bytes (taken over: the header is cut off in place)."""
    if len(content) < _LENGTH_BYTES:
        raise UnreadableIndex("The stored rows index is too short.")
    header_start = _header_start(len(content), content[-_LENGTH_BYTES:])
    with memoryview(content) as view:  # released before the header is cut off below
        header = _header(view[header_start:-_LENGTH_BYTES])
    index = _index(header, header_start, content)
    del content[header_start:]  # the rows' JSON stays, with no copy
    return index


async def open_stored(size: int, read_range: ReadRange) -> RowsIndex:
    """The index from its stored file, read by ranges: its header and arrays; the rows' JSON stays
    in the file and is read a page at a time (RowsIndex.read_rows)."""
    if size < _LENGTH_BYTES:
        raise UnreadableIndex("The stored rows index is too short.")
    header_start = _header_start(size, await read_range(size - _LENGTH_BYTES, _LENGTH_BYTES))
    header = _header(await read_range(header_start, size - _LENGTH_BYTES - header_start))
    return _index(header, header_start, StoredRows(read_range))


def _header_start(size: int, length_bytes: bytes | bytearray) -> int:
    header_start = size - _LENGTH_BYTES - int.from_bytes(length_bytes, "little")
    if header_start < 0:
        raise UnreadableIndex("The stored rows index's header length is past its start.")
    return header_start


def _header(content: bytes | memoryview) -> StoredIndexHeader:
    try:
        header = msgspec.msgpack.decode(content, type=StoredIndexHeader)
    except msgspec.DecodeError as error:
        raise UnreadableIndex(f"The stored rows index could not be read: {error}") from error
    if header.version != STORED_VERSION:
        raise UnreadableIndex(f"The stored rows index is of version {header.version}, not {STORED_VERSION}.")
    return header


def _index(header: StoredIndexHeader, rows_bytes: int, rows: bytearray | StoredRows) -> RowsIndex:
    ends = _column("Q", header.ends)
    levels, counties, ratings = (_column("H", part) for part in (header.levels, header.counties, header.ratings))
    if header.rows_bytes != rows_bytes or not len(ends) == len(levels) == len(counties) == len(ratings) or (
            len(ends) and ends[-1] != header.rows_bytes):
        raise UnreadableIndex("The stored rows index's parts do not agree in length.")
    offered = (header.choices.match_levels, header.choices.counties, header.choices.ratings)
    if any(set(codes) != {choice.value for choice in choices} for codes, choices in zip(header.codes, offered,
                                                                                          strict=True)):
        raise UnreadableIndex("The stored rows index's codes and filter choices differ.")
    return RowsIndex(rows, ends, levels, counties, ratings, header.codes, header.choices)

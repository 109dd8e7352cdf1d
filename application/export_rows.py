"""The export viewer's rows, a page at a time and filtered on the server, so the browser never
downloads a batch's whole detailed export (hundreds of MB at 100,000 rows) to scroll or filter it.

The detailed records are read once per export into a compact index (the few fields the viewer
shows, encoded together, and each row's filter values as small codes); pages and filters are then
answered from it. Indexes are kept within a memory budget, least recently used first out."""

from __future__ import annotations

import asyncio
from array import array
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from application.batch import NO_DETAIL, valid_export_name
from application.errors import InvalidInput, NotFound
from application.ports.accounts import AccessClaims
from application.ports.batch import BatchStore, ExportFile
from application.ports.files import FileStore
from application.record_blocks import feed_records
from application.result_files import export_bytes
from domain.export_rows import VIEWER_FIELDS, ChoicesTally, FilterChoices, RowFilter, filter_problems, row_keys

MAX_LIMIT = 500
# At 100,000 rows an index is about 40 MB; the newest one is kept whatever its size.
KEPT_INDEX_BYTES = 128 * 1024 * 1024
KEPT_FILTERS = 32  # the positions matching a filter: 4 bytes a row


# Only the fields the viewer shows: msgspec skips the rest (perils, receipt, tract...) unbuilt.
ViewerFields = msgspec.defstruct("ViewerFields", [(name, Any, None) for name in VIEWER_FIELDS])


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


@dataclass(frozen=True, slots=True)
class RowsIndex:
    rows: bytes  # every row's ExportRow JSON, one after another
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
        return len(self.rows) + self.count * (self.ends.itemsize + 3 * self.levels.itemsize)

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

    def rows_at(self, positions: Iterable[int]) -> list[ExportRow]:
        decode = msgspec.json.Decoder(ExportRow).decode
        return [decode(self.rows[(self.ends[i - 1] if i else 0):self.ends[i]]) for i in positions]


class RowsIndexBuilder:
    """Builds a RowsIndex from the records as they stream by, one decoded at a time; memory grows
    with the viewer fields only."""

    def __init__(self) -> None:
        self._decode = msgspec.json.Decoder(ViewerFields).decode
        self._encode = msgspec.json.Encoder().encode
        self._tally = ChoicesTally()
        self._codes = (_Codes(), _Codes(), _Codes())  # match level, county, rating
        self._rows, self._ends = bytearray(), array("Q")
        self._columns = (array("H"), array("H"), array("H"))

    def add_line(self, line: str | bytes) -> None:
        if not line.strip():
            return
        record = msgspec.structs.asdict(self._decode(line))
        keys = row_keys(record)
        self._tally.add(keys, record)
        self._rows += self._encode(viewer_row(len(self._ends), record))
        self._ends.append(len(self._rows))
        for column, codes, value in zip(self._columns, self._codes, (keys.match_level, keys.county, keys.rating),
                                        strict=True):
            column.append(codes.code(value))

    def add_block(self, block: bytes) -> None:
        for line in block.splitlines():
            self.add_line(line)

    def index(self) -> RowsIndex:
        levels, counties, ratings = self._columns
        return RowsIndex(bytes(self._rows), self._ends, levels, counties, ratings,
                         tuple(codes.of for codes in self._codes), self._tally.choices())


def build_index(lines: Iterable[str]) -> RowsIndex:
    """An index of records held in memory (small exports, tests)."""
    builder = RowsIndexBuilder()
    for line in lines:
        builder.add_line(line)
    return builder.index()


@dataclass(frozen=True, slots=True)
class RowsPage:
    export_name: str
    offset: int
    limit: int
    total_rows: int
    total_matching: int
    rows: list[ExportRow]
    choices: FilterChoices


def _checked_page(offset: int, limit: int) -> None:
    if offset < 0:
        raise InvalidInput("offset must be 0 or more (the position of the first matching row to answer).")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be from 1 to {MAX_LIMIT} rows.")


class ExportRowsService:
    def __init__(self, store: BatchStore, files: FileStore, kept_bytes: int = KEPT_INDEX_BYTES) -> None:
        self._store = store
        self._files = files
        self._kept_bytes = kept_bytes
        self._indexes: OrderedDict[str, RowsIndex] = OrderedDict()
        self._filtered: OrderedDict[tuple[str, RowFilter], array] = OrderedDict()
        # One build at a time: a second request for the same export waits for the first's index.
        self._building = asyncio.Lock()

    async def page(self, caller: AccessClaims, name: str, wanted: RowFilter, offset: int, limit: int) -> RowsPage:
        _checked_page(offset, limit)
        export = await self._store.export(caller.user_id, name) if valid_export_name(name) else None
        if export is None:
            raise NotFound("Export not found")
        index = await self._index(export)
        if problems := filter_problems(wanted, index.choices):
            raise InvalidInput(" ".join(problems), code="unknown_filter_value")
        positions = self._matching(export.id, index, wanted)
        return RowsPage(
            export_name=export.name, offset=offset, limit=limit, total_rows=index.count,
            total_matching=len(positions), rows=index.rows_at(positions[offset:offset + limit]),
            choices=index.choices,
        )

    async def _index(self, export: ExportFile) -> RowsIndex:
        export_id = export.id
        async with self._building:
            if export_id in self._indexes:
                self._indexes.move_to_end(export_id)
                return self._indexes[export_id]
            records = await export_bytes(self._files, self._store, export, detailed=True)
            if records is None:
                raise NotFound(NO_DETAIL)
            builder = RowsIndexBuilder()
            # About a second of CPU per 100,000 rows: large blocks off the event loop.
            await feed_records(records, builder.add_block)
            index = builder.index()
            self._indexes[export_id] = index
            while len(self._indexes) > 1 and sum(i.size_bytes for i in self._indexes.values()) > self._kept_bytes:
                gone, _ = self._indexes.popitem(last=False)
                for key in [k for k in self._filtered if k[0] == gone]:
                    del self._filtered[key]
            return index

    def _matching(self, export_id: str, index: RowsIndex, wanted: RowFilter) -> array | range:
        if wanted.is_empty:
            return range(index.count)
        key = (export_id, wanted)
        if key in self._filtered:
            self._filtered.move_to_end(key)
        else:
            self._filtered[key] = index.matching(wanted)
            if len(self._filtered) > KEPT_FILTERS:
                self._filtered.popitem(last=False)
        return self._filtered[key]

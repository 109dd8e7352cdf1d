"""The export viewer's rows, a page at a time and filtered on the server, so the browser never
downloads a batch's whole detailed export (hundreds of MB at 100,000 rows) to scroll or filter it.

Pages and filters are answered from a compact index of the export's rows (application/rows_index.py):
the one stored beside the export when it was assembled, or, for an export from before, one built
from its detailed records on first open. Indexes are kept within a memory budget, least recently
used first out."""

from __future__ import annotations

import asyncio
import logging
from array import array
from collections import OrderedDict
from dataclasses import dataclass

from application.batch import NO_DETAIL, valid_export_name
from application.errors import InvalidInput, NotFound
from application.ports.accounts import AccessClaims
from application.ports.batch import BatchStore, ExportFile
from application.ports.files import FileStore
from application.record_blocks import feed_records
from application.result_files import export_bytes
from application.rows_index import (  # noqa: F401 - ExportRow, build_index: this module's API as before
    ExportRow,
    RowsIndex,
    RowsIndexBuilder,
    UnreadableIndex,
    build_index,
    open_stored,
)
from domain.export_rows import FilterChoices, RowFilter, filter_problems

logger = logging.getLogger(__name__)

MAX_LIMIT = 500
# At 100,000 rows an index is about 40 MB; the newest one is kept whatever its size.
KEPT_INDEX_BYTES = 128 * 1024 * 1024
KEPT_FILTERS = 32  # the positions matching a filter: 4 bytes a row


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
            total_matching=len(positions), rows=await index.read_rows(positions[offset:offset + limit]),
            choices=index.choices,
        )

    async def _index(self, export: ExportFile) -> RowsIndex:
        export_id = export.id
        async with self._building:
            if export_id in self._indexes:
                self._indexes.move_to_end(export_id)
                return self._indexes[export_id]
            index = await self._stored_index(export) or await self._built_index(export)
            self._indexes[export_id] = index
            while len(self._indexes) > 1 and sum(i.size_bytes for i in self._indexes.values()) > self._kept_bytes:
                gone, _ = self._indexes.popitem(last=False)
                for key in [k for k in self._filtered if k[0] == gone]:
                    del self._filtered[key]
            return index

    async def _stored_index(self, export: ExportFile) -> RowsIndex | None:
        """The index stored while the export was assembled (None for exports from before): its
        arrays read, its rows left in the file until a page asks for them."""
        key = export.rows_index_key
        if key is None:
            return None

        async def read_range(start: int, length: int) -> bytes:
            content = await self._files.read_range(key, start, length)
            if len(content) != length:  # the file changed or was cut: never decoded as rows
                raise UnreadableIndex("The stored rows index is shorter than its header says.")
            return content

        try:
            return await open_stored(await self._files.size(key), read_range)
        except UnreadableIndex as problem:
            logger.warning("Export %s: %s Building it from the detailed records.", export.id, problem)
            return None

    async def _built_index(self, export: ExportFile) -> RowsIndex:
        records = await export_bytes(self._files, self._store, export, detailed=True)
        if records is None:
            raise NotFound(NO_DETAIL)
        builder = RowsIndexBuilder()
        # About a second of CPU per 100,000 rows: large blocks off the event loop.
        await feed_records(records, builder.add_block)
        return builder.index()

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

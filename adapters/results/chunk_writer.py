"""A chunk's answered rows gathered as columns and written as its two Parquet files (issue #27):
`<stem>.facts.parquet` (a row per input row, in the order added) and `<stem>.scores.parquet` (each
set of scores the rows used, once). Both are encoded in memory with pyarrow (zstd, dictionary
encoded: the repeats of a county's name or a provider's cost nothing) and written through the
FileStore, so they land the same on the local store and on S3."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from adapters.results.memory import release_freed_memory
from application.ports.files import FileStore
from application.ports.results import WrittenChunk
from domain.lookup_result import LookupResult
from domain.row_facts import ANSWER_FACT_FIELDS, answer_facts, input_name, score_key, score_rows

if TYPE_CHECKING:  # pyarrow (and numpy with it) loads when a chunk is written, not with the server
    import pyarrow as pa

FACTS_SUFFIX, SCORES_SUFFIX = ".facts.parquet", ".scores.parquet"
COMPRESSION = "zstd"

# Rows per Parquet row group: a viewer page or a chunk's slice reads one group, not the file.
ROW_GROUP_ROWS = 16_384
__all__ = ["ChunkTable", "ParquetChunkWriter", "WrittenChunk", "chunk_keys", "parquet_bytes", "write_bytes"]


def chunk_keys(stem: str) -> tuple[str, str]:
    """The facts and scores keys of a chunk's claim: `jobs/<job>/out/<chunk>.a<attempt>` + suffix."""
    return stem + FACTS_SUFFIX, stem + SCORES_SUFFIX


class ChunkTable:
    """The facts and score rows of one chunk, as they are answered. `add` takes an answer;
    `add_facts` the answer's facts as a batch keeps them for an address repeated in the upload
    (domain/row_facts.answer_facts and score_rows).

    Rows are kept as JSON lines (msgspec; an answer's facts encoded once however many rows repeat
    it) and made into a typed table by Arrow's JSON reader against the schema: building Arrow
    arrays from Python lists would import pandas, 60 MB the embedded server otherwise never loads."""

    def __init__(self, user_columns: Sequence[str] | int) -> None:
        self.user_columns = user_columns if isinstance(user_columns, int) else len(user_columns)
        self._inputs = tuple(input_name(i) for i in range(self.user_columns))
        self._lines = bytearray()
        self._rows = 0
        self._scores: dict[tuple[str, str | None, str | None], Mapping[str, Any]] = {}
        # The last answers' facts as JSON, by identity (the facts object kept, so its id stays its own).
        self._encoded: dict[int, tuple[Mapping[str, Any], bytes]] = {}

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def score_count(self) -> int:
        return len(self._scores)

    def add(self, line: int, user_values: Iterable[str | None | tuple[str, str | None]], result: LookupResult) -> None:
        self.add_facts(line, user_values, answer_facts(result), score_rows(result, self._scores))

    def add_facts(self, line: int, user_values: Iterable[str | None | tuple[str, str | None]],
                  facts: Mapping[str, Any], scores: Iterable[Mapping[str, Any]] = ()) -> None:
        """A row from its answer's facts (`answer_facts`) and score rows (`score_rows`). The user's
        values beyond the upload's columns are dropped; missing ones are null."""
        own: dict[str, Any] = {"row": line}
        inputs = self._inputs
        for index, value in enumerate(user_values):
            if index >= len(inputs):
                break
            own[inputs[index]] = value[1] if isinstance(value, tuple) else value
        self._lines += _encode(own)[:-1]
        self._lines += b","
        self._lines += self._answer_json(facts)[1:]
        self._lines += b"\n"
        self._rows += 1
        for row in scores:
            self._scores.setdefault(score_key(row), row)  # type: ignore[arg-type]

    def _answer_json(self, facts: Mapping[str, Any]) -> bytes:
        known = self._encoded.get(id(facts))
        if known is not None and known[0] is facts:
            return known[1]
        answer = facts if len(facts) == len(ANSWER_FACT_FIELDS) else {name: facts.get(name) for name in ANSWER_FACT_FIELDS}
        encoded = _encode(answer)
        if len(self._encoded) >= ENCODED_ANSWERS:
            self._encoded.clear()
        self._encoded[id(facts)] = (facts, encoded)
        return encoded

    def add_row(self, facts_row: Mapping[str, Any], scores: Iterable[Mapping[str, Any]] = ()) -> None:
        """A whole facts row (domain/row_facts.facts_of) and its score rows."""
        self.add_facts(facts_row["row"], [facts_row.get(name) for name in self._inputs], facts_row, scores)

    def facts_table(self) -> pa.Table:
        from adapters.results.schema import facts_schema

        return _read_json(bytes(self._lines), facts_schema(self.user_columns))

    def scores_table(self) -> pa.Table:
        from adapters.results.schema import SCORES_SCHEMA

        names = SCORES_SCHEMA.names
        lines = b"".join(_encode({name: row.get(name) for name in names}) + b"\n" for row in self._scores.values())
        return _read_json(lines, SCORES_SCHEMA)

    def encoded(self) -> tuple[bytes, bytes]:
        """The facts file's bytes and the scores file's (CPU work: run it off the event loop)."""
        return parquet_bytes(self.facts_table()), parquet_bytes(self.scores_table())

    async def write(self, files: FileStore, facts_key: str, scores_key: str) -> WrittenChunk:
        """Both files written (each committed whole, or not at all); the table stays as it is."""
        facts, scores = await asyncio.to_thread(self.encoded)
        await write_bytes(files, facts_key, facts)
        await write_bytes(files, scores_key, scores)
        return WrittenChunk(facts_key, scores_key, self.rows, len(facts), len(scores))


ENCODED_ANSWERS = 1024  # a repeated address is usually near its first row; each kept costs ~3 KB
_encode = msgspec.json.Encoder().encode


def _read_json(lines: bytes, schema: pa.Schema) -> pa.Table:
    import pyarrow.json as pa_json

    release_freed_memory()  # a chunk's tables are freed once written

    if not lines:
        return schema.empty_table()
    # Blocks as large as the rows, so that no row is ever cut (one answer's facts fit in far less).
    options = pa_json.ReadOptions(use_threads=False, block_size=max(1 << 20, min(len(lines), 1 << 30)))
    parse = pa_json.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error")
    table = pa_json.read_json(io.BytesIO(lines), read_options=options, parse_options=parse)
    return table.select(schema.names).cast(schema)


def parquet_bytes(table: pa.Table) -> bytes:
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression=COMPRESSION, row_group_size=ROW_GROUP_ROWS, use_dictionary=True)
    return buffer.getvalue()


async def write_bytes(files: FileStore, key: str, content: bytes, piece: int = 4 * 1024 * 1024) -> None:
    async with files.open_writer(key) as writer:
        view = memoryview(content)
        for start in range(0, len(view), piece):
            await writer.write(bytes(view[start:start + piece]))


class ParquetChunkWriter:
    """The application's ChunkResultWriter (application/ports/results.py): a chunk's rows
    gathered in a ChunkTable and written as its two Parquet files."""

    def new_table(self, user_columns: Sequence[str]) -> ChunkTable:
        return ChunkTable(user_columns)

    def chunk_keys(self, stem: str) -> tuple[str, str]:
        return chunk_keys(stem)

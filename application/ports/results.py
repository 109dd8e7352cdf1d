"""Ports of a batch's results as a columnar dataset (issue #27), so that application/ never
imports pyarrow or DuckDB: a chunk's answered rows gathered and written as its files
(`ChunkResultWriter`, adapters/results/chunk_writer.py), and an export's downloads, viewer pages
and portfolio answered by queries over its files (`ExportQueries`, adapters/results/*).

An export is its chunks' facts files, its score rows and a manifest (`ExportManifest`, msgspec
JSON at `exports/<user>/<export id>.manifest.json`): nothing is copied or composed when a job
finishes but the chunks' score rows, merged into one file of each set once (`ExportScores`): a
million rows use a few thousand sets, which every chunk would otherwise keep again."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from application.ports.files import FileStore
from domain.lookup_result import LookupResult

MANIFEST_VERSION = 1
MANIFEST_SUFFIX = ".manifest.json"
# The formats of an export's detailed download.
DETAILED_FORMATS = ("csv", "xlsx", "jsonl", "parquet")


class ManifestChunk(msgspec.Struct, frozen=True):
    index: int  # the chunk's number in the job
    first_row: int  # its first row's index among the job's rows (0-based)
    rows: int
    facts: str  # FileStore key of its facts file (`jobs/<job>/out/<chunk>.a<attempt>.facts.parquet`)
    scores: str | None = None  # ... and of its scores file, None once merged into the export's


class ExportManifest(msgspec.Struct, frozen=True):
    """What an export is made of: the user's column names as uploaded (the facts' `input_<i>`
    columns, in order), how many rows, its chunks' files in input order and, for an export made
    since they are merged, the key of its score rows (`scores`; else each chunk's are its own)."""

    user_columns: list[str]
    rows: int
    chunks: list[ManifestChunk]
    version: int = MANIFEST_VERSION
    scores: str | None = None

    @property
    def keys(self) -> tuple[str, ...]:
        """Every file of the export (the manifest's own key aside)."""
        chunk_keys = (key for chunk in self.chunks for key in (chunk.facts, chunk.scores) if key)
        return (*chunk_keys, *((self.scores,) if self.scores else ()))

    @property
    def scores_keys(self) -> tuple[str, ...]:
        """The files of its score rows: the export's one, or each chunk's."""
        if self.scores:
            return (self.scores,)
        return tuple(chunk.scores for chunk in self.chunks if chunk.scores)


def manifest_key(user_id: str, export_id: str) -> str:
    return f"exports/{user_id}/{export_id}{MANIFEST_SUFFIX}"


def export_scores_key(user_id: str, export_id: str) -> str:
    return f"exports/{user_id}/{export_id}.scores.parquet"


def encode_manifest(manifest: ExportManifest) -> bytes:
    return msgspec.json.encode(manifest)


def decode_manifest(content: bytes) -> ExportManifest:
    return msgspec.json.decode(content, type=ExportManifest)


async def read_manifest(files: FileStore, key: str) -> ExportManifest:
    """The manifest stored at `key` (NotFound when it is not there)."""
    return decode_manifest(b"".join([piece async for piece in files.read(key)]))


async def write_manifest(files: FileStore, key: str, manifest: ExportManifest) -> int:
    """Stores the manifest; returns its size in bytes."""
    content = encode_manifest(manifest)
    async with files.open_writer(key) as writer:
        await writer.write(content)
    return len(content)


@dataclass(frozen=True, slots=True)
class WrittenChunk:
    """A chunk's two files as written: their keys, its rows and their stored sizes."""

    facts_key: str
    scores_key: str
    rows: int
    facts_bytes: int
    scores_bytes: int

    @property
    def size_bytes(self) -> int:
        return self.facts_bytes + self.scores_bytes


class ChunkRows(Protocol):
    """A chunk's answered rows, gathered in input order until written as its files."""

    @property
    def rows(self) -> int: ...

    def add(self, line: int, user_values: Iterable[str | None | tuple[str, str | None]], result: LookupResult) -> None:
        """The row's line in the upload, its values of the upload's columns (in order), and its answer."""
        ...

    def add_facts(self, line: int, user_values: Iterable[str | None | tuple[str, str | None]],
                  facts: Mapping[str, Any], scores: Iterable[Mapping[str, Any]] = ()) -> None:
        """The same from the answer's facts and score rows (domain/row_facts.answer_facts and
        score_rows), as a batch keeps them for an address repeated in its upload."""
        ...

    async def write(self, files: FileStore, facts_key: str, scores_key: str) -> WrittenChunk:
        """Both files, each committed whole or not at all."""
        ...


class ChunkResultWriter(Protocol):
    def new_table(self, user_columns: Sequence[str]) -> ChunkRows:
        """An empty chunk table for an upload with these columns of the user's own."""
        ...

    def chunk_keys(self, stem: str) -> tuple[str, str]:
        """The facts and scores keys of a chunk's claim (`jobs/<job>/out/<chunk>.a<attempt>`)."""
        ...


@dataclass(frozen=True, slots=True)
class MergedScores:
    """The export's score rows as stored, and the chunks' score files they replace."""

    key: str
    size_bytes: int
    merged_bytes: int  # the chunks' score files together


class ExportScores(Protocol):
    async def merge(self, files: FileStore, chunk_scores: Sequence[str], key: str) -> MergedScores:
        """The chunks' score rows, each set (level, geoid, NRI release) once, written at `key`."""
        ...


class ExportDownloadQueries(Protocol):
    """An export's downloads (adapters/results/downloads.py), streamed in pieces with memory
    that does not grow with the export."""

    def spec_csv(self, manifest: ExportManifest) -> AsyncIterator[bytes]:
        """SPEC §3's CSV, byte for byte as domain/export.py writes it for the same rows."""
        ...

    def detailed(self, manifest: ExportManifest, fmt: str) -> AsyncIterator[bytes]:
        """The detailed export in one of DETAILED_FORMATS."""
        ...


class ExportRowQueries(Protocol):
    """The viewer's pages (adapters/results/viewer.py); the request and answer types are
    application/export_rows.py's."""

    async def rows_page(self, manifest: ExportManifest, query: Any) -> Any:  # noqa: ANN401
        ...


class ExportPortfolioQueries(Protocol):
    """The portfolio's group-bys (adapters/results/portfolio.py); the request and answer types
    are application/portfolio.py's."""

    async def portfolio(self, manifest: ExportManifest, query: Any) -> Any:  # noqa: ANN401
        ...


class ExportQueries(ExportDownloadQueries, ExportRowQueries, ExportPortfolioQueries, Protocol):
    """An export's dataset (its manifest) answered by queries: all of the above. A service that
    needs one part may ask for that part's port alone (each adapter implements one)."""

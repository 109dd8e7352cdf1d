"""An export's dataset (issue #27): its chunks' Parquet files, named by its manifest, read with
DuckDB as three views:

- `facts`: every input row, in input order (the chunks' files in the manifest's order, each in
  the order it was written: DuckDB keeps that order for a plain read; ORDER BY row after a join);
- `scores`: each (level, geoid, nri_version) once: the export's merged score rows (one file), or
  for an export made before they were merged, its chunks' score files;
- `detailed`: the facts joined to their county's scores (rows where `scored`) and their tract's
  (rows where `tract_scored`), ordered by row, with the user's `input_<i>` columns first and then
  domain/detailed_export.ANSWER_COLUMN_NAMES, their values as that module computes them.

The local store's files are read where they are; the S3 store's are downloaded once into a local
cache of bounded size (`ParquetCache`). One DuckDB connection serves the process (`connection()`):
128 MB, two threads, no extension ever installed or loaded from elsewhere; each use takes a cursor
of its own (`ExportDataset.cursor()`), whose views are its own. DuckDB's calls block: run them in a
worker thread (asyncio.to_thread) from the event loop.

Within 128 MB, DuckDB answers filters, counts, group-bys and top-N sorts (ORDER BY ... LIMIT) over
a million rows, but it cannot sort a million wide rows: the `detailed` view's ORDER BY row (its
joins do not keep the facts' order) is for a page or a few chunks. To read every detailed row,
read the chunks a few at a time (`cursor(chunks=slice(...))`, as adapters/results/downloads.py
does): the chunks are in input order, and their scores are the export's (or each chunk's own)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from adapters.files.local import LocalFileStore
from application.ports.files import FileStore, missing
from application.ports.results import ExportManifest, ManifestChunk
from domain.detailed_export import ANSWER_COLUMN_NAMES
from domain.perils import HAZARDS
from domain.row_facts import COUNTY, TRACT, input_name

MEMORY_LIMIT = "128MB"
THREADS = 2
CACHE_BYTES = 1024 * 1024 * 1024
# A cached file used this recently is never evicted: a dataset opened for a request reads it.
CACHE_KEEP_SECONDS = 600
# Files fetched from the store at once when a dataset opens (S3 requests; local: stat calls).
FETCHES_AT_ONCE = 8

_lock = threading.Lock()
_connection: tuple[int, duckdb.DuckDBPyConnection] | None = None


def connection() -> duckdb.DuckDBPyConnection:
    """The process's DuckDB connection (made again in a forked child: a connection does not
    survive a fork). Take a `cursor()` of it per use."""
    global _connection
    with _lock:
        if _connection is None or _connection[0] != os.getpid():
            spill = Path(tempfile.gettempdir()) / f"perilscope-duckdb-{os.getpid()}"
            _connection = (os.getpid(), duckdb.connect(":memory:", config={
                "memory_limit": MEMORY_LIMIT,
                "threads": THREADS,
                "temp_directory": str(spill),
                # Nothing is fetched at run time (a machine without internet): Parquet is built in.
                "autoinstall_known_extensions": False,
                "autoload_known_extensions": False,
                "allow_community_extensions": False,
            }))
        return _connection[1]


class ParquetCache:
    """Local copies of stored files (the S3 store's), under `directory`, at most `max_bytes`
    together: the least recently used go first, never one used in the last `keep_seconds`.
    A key's file never changes once written (a chunk's claim writes its own), so a copy stays true."""

    def __init__(self, directory: Path, max_bytes: int = CACHE_BYTES, keep_seconds: float = CACHE_KEEP_SECONDS) -> None:
        self.directory = Path(directory)
        self.max_bytes = max_bytes
        self.keep_seconds = keep_seconds
        self._fetching: dict[str, asyncio.Future[None]] = {}

    def _path(self, key: str) -> Path:
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        return self.directory / f"{digest}-{key.rsplit('/', 1)[-1]}"

    async def path_of(self, files: FileStore, key: str) -> Path:
        """The local copy of the file `key`, fetched if not here (NotFound when not stored)."""
        path = self._path(key)
        if await asyncio.to_thread(_touch, path):
            return path
        fetching = self._fetching.get(key)
        if fetching is None:  # one download a key, however many ask for it meanwhile
            fetching = self._fetching[key] = asyncio.ensure_future(self._fetch(files, key, path))
            fetching.add_done_callback(lambda _: self._fetching.pop(key, None))
        await asyncio.shield(fetching)
        await asyncio.to_thread(self.evict)
        return path

    async def _fetch(self, files: FileStore, key: str, path: Path) -> None:
        await asyncio.to_thread(self.directory.mkdir, parents=True, exist_ok=True)
        partial = self.directory / f".{uuid.uuid4().hex}.part"
        handle = await asyncio.to_thread(partial.open, "wb")
        try:
            async for piece in files.read(key):
                await asyncio.to_thread(handle.write, piece)
            await asyncio.to_thread(handle.close)
            await asyncio.to_thread(os.replace, partial, path)
        except BaseException:
            handle.close()
            partial.unlink(missing_ok=True)
            raise

    def evict(self) -> int:
        """Removes the least recently used copies beyond `max_bytes`, and downloads a dead
        process left unfinished; returns how many copies went. Other processes may share the
        directory: a file gone meanwhile is simply not counted."""
        entries = []
        total = 0
        recent = time.time() - self.keep_seconds
        with os.scandir(self.directory) as found:
            for entry in found:
                try:
                    stat = entry.stat()
                except FileNotFoundError:
                    continue
                if entry.name.startswith("."):
                    if entry.name.endswith(".part") and stat.st_mtime < recent - 3600:
                        Path(entry.path).unlink(missing_ok=True)
                    continue
                entries.append((stat.st_mtime, stat.st_size, entry.path))
                total += stat.st_size
        removed = 0
        for modified, size, path in sorted(entries):
            if total <= self.max_bytes or modified >= recent:
                break
            Path(path).unlink(missing_ok=True)
            total -= size
            removed += 1
        return removed


def _touch(path: Path) -> bool:
    try:
        os.utime(path)
    except FileNotFoundError:
        return False
    return True


_default_cache: ParquetCache | None = None


def default_cache() -> ParquetCache:
    global _default_cache
    if _default_cache is None:
        _default_cache = ParquetCache(Path(tempfile.gettempdir()) / "perilscope-results-cache")
    return _default_cache


async def local_path(files: FileStore, key: str, cache: ParquetCache | None = None) -> str:
    """A path DuckDB can read the stored file `key` at: the local store's own file, or a cached copy."""
    if isinstance(files, LocalFileStore):
        path = files._path(key)  # noqa: SLF001 - the store's own file, read in place
        if not await asyncio.to_thread(path.is_file):
            raise missing(key)
        return str(path)
    return str(await (cache or default_cache()).path_of(files, key))


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def files_list(paths: Sequence[str]) -> str:
    return "[" + ", ".join(_sql_text(path) for path in paths) + "]"


def _hazard_columns(alias: str, prefix: str) -> list[str]:
    return [f'{alias}."{h.code}_{kind}" AS "{prefix}{h.code}_{kind}"' for h in HAZARDS for kind in ("Score", "Rating")]


def detailed_select(user_columns: int, facts: str = "facts", scores: str = "scores") -> str:
    """The detailed rows as SQL over a facts and a scores relation: the `detailed` view's query."""
    own = {name: f'f."{name}"' for name in ANSWER_COLUMN_NAMES}
    own |= {
        "low_confidence": "CASE WHEN f.low_confidence THEN 'yes' ELSE 'no' END AS low_confidence",
        "Total_Score": 'c."Total_Score" AS "Total_Score"',
        "risk_rating": "c.risk_rating AS risk_rating",
        "top_3": "COALESCE(c.top_3, '') AS top_3",
        "tract_Total_Score": 't."Total_Score" AS "tract_Total_Score"',
        "tract_risk_rating": "t.risk_rating AS tract_risk_rating",
    }
    for item in _hazard_columns("c", "") + _hazard_columns("t", "tract_"):
        own[item.rsplit(" AS ", 1)[1].strip('"')] = item
    columns = [f"f.{input_name(i)}" for i in range(user_columns)] + [own[name] for name in ANSWER_COLUMN_NAMES]
    return (
        "SELECT " + ", ".join(columns) + f" FROM {facts} AS f"
        f" LEFT JOIN (SELECT * FROM {scores} WHERE level = '{COUNTY}') AS c"
        " ON f.scored AND c.geoid IS NOT DISTINCT FROM f.county_fips AND c.nri_version IS NOT DISTINCT FROM f.nri_version"
        f" LEFT JOIN (SELECT * FROM {scores} WHERE level = '{TRACT}') AS t"
        " ON f.tract_scored AND t.geoid IS NOT DISTINCT FROM f.tract_geoid"
        " AND t.nri_version IS NOT DISTINCT FROM f.tract_nri_version"
        " ORDER BY f.row"
    )


class ExportDataset:
    """An export's files, readable as the views `facts`, `scores` and `detailed` (module doc)."""

    def __init__(self, manifest: ExportManifest, facts_paths: Sequence[str], scores_paths: Sequence[str]) -> None:
        self.manifest = manifest
        self.facts_paths = tuple(facts_paths)
        self.scores_paths = tuple(scores_paths)

    @classmethod
    async def open(cls, files: FileStore, manifest: ExportManifest, cache: ParquetCache | None = None) -> ExportDataset:
        """The dataset with every chunk file at hand (downloaded to the cache from S3). NotFound
        when one of them is missing. Open one per request: it holds no connection."""
        facts_keys = [chunk.facts for chunk in manifest.chunks]
        scores_keys = list(manifest.scores_keys)
        fetching = asyncio.Semaphore(FETCHES_AT_ONCE)

        async def path(key: str) -> str:
            async with fetching:
                return await local_path(files, key, cache)

        paths = await asyncio.gather(*(path(key) for key in facts_keys + scores_keys))
        return cls(manifest, paths[:len(facts_keys)], paths[len(facts_keys):])

    @property
    def user_columns(self) -> list[str]:
        return list(self.manifest.user_columns)

    @property
    def input_columns(self) -> list[str]:
        """The facts columns of the user's columns, in the manifest's order."""
        return [input_name(i) for i in range(len(self.manifest.user_columns))]

    @property
    def chunks(self) -> list[ManifestChunk]:
        return list(self.manifest.chunks)

    @contextmanager
    def cursor(self, chunks: slice | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor of the process's connection with this dataset's views (its own: another
        cursor's views of another export never meet them). `chunks`: the views of those chunks
        only (a download streamed chunk by chunk: each chunk's scores are in its own file)."""
        picked = slice(None) if chunks is None else chunks
        # The export's merged score rows serve every slice; chunks' own score files go with their chunks.
        scores = self.scores_paths if self.manifest.scores else self.scores_paths[picked]
        cursor = connection().cursor()
        try:
            define_views(cursor, self.facts_paths[picked], scores, len(self.manifest.user_columns))
            yield cursor
        finally:
            cursor.close()

    def query(self, sql: str, parameters: Sequence[Any] | None = None) -> list[tuple[Any, ...]]:
        """All the rows of one query over the views (small answers; blocking)."""
        with self.cursor() as cursor:
            return cursor.execute(sql, parameters).fetchall()


def define_views(cursor: duckdb.DuckDBPyConnection, facts_paths: Sequence[str], scores_paths: Sequence[str],
                 user_columns: int) -> None:
    if facts_paths:
        cursor.execute(f"CREATE OR REPLACE TEMP VIEW facts AS SELECT * FROM read_parquet({files_list(facts_paths)})")
        cursor.execute(
            "CREATE OR REPLACE TEMP VIEW scores AS SELECT DISTINCT ON (level, geoid, nri_version) *"
            f" FROM read_parquet({files_list(scores_paths)})")
    else:  # an export of no rows: the views exist, empty, with their columns
        empty_facts, empty_scores = _empty_files(user_columns)
        cursor.execute(f"CREATE OR REPLACE TEMP VIEW facts AS SELECT * FROM read_parquet({_sql_text(empty_facts)})")
        cursor.execute(f"CREATE OR REPLACE TEMP VIEW scores AS SELECT * FROM read_parquet({_sql_text(empty_scores)})")
    cursor.execute("CREATE OR REPLACE TEMP VIEW detailed AS " + detailed_select(user_columns))


_empty: dict[int, tuple[str, str]] = {}


def _empty_files(user_columns: int) -> tuple[str, str]:
    """Parquet files of no rows with the schemas, for an export without rows."""
    if user_columns not in _empty or not all(os.path.exists(p) for p in _empty[user_columns]):
        from adapters.results.chunk_writer import ChunkTable

        directory = Path(tempfile.gettempdir()) / f"perilscope-empty-{os.getpid()}"
        directory.mkdir(parents=True, exist_ok=True)
        facts, scores = ChunkTable(user_columns).encoded()
        facts_path, scores_path = directory / f"{user_columns}.facts.parquet", directory / f"{user_columns}.scores.parquet"
        facts_path.write_bytes(facts)
        scores_path.write_bytes(scores)
        _empty[user_columns] = (str(facts_path), str(scores_path))
    return _empty[user_columns]


async def open_dataset(files: FileStore, manifest: ExportManifest, cache: ParquetCache | None = None) -> ExportDataset:
    return await ExportDataset.open(files, manifest, cache)


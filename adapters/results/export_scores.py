"""An export's score rows merged once when its job finishes (application/ports/results.py
ExportScores): each chunk kept the score sets its rows used, so a county seen in every chunk was
stored once per chunk (at 1,000,000 rows in chunks of 5,000, about 45 of the 110 bytes a row).
The export keeps each set (level, geoid, NRI release) once, in one file its queries read whole."""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from adapters.files.local import LocalFileStore
from adapters.results.chunk_writer import parquet_bytes, write_bytes
from adapters.results.dataset import connection, files_list, local_path
from application.ports.files import FileStore
from application.ports.results import MergedScores

# The sets in a fixed order: the same chunks give the same file, whichever process merges them.
_MERGE_SQL = ("SELECT DISTINCT ON (level, geoid, nri_version) * FROM read_parquet({files})"
              " ORDER BY level, geoid, nri_version")


class ParquetExportScores:
    async def merge(self, files: FileStore, chunk_scores: Sequence[str], key: str) -> MergedScores:
        with tempfile.TemporaryDirectory(prefix="perilscope-merge-") as directory:
            paths = [await _readable(files, chunk_key, Path(directory) / f"{n}.parquet")
                     for n, chunk_key in enumerate(chunk_scores)]
            content, merged_bytes = await asyncio.to_thread(_merged, paths)
        await write_bytes(files, key, content)
        return MergedScores(key=key, size_bytes=len(content), merged_bytes=merged_bytes)


async def _readable(files: FileStore, key: str, copy: Path) -> str:
    """The local store's own file; another store's, copied to `copy` (not into the query cache:
    the chunks' score files are deleted once merged, and read only here)."""
    if isinstance(files, LocalFileStore):
        return await local_path(files, key)
    with copy.open("wb") as handle:
        async for piece in files.read(key):
            await asyncio.to_thread(handle.write, piece)
    return str(copy)


def _merged(paths: Sequence[str]) -> tuple[bytes, int]:
    cursor = connection().cursor()
    try:
        table = cursor.sql(_MERGE_SQL.format(files=files_list(paths))).to_arrow_table()
    finally:
        cursor.close()
    return parquet_bytes(table), sum(os.path.getsize(path) for path in paths)

"""Files no row names any more, deleted: what a crash leaves in the file store. A finisher killed
while writing an export, a claimant whose lease was taken over and whose delete failed, a finish
whose file deletes did not all happen: their files are under jobs/ and exports/ with no job chunk
or export naming them, and nothing else would ever delete them. A writer killed mid-file leaves
its unfinished write (a partial file, an S3 multipart upload): discarded too, once nothing was
written to it for as long.

A file is only an orphan once it is older than `min_age`: a writer stores its files before the
row that names them (a split stores every chunk's input first, a finisher the whole export), so a
young unnamed file may be about to be named. Run periodically in every process (entrypoints/sweeper.py);
two processes sweeping at once delete the same files, harmlessly."""

from __future__ import annotations

import logging
from datetime import timedelta

from application.ports.clock import Clock
from application.ports.files import FileReferences, FileStore
from application.result_files import delete_files

log = logging.getLogger("perilscope.files")
SWEPT_PREFIXES = ("jobs/", "exports/")  # chunk inputs and results; exports' files
KEYS_PER_CHECK = 500  # keys asked about in one query


class OrphanFiles:
    def __init__(self, files: FileStore, references: FileReferences, clock: Clock, min_age: timedelta) -> None:
        self._files = files
        self._references = references
        self._clock = clock
        self._min_age = min_age

    async def sweep(self) -> list[str]:
        """Delete the orphans; returns their keys."""
        written_before = self._clock.now() - self._min_age
        deleted: list[str] = []
        for prefix in SWEPT_PREFIXES:
            old: list[str] = []
            async for stored in self._files.list_files(prefix):
                if stored.modified_at < written_before:
                    old.append(stored.key)
                if len(old) >= KEYS_PER_CHECK:
                    deleted += await self._drop_unnamed(old)
                    old = []
            deleted += await self._drop_unnamed(old)
        discarded = await self._files.discard_unfinished(written_before)  # writers killed mid-file
        if deleted or discarded:
            log.info("orphan files deleted", extra={"files": len(deleted), "first": deleted[0] if deleted else None,
                                                    "unfinished_writes": discarded})
        return deleted

    async def _drop_unnamed(self, keys: list[str]) -> list[str]:
        if not keys:
            return []
        named = await self._references.referenced(keys)
        orphans = [key for key in keys if key not in named]
        await delete_files(self._files, orphans)
        return orphans

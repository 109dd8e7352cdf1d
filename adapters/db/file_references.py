"""Which file store keys the database names (application/ports/files.py FileReferences): an
upload's file, a chunk's input and result files, an export's files. Chunk and export keys carry
their row's id (application/batch_files.py, result_files.py): rows are found by primary key, not
by scanning the key columns."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.batch_tables import BatchChunkRow, ExportFileRow, UploadedFileRow
from application.batch_files import job_of_key
from application.result_files import export_of_key


class SqlFileReferences:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def referenced(self, keys: Sequence[str]) -> set[str]:
        wanted = set(keys)
        jobs = {job for key in wanted if (job := job_of_key(key))}
        exports = {export for key in wanted if (export := export_of_key(key))}
        uploads = [key for key in wanted if key.startswith("uploads/")]
        named: set[str | None] = set()
        async with self._sessions() as session:
            if jobs:  # a chunk's input and result files (a done job's results are its export's)
                for row in await session.execute(
                    select(BatchChunkRow.input_key, BatchChunkRow.facts_key, BatchChunkRow.scores_key)
                    .where(BatchChunkRow.job_id.in_(jobs))
                ):
                    named.update(row)
            if exports:
                datasets: set[str] = set()
                for export_id, *keys in await session.execute(
                    select(ExportFileRow.id, ExportFileRow.csv_key, ExportFileRow.detail_key, ExportFileRow.summary_key,
                           ExportFileRow.rows_index_key, ExportFileRow.manifest_key)
                    .where(ExportFileRow.id.in_(exports))
                ):
                    named.update(keys)
                    if keys[-1] is not None:
                        datasets.add(export_id)
                # A dataset's files under exports/ (an export converted by `perilscope exports
                # convert`) are named after it, and listed by its manifest, not by the row.
                named.update(key for key in wanted if export_of_key(key) in datasets)
            if uploads:
                named.update(await session.scalars(select(UploadedFileRow.file_key).where(UploadedFileRow.file_key.in_(uploads))))
        return {key for key in wanted if key in named}

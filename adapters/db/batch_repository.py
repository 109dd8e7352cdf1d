"""SQLAlchemy store of uploads, batch jobs and exports (every read scoped to its owner)."""

from __future__ import annotations

import json

from datetime import datetime

from sqlalchemy import and_, case, delete, exists, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.account_tables import UserRow
from adapters.db.batch_tables import BatchChunkRow, BatchJobRow, ExportFileRow, UploadedFileRow
from adapters.db.writer import SqlWriter
from application.ports.batch import BatchJob, ExportFile, UploadedFile

UNFINISHED = ("queued", "running")


def _job(row: BatchJobRow) -> BatchJob:
    return BatchJob(
        id=row.id, user_id=row.user_id, file_id=row.file_id, status=row.status, stage=row.stage, done=row.done,
        total=row.total, created_at=row.created_at, started_at=row.started_at, finished_at=row.finished_at,
        error=row.error, export_name=row.export_name, callback_url=row.callback_url,
    )


class SqlBatchStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer
        self._write = writer.execute

    async def add_upload(self, upload: UploadedFile, storage_limit: int) -> bool:
        async with self._writer.session() as session:
            await lock_owner(session, upload.user_id)
            if await storage_used_in(session, upload.user_id) + upload.size_bytes > storage_limit:
                await session.rollback()
                return False
            await session.execute(
                insert(UploadedFileRow).values(
                    id=upload.id, user_id=upload.user_id, name=upload.name, file_key=upload.file_key,
                    content=upload.content, row_count=upload.row_count, size_bytes=upload.size_bytes,
                    created_at=upload.created_at,
                )
            )
            await session.commit()
        return True

    async def storage_used(self, user_id: str) -> int:
        async with self._sessions() as session:
            return await storage_used_in(session, user_id)

    async def purge_uploads(self, created_before: datetime) -> list[str | None]:
        """Delete uploads no queued or running job needs: those used by a finished job, and the
        never-used ones created before `created_before`. Returns their file keys."""
        job_uses = exists().where(BatchJobRow.file_id == UploadedFileRow.id)
        unfinished = job_uses.where(BatchJobRow.status.in_(UNFINISHED))
        async with self._writer.session() as session:
            result = await session.execute(
                delete(UploadedFileRow).where(
                    ~unfinished, or_(job_uses, UploadedFileRow.created_at < created_before)
                ).returning(UploadedFileRow.file_key)
            )
            keys = list(result.scalars())
            await session.commit()
        return keys

    async def upload(self, user_id: str | None, file_id: str) -> UploadedFile | None:
        # `content` is NULL but in uploads of before the file store (migration 0015).
        query = select(UploadedFileRow, UploadedFileRow.content).where(UploadedFileRow.id == file_id)
        if user_id is not None:
            query = query.where(UploadedFileRow.user_id == user_id)
        async with self._sessions() as session:
            found = (await session.execute(query)).first()
        if found is None:
            return None
        row, content = found
        return UploadedFile(
            id=row.id, user_id=row.user_id, name=row.name, row_count=row.row_count, created_at=row.created_at,
            size_bytes=row.size_bytes, file_key=row.file_key, content=content,
        )

    async def add_job(self, job: BatchJob) -> None:
        await self._write(
            insert(BatchJobRow).values(
                id=job.id, user_id=job.user_id, file_id=job.file_id, status=job.status, stage=job.stage,
                done=job.done, total=job.total, created_at=job.created_at, callback_url=job.callback_url,
            )
        )

    async def job(self, user_id: str | None, job_id: str) -> BatchJob | None:
        query = select(BatchJobRow).where(BatchJobRow.id == job_id)
        if user_id is not None:
            query = query.where(BatchJobRow.user_id == user_id)
        async with self._sessions() as session:
            row = await session.scalar(query)
        return _job(row) if row else None

    async def unfinished_job_ids(self) -> list[str]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(BatchJobRow.id).where(BatchJobRow.status.in_(UNFINISHED)).order_by(BatchJobRow.created_at)
            )
            return list(rows)

    async def unfinished_jobs(self, user_id: str) -> list[BatchJob]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(BatchJobRow)
                .where(BatchJobRow.user_id == user_id, BatchJobRow.status.in_(UNFINISHED))
                .order_by(BatchJobRow.created_at)
            )
            return [_job(row) for row in rows]

    async def start(self, job_id: str, at: datetime) -> None:
        await self._write(
            update(BatchJobRow).where(BatchJobRow.id == job_id)
            .values(status="running", stage="search", done=0, started_at=at, error=None)
        )

    async def progress(self, job_id: str, stage: str, done: int) -> None:
        await self._write(update(BatchJobRow).where(BatchJobRow.id == job_id).values(stage=stage, done=done))

    async def finish(self, job_id: str, export: ExportFile, at: datetime) -> None:
        await self._write(
            insert_export(export, job_id),
            update(BatchJobRow).where(BatchJobRow.id == job_id)
            .values(status="done", stage="export", done=BatchJobRow.total, finished_at=at, export_name=export.name),
        )

    async def add_export(self, export: ExportFile, storage_limit: int | None = None) -> bool:
        async with self._writer.session() as session:
            await lock_owner(session, export.user_id)
            if storage_limit is not None and await storage_used_in(session, export.user_id) + export.size_bytes > storage_limit:
                await session.rollback()
                return False
            await session.execute(insert_export(export, None))
            await session.commit()
        return True

    async def delete_export(self, user_id: str, name: str) -> ExportFile | None:
        async with self._writer.session() as session:
            row = (await session.execute(
                delete(ExportFileRow).where(ExportFileRow.user_id == user_id, ExportFileRow.name == name)
                .returning(*_EXPORT_COLUMNS)
            )).first()
            if row is not None and row.manifest_key is not None and row.job_id is not None:
                # Its chunks' files were the export's: no row names them now (a crash before the
                # caller deletes them leaves orphans for the file sweep, not files kept for ever).
                await session.execute(update(BatchChunkRow).where(BatchChunkRow.job_id == row.job_id)
                                      .values(facts_key=None, scores_key=None, result_bytes=None))
            await session.commit()
        return _export(row) if row else None

    async def fail(self, job_id: str, error: str, at: datetime) -> None:
        await self._write(
            update(BatchJobRow).where(BatchJobRow.id == job_id).values(status="failed", error=error[:500], finished_at=at)
        )

    async def exports(self, user_id: str) -> list[ExportFile]:
        async with self._sessions() as session:
            rows = (
                await session.execute(
                    select(*_EXPORT_COLUMNS).where(ExportFileRow.user_id == user_id)
                    .order_by(ExportFileRow.exported_at.desc())
                )
            ).all()
        return [_export(row) for row in rows]

    async def batch_exports(self, user_id: str, offset: int, limit: int) -> list[ExportFile]:
        async with self._sessions() as session:
            rows = (
                await session.execute(
                    select(*_EXPORT_COLUMNS)
                    .where(ExportFileRow.user_id == user_id, ExportFileRow.job_id.is_not(None))
                    .order_by(ExportFileRow.exported_at.desc(), ExportFileRow.id)
                    .offset(offset)
                    .limit(limit)
                )
            ).all()
        return [_export(row) for row in rows]

    async def export(self, user_id: str, name: str) -> ExportFile | None:
        async with self._sessions() as session:
            row = (await session.execute(
                select(*_EXPORT_COLUMNS).where(ExportFileRow.user_id == user_id, ExportFileRow.name == name)
            )).first()
        return _export(row) if row else None

    async def legacy_text(self, user_id: str, name: str, detailed: bool) -> str | None:
        column = ExportFileRow.detail if detailed else ExportFileRow.content
        async with self._sessions() as session:
            return await session.scalar(
                select(column).where(ExportFileRow.user_id == user_id, ExportFileRow.name == name,
                                     ExportFileRow.csv_key.is_(None))
            )


_EXPORT_COLUMNS = (
    ExportFileRow.id, ExportFileRow.user_id, ExportFileRow.name, ExportFileRow.exported_at, ExportFileRow.job_id,
    ExportFileRow.source, ExportFileRow.csv_key, ExportFileRow.detail_key, ExportFileRow.summary_key,
    ExportFileRow.rows_index_key, ExportFileRow.manifest_key, ExportFileRow.size_bytes, ExportFileRow.detail_columns,
)


def _export(row) -> ExportFile:  # noqa: ANN001 - a row of _EXPORT_COLUMNS
    return ExportFile(
        id=row.id, user_id=row.user_id, name=row.name, exported_at=row.exported_at, job_id=row.job_id,
        source=row.source, csv_key=row.csv_key, detail_key=row.detail_key, summary_key=row.summary_key,
        rows_index_key=row.rows_index_key, manifest_key=row.manifest_key, size_bytes=row.size_bytes,
        detail_columns=tuple(json.loads(row.detail_columns)) if row.detail_columns else (),
    )


def insert_export(export: ExportFile, job_id: str | None):  # noqa: ANN202
    return insert(ExportFileRow).values(
        id=export.id, user_id=export.user_id, job_id=job_id, name=export.name, csv_key=export.csv_key,
        detail_key=export.detail_key, summary_key=export.summary_key, rows_index_key=export.rows_index_key,
        manifest_key=export.manifest_key, size_bytes=export.size_bytes, source=export.source,
        exported_at=export.exported_at,
        detail_columns=json.dumps(list(export.detail_columns)) if export.detail_key or export.manifest_key else None,
    )


async def lock_owner(session: AsyncSession, user_id: str) -> None:
    """Concurrent writers of one user's files wait here on PostgreSQL, so each sees the others'
    bytes (SQLite has one writer at a time already)."""
    if session.bind.dialect.name == "postgresql":
        await session.execute(select(UserRow.id).where(UserRow.id == user_id).with_for_update())


async def storage_used_in(session: AsyncSession, user_id: str) -> int:
    """Every file kept for the user: uploads, exports (all their files), and their jobs' chunk files
    while kept (inputs until their chunk is done and the job finished, or for ever for a failed
    chunk's rows to run again; results while the job runs)."""
    uploads = select(func.coalesce(func.sum(UploadedFileRow.size_bytes), 0)).where(UploadedFileRow.user_id == user_id)
    exports = select(func.coalesce(func.sum(ExportFileRow.size_bytes), 0)).where(ExportFileRow.user_id == user_id)
    chunks = (
        select(func.coalesce(func.sum(
            case((and_(BatchChunkRow.input_key.is_not(None),
                       # A failed job's done chunks' inputs are deleted as it ends; their keys stay.
                       or_(BatchChunkRow.status != "done", BatchJobRow.status != "failed")),
                  func.coalesce(BatchChunkRow.input_bytes, 0)), else_=0)
            # A done job's results are its export's (counted in its size); a failed job's are deleted as it ends.
            + case((and_(BatchChunkRow.facts_key.is_not(None), BatchJobRow.status.in_(UNFINISHED)),
                    func.coalesce(BatchChunkRow.result_bytes, 0)), else_=0)
        ), 0))
        .join(BatchJobRow, BatchJobRow.id == BatchChunkRow.job_id).where(BatchJobRow.user_id == user_id)
    )
    return int(await session.scalar(
        select(uploads.scalar_subquery() + exports.scalar_subquery() + chunks.scalar_subquery())
    ) or 0)

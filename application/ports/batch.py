"""Ports of batch lookups (application/batch.py, application/batch_limits.py): the uploads, jobs and
exports they store, the queue that runs jobs, and what batches count against a user's allowance."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

COMPUTED, CLIENT = "computed", "client"  # where an export's rows came from


@dataclass(frozen=True, slots=True)
class UploadedFile:
    id: str
    user_id: str
    name: str
    row_count: int
    created_at: datetime
    size_bytes: int  # of the stored UTF-8 text, counted against the owner's storage
    # Where its UTF-8 text is in the FileStore (application/ports/files.py); None for an upload of
    # before the file store, whose text is `content`, in the database.
    file_key: str | None = None
    content: str | None = None


@dataclass(frozen=True, slots=True)
class BatchJob:
    id: str
    user_id: str
    file_id: str | None  # None once the upload is deleted (after the job is done)
    status: str  # queued, running, done, failed
    stage: str  # search, matching, export
    done: int
    total: int
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    error: str | None = None
    export_name: str | None = None
    callback_url: str | None = None  # a public API batch's webhook, told when the job ends


@dataclass(frozen=True, slots=True)
class ExportFile:
    """A finished export: its files live in the file store (application/ports/files.py), streamed
    in and out; the database row keeps their keys. A batch's export is a dataset: its manifest
    (application/ports/results.py) lists its chunks' Parquet files. Rows a client sent are a CSV.
    An export made before the dataset (issue #27) keeps its old files until `perilscope exports
    convert` makes it one; one stored before export files (migration 0016_result_files) has no
    keys: its text is in the database (`legacy_text`)."""

    id: str
    user_id: str
    name: str
    exported_at: datetime
    job_id: str | None = None
    source: str = COMPUTED
    csv_key: str | None = None  # SPEC §3's CSV: rows a client sent, or an export from before
    # An export from before the dataset: its detailed JSON Lines, portfolio summary and viewer's index.
    detail_key: str | None = None
    summary_key: str | None = None
    rows_index_key: str | None = None
    # The dataset's manifest (`exports/<user>/<export id>.manifest.json`), which lists its chunks' files.
    manifest_key: str | None = None
    # All its stored bytes (the manifest's chunk files included), counted against the owner's storage.
    size_bytes: int = 0
    detail_columns: tuple[str, ...] = ()  # the upload's columns, in file order

    @property
    def keys(self) -> tuple[str, ...]:
        """The files the row names. A dataset's chunk files are listed by its manifest
        (application/result_files.stored_keys): they are written before the export is, and a
        finisher that lost its turn deletes its manifest, never the chunks' files."""
        own = (self.manifest_key, self.csv_key, self.detail_key, self.summary_key, self.rows_index_key)
        return tuple(key for key in own if key)

    @property
    def legacy(self) -> bool:
        return self.csv_key is None and self.manifest_key is None


class BatchStore(Protocol):
    async def add_upload(self, upload: UploadedFile, storage_limit: int) -> bool:
        """Store the upload unless the owner's files (uploads, exports, a running job's chunks) would then pass
        `storage_limit` bytes (checked and stored atomically); False when refused."""
        ...
    async def storage_used(self, user_id: str) -> int: ...
    async def purge_uploads(self, created_before: datetime) -> list[str | None]:
        """Delete the uploads no unfinished job needs: used by a finished job, or never used and
        created before `created_before`. Returns each deleted upload's file key (None for one kept
        in the database), for the caller to delete the files."""
        ...
    async def upload(self, user_id: str | None, file_id: str) -> UploadedFile | None:
        """The caller's upload; user_id None only for the job runner."""
        ...
    async def add_job(self, job: BatchJob) -> None: ...
    async def job(self, user_id: str | None, job_id: str) -> BatchJob | None: ...
    async def unfinished_job_ids(self) -> list[str]: ...
    async def unfinished_jobs(self, user_id: str) -> list[BatchJob]: ...
    async def start(self, job_id: str, at: datetime) -> None: ...
    async def progress(self, job_id: str, stage: str, done: int) -> None: ...
    async def finish(self, job_id: str, export: ExportFile, at: datetime) -> None:
        """Store the export and mark the job done, in one transaction."""
        ...
    async def fail(self, job_id: str, error: str, at: datetime) -> None: ...
    async def add_export(self, export: ExportFile, storage_limit: int | None = None) -> bool:
        """Store an export made outside a job unless the owner's files would then pass
        `storage_limit` bytes (checked and stored atomically); False when refused. None: no
        check (tests and tools that place an export)."""
        ...
    async def exports(self, user_id: str) -> list[ExportFile]: ...
    async def batch_exports(self, user_id: str, offset: int, limit: int) -> list[ExportFile]:
        """The user's exports of batch jobs (not rows a client sent), newest first, from `offset` on."""
        ...
    async def export(self, user_id: str, name: str) -> ExportFile | None: ...
    async def legacy_text(self, user_id: str, name: str, detailed: bool) -> str | None:
        """The CSV (or, `detailed`, the JSON Lines records) of an export stored in the database
        before export files existed; None for any other export, or a legacy one without detail."""
        ...
    async def delete_export(self, user_id: str, name: str) -> ExportFile | None:
        """Delete the export's row; the deleted export (its files are the caller's to delete), or None."""
        ...


@dataclass(frozen=True, slots=True)
class WrittenFile:
    name: str
    media_type: str
    chunks: AsyncIterator[bytes]  # the file's bytes, produced as they are read


class DetailedExportWriter(Protocol):
    """Writes a detailed export's JSON Lines records (domain/detailed_export.py) as a file."""

    formats: tuple[str, ...]  # e.g. csv, xlsx, jsonl

    def write(self, records: AsyncIterator[bytes], user_columns: list[str], fmt: str, stem: str) -> WrittenFile:
        """The file in `fmt`, converted as `records` (the stored JSON Lines, in pieces cut anywhere)
        stream by: memory stays at one piece whatever the file's size."""
        ...


@dataclass(frozen=True, slots=True)
class QueueDepth:
    """Tasks in a job queue: `waiting`, sent and taken by no worker yet; `taken`, taken and not
    yet done (running, or held by a worker that died until the queue hands them on)."""

    waiting: int
    taken: int


class JobQueue(Protocol):
    async def depth(self) -> QueueDepth:
        """How many tasks wait and how many are taken, now (the metrics' queue depth)."""
        ...

    async def enqueue(self, job_id: str) -> None:
        """A task that splits the job into chunks (application/batch_runner.py)."""
        ...

    async def enqueue_chunks(self, count: int) -> None:
        """`count` chunk tasks. A chunk task takes whichever chunk is fairest to run next (any
        job's), so tasks are interchangeable: one lost or one too many costs nothing."""
        ...


class BatchRowLedger(Protocol):
    async def reserve(self, user_id: str, month: str, rows: int, limit: int | None) -> bool:
        """Add `rows` to the month's count in one atomic step, only while the count stays within
        `limit` (None: no limit); False, and nothing counted, when it would not."""
        ...

    async def release(self, user_id: str, month: str, rows: int) -> None: ...
    async def used(self, user_id: str, month: str) -> int: ...


class StorageMeter(Protocol):
    async def storage_used(self, user_id: str) -> int:
        """Bytes of the user's stored uploads and exports."""
        ...

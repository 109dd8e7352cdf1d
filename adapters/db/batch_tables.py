"""Uploaded batch files, batch jobs and finished exports."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from adapters.db.base import Base


class UploadedFileRow(Base):
    __tablename__ = "uploaded_file"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(255))
    # The CSV's UTF-8 text is in the file store under `file_key`; uploads of before the file store
    # (migration 0015) keep theirs in `content`.
    file_key: Mapped[str | None] = mapped_column(String(512))
    content: Mapped[str | None] = mapped_column(Text, deferred=True)
    row_count: Mapped[int] = mapped_column(Integer)
    size_bytes: Mapped[int] = mapped_column(BigInteger, server_default="0")  # counted against storage
    created_at: Mapped[datetime]


class BatchJobRow(Base):
    __tablename__ = "batch_job"
    __table_args__ = (Index(None, "status"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), index=True)
    # The upload is deleted once the job is done (retention); the job's record stays.
    file_id: Mapped[str | None] = mapped_column(ForeignKey("uploaded_file.id", ondelete="SET NULL"))
    status: Mapped[str] = mapped_column(String(10))  # queued, running, done, failed
    stage: Mapped[str] = mapped_column(String(10))  # search, matching, export
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(500))
    export_name: Mapped[str | None] = mapped_column(String(255))
    # A public API batch's webhook (application/ports/webhooks.py), told when the job ends.
    callback_url: Mapped[str | None] = mapped_column(String(2048))
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    # Chunked running (adapters/db/chunk_repository.py): None until the job is split whole.
    chunks_total: Mapped[int | None] = mapped_column(Integer)
    # The one process splitting it (its chunks run while the rest of its file is read), and until when.
    splitter: Mapped[str | None] = mapped_column(String(120))
    splitter_expires_at: Mapped[datetime | None]
    # When a worker last took one of its chunks: jobs are served in turn (fairness).
    last_claimed_at: Mapped[datetime | None]
    # The one process assembling the export (stage 'export'), and until when it holds that turn.
    finisher: Mapped[str | None] = mapped_column(String(120))
    finisher_expires_at: Mapped[datetime | None]


class BatchChunkRow(Base):
    """One chunk of a job: its rows as CSV, its lease while a worker runs it, and its result."""

    __tablename__ = "batch_chunk"
    __table_args__ = (Index(None, "status", "lease_expires_at"),)

    job_id: Mapped[str] = mapped_column(ForeignKey("batch_job.id", ondelete="CASCADE"), primary_key=True)
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    first_row: Mapped[int] = mapped_column(Integer)
    row_count: Mapped[int] = mapped_column(Integer)
    line_offset: Mapped[int] = mapped_column(Integer)
    # The chunk's CSV (header + its lines, as uploaded) is in the file store under `input_key`;
    # chunks split before the file store (migration 0015) keep theirs in `input`.
    input_key: Mapped[str | None] = mapped_column(String(512))
    # Its size, counted against the owner's storage while the file is kept; NULL for chunks split
    # before migration 0018 (unknown: not counted).
    input_bytes: Mapped[int | None] = mapped_column(BigInteger)
    input: Mapped[str | None] = mapped_column(Text, deferred=True)
    status: Mapped[str] = mapped_column(String(10))  # queued, running, done, failed
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # claims so far; also the lease's fencing token
    lease_owner: Mapped[str | None] = mapped_column(String(120))  # host:pid; kept after, as who finished it
    lease_expires_at: Mapped[datetime | None]
    enqueued_at: Mapped[datetime]  # when a task for it was last put on the queue
    finished_at: Mapped[datetime | None]
    rows_failed: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(String(500))
    # Rows answered so far by the claims of it, recorded with each heartbeat and only ever raised:
    # the job's progress (`done`) moves within the chunk, never backwards (chunk_repository.py).
    rows_answered: Mapped[int] = mapped_column(Integer, server_default="0")
    # The result's two files in the file store (application/result_files.py), written by the claim
    # that completed it, and their bytes together. Once the job is done they are its export's (its
    # manifest lists them): the keys stay, naming the files, until the export is deleted.
    facts_key: Mapped[str | None] = mapped_column(String(512))
    scores_key: Mapped[str | None] = mapped_column(String(512))
    result_bytes: Mapped[int | None] = mapped_column(BigInteger)
    detail_columns: Mapped[str | None] = mapped_column(Text)  # JSON list of the upload's columns, as uploaded


class ExportFileRow(Base):
    """A finished export; inserted in the same transaction that marks its job done."""

    __tablename__ = "export_file"
    __table_args__ = (UniqueConstraint("user_id", "name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), index=True)
    job_id: Mapped[str | None] = mapped_column(String(36))
    name: Mapped[str] = mapped_column(String(255))
    # Its files in the file store: of an export made before issue #27 (until `perilscope exports
    # convert` makes it a dataset) the SPEC CSV, the detailed JSON Lines, the default portfolio
    # summary, the viewer's index of its rows; of rows a client sent, the CSV alone.
    csv_key: Mapped[str | None] = mapped_column(String(512))
    detail_key: Mapped[str | None] = mapped_column(String(512))
    summary_key: Mapped[str | None] = mapped_column(String(512))
    rows_index_key: Mapped[str | None] = mapped_column(String(512))  # the export viewer's index of its rows
    # A batch export made since issue #27: its manifest (application/ports/results.py), which lists
    # its chunks' Parquet files. The four keys above are then None.
    manifest_key: Mapped[str | None] = mapped_column(String(512))
    # An export stored before export files (migration 0016_result_files) kept its text here; read, never written.
    content: Mapped[str | None] = mapped_column(Text, deferred=True)
    size_bytes: Mapped[int] = mapped_column(BigInteger, server_default="0")
    # 'computed' by a batch job, or 'client': rows a caller sent to POST /api/export, stored as given.
    source: Mapped[str] = mapped_column(String(10), server_default="computed")
    exported_at: Mapped[datetime]
    # The legacy detailed export (JSON Lines) and the upload's own columns (JSON).
    detail: Mapped[str | None] = mapped_column(Text, deferred=True)
    detail_columns: Mapped[str | None] = mapped_column(Text)


class BatchRowUsageRow(Base):
    """Batch rows charged per user and month; reserved with one conditional upsert."""

    __tablename__ = "batch_row_usage"

    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), primary_key=True)
    month: Mapped[str] = mapped_column(String(7), primary_key=True)
    rows_used: Mapped[int] = mapped_column(Integer, default=0)

"""Ports of chunked batch jobs (application/batch_runner.py): chunks with leases, their results,
and the one turn at assembling a job's export.

A lease is (owner, attempt): a chunk's `attempts` grows with every claim, so a worker whose lease
was taken over cannot write, renew or release anything for that chunk any more."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from application.ports.batch import ExportFile
from application.ports.results import ChunkRows
from domain.chunks import ChunkPlan


@dataclass(frozen=True, slots=True)
class StoredChunkInput:
    """A chunk to store: its place, and where its CSV (domain/chunks.py) is in the FileStore."""

    plan: ChunkPlan
    line_offset: int
    input_key: str
    input_bytes: int  # the file's size, counted against the job owner's storage while it is kept


@dataclass(frozen=True, slots=True)
class ChunkSource:
    """Where a chunk's CSV is: a FileStore key, or (chunks split before the file store) the text."""

    input_key: str | None
    text: str | None


@dataclass(frozen=True, slots=True)
class ClaimedChunk:
    job_id: str
    plan: ChunkPlan
    source: ChunkSource  # the chunk's CSV (domain/chunks.py)
    line_offset: int
    attempt: int  # the fencing token: this claim's number
    owner: str  # worker id, host:pid


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """A chunk's answered rows as its table (the facts of each row and the scores they used,
    application/ports/results.py), in memory (bounded by the chunk's size) until written."""

    table: ChunkRows
    user_columns: tuple[str, ...]  # the upload's columns, as uploaded: the facts' input_<i>
    rows_failed: int = 0
    error: str | None = None  # set when the chunk is given up: its rows carry this reason

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass(frozen=True, slots=True)
class ChunkFiles:
    """Where one claim wrote a chunk's result in the file store: its facts and scores Parquet
    files. The keys carry the claim's number, so a claimant whose lease was taken over never
    overwrites the winner's files. Once the job is done its facts file is its export's, and its
    scores file, merged into the export's, is gone (None)."""

    facts_key: str
    scores_key: str | None
    size_bytes: int  # both files, as stored: the owner's storage counts them
    user_columns: tuple[str, ...]
    rows_failed: int = 0
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(key for key in (self.facts_key, self.scores_key) if key)


@dataclass(frozen=True, slots=True)
class ChunkOutput:
    """A completed chunk's result, for the export's manifest: its place and its files."""

    plan: ChunkPlan
    facts_key: str | None  # None only for a job that failed (its results were deleted)
    scores_key: str | None
    size_bytes: int
    user_columns: tuple[str, ...]

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(key for key in (self.facts_key, self.scores_key) if key)


class NoRoomForExport(Exception):
    """The export would take its owner past their storage allowance; `used`: their bytes without it."""

    def __init__(self, used: int) -> None:
        super().__init__(f"no room for the export ({used} bytes used)")
        self.used = used


@dataclass(frozen=True, slots=True)
class JobChunks:
    """Where a job's chunks are, for its status."""

    total: int
    done: int
    failed: int
    rows_failed: int
    # How many workers hold an unexpired lease on it now: a count, for users; which hosts they
    # are belongs to /metrics and the logs.
    worker_count: int
    last_finished_at: datetime | None = None  # when its latest chunk ended


@dataclass(frozen=True, slots=True)
class FailedInput:
    source: ChunkSource  # the chunk's CSV
    line_offset: int
    error: str
    row_count: int


class ChunkStore(Protocol):
    async def begin_split(self, job_id: str, owner: str, now: datetime, until: datetime) -> int | None:
        """Take the job's one turn at splitting it: a queued or running job not split whole yet,
        whose turn nobody holds (or the holder's time ran out). Returns how many of its chunks are
        stored already (a splitter that died stored them: this one goes on after them), or None
        when the turn is not the caller's."""
        ...

    async def renew_split(self, job_id: str, owner: str, until: datetime) -> bool: ...

    async def add_chunks(self, job_id: str, owner: str, chunks: Iterable[StoredChunkInput], now: datetime) -> bool:
        """Store more of the job's chunks, queued (claimable at once), only while `owner` holds
        the split turn; False, and nothing stored, otherwise."""
        ...

    async def end_split(self, job_id: str, owner: str, count: int) -> bool:
        """The job is split whole, into `count` chunks: only from now on can it finish. Only
        while `owner` holds the turn, and only when `count` chunks are stored."""
        ...

    async def queued_count(self, job_id: str) -> int: ...

    async def unsplit_jobs(self, now: datetime, limit: int) -> list[str]:
        """Queued or running jobs not split whole yet that nobody (alive) is splitting, oldest first."""
        ...

    async def claim(self, owner: str, now: datetime, lease_until: datetime, max_attempts: int,
                    exhausted: bool = False) -> ClaimedChunk | None:
        """Take one chunk atomically: a queued one, or a running one whose lease has expired, with
        fewer than `max_attempts` claims so far, from the job with the fewest chunks in flight and
        then the one served least recently (fair turns). With `exhausted`, only an expired chunk
        that has had its `max_attempts` (for giving it up). The job becomes running."""
        ...

    async def renew(self, chunk: ClaimedChunk, lease_until: datetime, answered: int | None = None) -> bool:
        """Extend the lease; False when it is no longer this claimant's. With `answered` (rows of the
        chunk answered so far), the job's progress moves by the rows not counted yet: a chunk's
        count only ever rises, across its claims, so progress never goes backwards."""
        ...

    async def complete(self, chunk: ClaimedChunk, result: ChunkFiles, now: datetime) -> bool:
        """Record where the result's files are, mark the chunk done (or failed, when the result says so) and add its
        rows not counted yet by `renew` to the job's progress, in one transaction, only while this claimant holds the chunk;
        False, and nothing written, otherwise (the claimant then deletes its files)."""
        ...

    async def release(self, chunk: ClaimedChunk, error: str, now: datetime) -> bool:
        """Give the chunk back to the queue for another attempt (same fencing as `complete`)."""
        ...

    async def requeue_expired(self, now: datetime, max_attempts: int) -> int:
        """Chunks whose lease expired (their worker is gone) and that may be tried again go back
        to queued, marked as enqueued now; returns how many (each needs a task)."""
        ...

    async def requeue_stale(self, enqueued_before: datetime, now: datetime) -> int:
        """When no chunk of any job is running, queued chunks whose task was sent before
        `enqueued_before` are marked enqueued now and counted: their tasks were lost."""
        ...

    async def begin_finishing(self, job_id: str, owner: str, now: datetime, until: datetime) -> bool:
        """Take the job's one turn at assembling its export: only when it is split whole, every
        chunk is done or failed and nobody holds the turn (or the holder's time ran out)."""
        ...

    async def renew_finishing(self, job_id: str, owner: str, until: datetime) -> bool: ...

    async def finishable_jobs(self, now: datetime) -> list[str]:
        """Running jobs with every chunk ended and nobody (alive) assembling the export."""
        ...

    def results(self, job_id: str) -> AsyncIterator[ChunkOutput]:
        """Where the job's chunk results are, in input order (one chunk's row at a time)."""
        ...

    async def finish(self, job_id: str, owner: str, export: ExportFile, now: datetime,
                     storage_limit: int | None = None) -> bool:
        """Store the export and mark the job done in one transaction, only while `owner` holds the
        finishing turn and the job is not done; False, and nothing stored, otherwise. The chunks'
        result files are the export's from then on (their keys stay); the done chunks' input keys
        are dropped (the finisher deletes the files); failed chunks keep their inputs, to run them again.
        With `storage_limit`, raises NoRoomForExport, nothing stored, when the owner's files would
        then pass it (checked in the same transaction, so concurrent writes cannot both fit)."""
        ...

    async def fail(self, job_id: str, error: str, now: datetime) -> bool:
        """Mark a queued or running job failed; False when it had ended already (so a job ends once)."""
        ...

    async def job_chunks(self, job_id: str, now: datetime) -> JobChunks | None:
        """None for a job not split whole yet."""
        ...

    async def failed_inputs(self, job_id: str) -> list[FailedInput]: ...

    async def done_input_keys(self, job_id: str) -> list[str]:
        """The FileStore keys of the inputs of the job's done chunks (nothing reads them again:
        only failed chunks are run again), to delete once the job has ended. Empty after `finish`,
        which drops them (the finisher takes them first)."""
        ...

"""How a batch job runs: split into chunks, each chunk a task that any worker may take, and the
export assembled once when the last chunk has ended.

- A job is split as its file is read, its chunks stored and sent a batch at a time, so workers run
  the first while the rest is read; one process holds the job's split turn, and one that takes it
  over from a splitter that died goes on after the chunks stored. The job can finish only once it
  is split whole.
- A chunk task claims the fairest chunk to run next (ports/chunks.py): tasks are interchangeable,
  so a lost or duplicated task costs nothing and a small job is served between a big job's chunks.
- A worker holds a chunk by a lease it renews while it works; a worker that dies (kill -9) stops
  renewing, and the sweeper, run periodically in every worker and server, queues the chunk again.
- A chunk's result is written as files of its own claim (application/result_files.py: the facts
  of its rows and the scores they used, as Parquet); the chunk's row then records them, with the
  job's progress, only while the claimant still holds the chunk, so no row is counted or exported
  twice. A claimant that lost its lease deletes its files: a stale claimant's result never reaches
  the export.
- Progress moves within a chunk: the heartbeat records the rows answered so far (a chunk's count
  only rises, across its claims, so progress never goes backwards).
- A chunk that keeps failing is given up after `max_attempts` claims: its rows are written as
  failed, with the reason, and the job finishes with the others.
- When every chunk has ended, one process takes the job's finishing turn and stores the one
  export: a manifest of the chunks' files, which are the export's from then on (nothing copied)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Generic, Protocol, TypeVar

from application.batch_files import chunk_input_key, chunk_text, stored_rows, write_text
from application.batch_limits import storage_full_message
from application.errors import NotFound
from application.ports.batch import BatchJob, BatchStore, ExportFile, JobQueue, UploadedFile
from application.ports.chunks import (
    ChunkFiles,
    ChunkOutput,
    ChunkResult,
    ChunkStore,
    ClaimedChunk,
    JobChunks,
    NoRoomForExport,
    StoredChunkInput,
)
from application.ports.clock import Clock
from application.ports.files import FileStore
from application.ports.metrics import Metrics, NoMetrics
from application.ports.results import ChunkResultWriter
from application.result_files import delete_files, export_own_keys, write_chunk
from application.time_slices import TimeSlices
from domain.batch_input import UNCAPPED, AddressRow, UploadError
from domain.chunks import ChunkInput, ChunkSplitter, rows_of

T = TypeVar("T")

log = logging.getLogger("perilscope.batch")
ENDED = ("done", "failed")
SPLIT_BATCH_CHUNKS = 32  # chunks stored in one transaction, at most, while a job is split
# The job has run, but its export does not fit: the job fails saying so, rather than keeping an
# export that leaves the user over the allowance, with every later upload refused.
def export_refused_message(used: int, needed: int, limit: int) -> str:
    return "The export could not be kept. " + storage_full_message(used, needed, limit, "its export", "run the batch again")


INPUT_GONE = "Part of the uploaded file is missing from the file store. Upload the file again and start a new job."



@dataclass(frozen=True, slots=True)
class ChunkPolicy:
    chunk_rows: int = 2000
    max_attempts: int = 3  # claims of one chunk before its rows are given up as failed
    lease_seconds: float = 30.0
    # A queued chunk whose task was sent this long ago, while nothing runs, gets a new task.
    stale_seconds: float = 30.0
    # How often a running chunk records the rows it has answered (the job's progress), at most.
    progress_seconds: float = 1.0

    @property
    def heartbeat_seconds(self) -> float:
        return self.lease_seconds / 3

    @property
    def lease(self) -> timedelta:
        return timedelta(seconds=self.lease_seconds)


@dataclass(frozen=True, slots=True)
class ChunkTurn:
    ran: bool  # a chunk was claimed and run (False: none was waiting)
    ended: list[BatchJob]  # the jobs this turn ended


class ChunkAnswers(Protocol):
    """What the runner asks of the batch use case: rows answered, rows given up, the export, and
    giving back what a job was charged when its export could not be kept."""

    async def answer_rows(self, job_id: str, rows: Iterable[AddressRow], slices: TimeSlices) -> ChunkResult: ...

    def failed_rows(self, rows: Iterable[AddressRow], reason: str) -> ChunkResult: ...

    async def assemble(self, job: BatchJob, results: AsyncIterator[ChunkOutput]) -> ExportFile: ...

    async def give_back(self, job: BatchJob) -> None: ...


class Counted(Generic[T]):
    """An iterable's items, counted as they are taken: a row is counted answered when the next is
    asked for (or the rows end)."""

    def __init__(self, items: Iterable[T]) -> None:
        self._items = items
        self.count = 0

    def __iter__(self) -> Iterator[T]:
        for item in self._items:
            yield item
            self.count += 1


class ChunkRunner:
    def __init__(self, store: BatchStore, chunks: ChunkStore, files: FileStore, writer: ChunkResultWriter,
                 clock: Clock, queue: Callable[[], JobQueue], policy: ChunkPolicy, worker_id: str,
                 answers: ChunkAnswers, slice_seconds: float, metrics: Metrics | None = None,
                 storage_limit: int | None = None) -> None:
        self._store = store
        self._chunks = chunks
        self._files = files
        self._writer = writer
        self._clock = clock
        self._queue = queue
        self._policy = policy
        self._owner = worker_id
        self._answers = answers
        self._slice_seconds = slice_seconds
        self._metrics = metrics or NoMetrics()
        self._storage_limit = storage_limit  # each user's bytes of files; the export is checked as stored

    # --- a job's task: split it ------------------------------------------------------------

    async def split(self, job_id: str, resend: bool = False) -> BatchJob | None:
        """Split the job into queued chunks, a task for each, while its file is read: chunks are
        stored a batch at a time, so workers run the first while the rest is read (a million-row
        file takes seconds to read). One process holds the job's split turn; one that took it over
        from a splitter that died goes on after the chunks stored. A job split already (by a chunk
        task, or its task sent twice) gets no more tasks, unless `resend`: after a restart, when
        the tasks of an in-process queue are gone. Returns the job when this call ended it."""
        job = await self._store.job(None, job_id)
        if job is None or job.status in ENDED:
            return None
        now = self._clock.now()
        stored = await self._chunks.begin_split(job_id, self._owner, now, now + self._policy.lease)
        if stored is None:  # split whole already, or being split by another process
            if resend and await self._chunks.job_chunks(job_id, now) is not None:
                await self._send(await self._chunks.queued_count(job_id))
            return await self.finish_if_ended(job_id)
        if stored:  # the chunks its last splitter stored may have lost their tasks with it
            await self._send(await self._chunks.queued_count(job_id))
        upload = await self._store.upload(None, job.file_id) if job.file_id else None
        if upload is None:
            return await self._fail(job_id, "The uploaded file is gone.")
        started = time.monotonic()
        try:
            async with self._holding(lambda until: self._chunks.renew_split(job_id, self._owner, until)):
                count = await self._store_chunks(job_id, upload, stored)
        except UploadError as error:
            return await self._fail_with_results(job_id, f"The uploaded file could not be read again: {error.message}")
        except NotFound:
            return await self._fail_with_results(job_id, "The uploaded file is gone.")
        if count is None or not await self._chunks.end_split(job_id, self._owner, count):
            return None  # its turn was taken over: the new splitter goes on
        log.info("batch job split", extra={"job_id": job_id, "chunks": count, "resumed_after": stored,
                                           "seconds": round(time.monotonic() - started, 3), "worker": self._owner})
        # Every chunk may have ended while the last ones were stored: the job finishes now.
        return await self.finish_if_ended(job_id)

    async def _store_chunks(self, job_id: str, upload: UploadedFile, stored: int) -> int | None:
        """The upload's chunks after the first `stored`, each's CSV written, then stored and sent a
        batch at a time; how many chunks the job has, or None when the turn was taken over."""
        batch: list[StoredChunkInput] = []
        batch_size, count = 1, stored  # the first chunk goes at once; then batches double, to 32
        async for chunk in self._chunk_inputs(upload):
            if chunk.plan.index < stored:
                continue  # stored by the splitter that died
            batch.append(StoredChunkInput(chunk.plan, chunk.line_offset, *await self._store_input(job_id, chunk)))
            if len(batch) >= batch_size:
                if not await self._add(job_id, batch):
                    return None
                count, batch, batch_size = count + len(batch), [], min(batch_size * 2, SPLIT_BATCH_CHUNKS)
        if batch and not await self._add(job_id, batch):
            return None
        return count + len(batch)

    async def _fail_with_results(self, job_id: str, error: str) -> BatchJob | None:
        """The job fails, and the results of its chunks that ran (while it was split, or before
        its export could be assembled), never to be exported, are deleted."""
        failed = await self._fail(job_id, error)
        if failed is not None:
            await self._drop_results(job_id)
        return failed

    async def _add(self, job_id: str, batch: list[StoredChunkInput]) -> bool:
        if not await self._chunks.add_chunks(job_id, self._owner, batch, self._clock.now()):
            return False
        await self._send(len(batch))
        return True

    async def _chunk_inputs(self, upload: UploadedFile) -> AsyncIterator[ChunkInput]:
        splitter: ChunkSplitter | None = None
        slices = TimeSlices(self._slice_seconds)
        async for reader, row in stored_rows(self._files, upload, UNCAPPED):
            splitter = splitter or ChunkSplitter(reader.header_text, self._policy.chunk_rows)
            if chunk := splitter.add(row):
                yield chunk
            await slices.pause_if_due()
        if splitter and (chunk := splitter.end()):
            yield chunk

    async def _store_input(self, job_id: str, chunk: ChunkInput) -> tuple[str, int]:
        """The chunk's CSV stored; its key and size."""
        # A second split of the job (its task sent twice) writes the same bytes under the same key.
        key = chunk_input_key(job_id, chunk.plan.index)
        return key, await write_text(self._files, key, chunk.text)

    # --- a chunk task ----------------------------------------------------------------------

    async def run_next(self, split_waiting: bool = True) -> ChunkTurn:
        """Split the oldest job waiting to be split, if any (its own task may be queued behind a
        big job's chunk tasks) and `split_waiting`, then claim the fairest chunk and run it."""
        ended = await self._split_waiting() if split_waiting else []
        now = self._clock.now()
        chunk = await self._chunks.claim(self._owner, now, now + self._policy.lease, self._policy.max_attempts)
        if chunk is None:
            return ChunkTurn(ran=False, ended=ended)
        return ChunkTurn(ran=True, ended=ended + [job for job in [await self._run(chunk)] if job])

    async def _split_waiting(self) -> list[BatchJob]:
        ended = []
        for job_id in await self._chunks.unsplit_jobs(self._clock.now(), limit=1):
            if job := await self.split(job_id):
                ended.append(job)
        return ended

    async def _run(self, chunk: ClaimedChunk) -> BatchJob | None:
        started, cpu_started = time.monotonic(), time.process_time()
        self._metrics.chunk_started()

        def ended(outcome: str) -> None:
            seconds = time.monotonic() - started
            self._metrics.chunk_ended(seconds, chunk.plan.row_count, outcome)
            # Which worker ran which chunk, and for how long: how the work was shared (bench/batch.py).
            # The process's CPU time beside the wall time tells a busy machine from a slow chunk.
            log.info("batch chunk ended", extra={
                "job_id": chunk.job_id, "chunk": chunk.plan.index, "outcome": outcome, "rows": chunk.plan.row_count,
                "seconds": round(seconds, 3), "cpu_seconds": round(time.process_time() - cpu_started, 3),
                "worker": self._owner,
            })

        rows: Counted[AddressRow] = Counted(())
        try:
            # The lease is renewed with the rows answered so far: the job's progress moves within the chunk.
            async with self._holding(lambda until: self._chunks.renew(chunk, until, rows.count),
                                     every=self._policy.progress_seconds):
                rows = Counted(rows_of(await chunk_text(self._files, chunk.source), chunk.line_offset))
                result = await self._answers.answer_rows(chunk.job_id, rows, TimeSlices(self._slice_seconds))
                written = await write_chunk(self._files, self._writer, chunk, result)
        except Exception as error:  # noqa: BLE001 - a chunk's failure is recorded; the worker goes on
            ended("failed")
            log.exception("batch chunk failed", extra={"job_id": chunk.job_id, "chunk": chunk.plan.index})
            return await self._after_failure(chunk, f"{type(error).__name__}: {error}"[:300])
        if await self._complete(chunk, result, written):
            ended("done")
            return await self.finish_if_ended(chunk.job_id)
        ended("lost")
        log.warning("batch chunk lost its lease; its result was dropped",
                    extra={"job_id": chunk.job_id, "chunk": chunk.plan.index})
        return None

    async def _after_failure(self, chunk: ClaimedChunk, reason: str) -> BatchJob | None:
        if chunk.attempt < self._policy.max_attempts:
            if await self._chunks.release(chunk, reason, self._clock.now()):
                await self._send(1)
            return None
        return await self._give_up(chunk, f"the lookup failed {chunk.attempt} times ({reason})")

    async def _give_up(self, chunk: ClaimedChunk, reason: str) -> BatchJob | None:
        try:
            rows = rows_of(await chunk_text(self._files, chunk.source), chunk.line_offset)
        except NotFound:
            # Without its rows the chunk cannot even be written as failed rows: the job cannot
            # finish honestly, so it fails, saying why, instead of staying 'running' for ever.
            return await self._fail(chunk.job_id, INPUT_GONE)
        result = self._answers.failed_rows(rows, reason)
        if await self._complete(chunk, result, await write_chunk(self._files, self._writer, chunk, result)):
            return await self.finish_if_ended(chunk.job_id)
        return None

    async def _complete(self, chunk: ClaimedChunk, result: ChunkResult, written: ChunkFiles) -> bool:
        """Record the claim's files as the chunk's result, if the claim still holds the chunk;
        else they are nobody's: deleted (the winner's files have other keys)."""
        if await self._chunks.complete(chunk, written, self._clock.now()):
            return True
        await delete_files(self._files, written.keys)
        return False

    # --- the sweeper -----------------------------------------------------------------------

    async def sweep(self) -> list[BatchJob]:
        """Chunks of dead workers back on the queue, lost tasks sent again, chunks that killed
        their worker every time given up, and ended jobs whose finisher died finished. Safe to
        run in every process at once: each step is a conditional update."""
        now = self._clock.now()
        requeued = await self._chunks.requeue_expired(now, self._policy.max_attempts)
        stale = await self._chunks.requeue_stale(now - timedelta(seconds=self._policy.stale_seconds), now)
        await self._send(requeued + stale)
        ended = await self._split_waiting()  # a job whose task was lost
        while chunk := await self._chunks.claim(self._owner, now, now + self._policy.lease,
                                                self._policy.max_attempts, exhausted=True):
            job = await self._give_up(chunk, f"the worker running it stopped {chunk.attempt - 1} times")
            ended += [job] if job else []
        for job_id in await self._chunks.finishable_jobs(now):
            job = await self.finish_if_ended(job_id)
            ended += [job] if job else []
        if requeued or stale:
            log.info("batch chunks sent again", extra={"expired": requeued, "stale": stale})
        return ended

    # --- the one finish --------------------------------------------------------------------

    async def finish_if_ended(self, job_id: str) -> BatchJob | None:
        """When every chunk has ended, take the job's finishing turn (one process wins) and store
        its one export; returns the ended job to the process that ended it, else None."""
        now = self._clock.now()
        if not await self._chunks.begin_finishing(job_id, self._owner, now, now + self._policy.lease):
            return None
        job = await self._store.job(None, job_id)
        if job is None:
            return None
        started = time.monotonic()
        try:
            async with self._holding(lambda until: self._chunks.renew_finishing(job_id, self._owner, until)):
                export = await self._answers.assemble(job, self._chunks.results(job_id))
        except Exception as error:  # noqa: BLE001 - recorded on the job
            log.exception("batch export failed", extra={"job_id": job_id})
            return await self._fail_with_results(job_id, f"Batch processing failed: {type(error).__name__}")
        # `finish` drops their keys: done chunks' inputs, and their score files (the export's merged them).
        done_inputs = await self._chunks.done_input_keys(job_id)
        merged_scores = [output.scores_key async for output in self._chunks.results(job_id) if output.scores_key]
        try:
            finished = await self._chunks.finish(job_id, self._owner, export, self._clock.now(), self._storage_limit)
        except NoRoomForExport as full:
            log.warning("batch export refused: past its owner's storage allowance",
                        extra={"job_id": job_id, "export_bytes": export.size_bytes, "used_bytes": full.used})
            await delete_files(self._files, export_own_keys(export))  # the chunks' files go with the job
            failed = await self._fail_with_results(job_id, export_refused_message(full.used, export.size_bytes,
                                                                                   self._storage_limit or 0))
            if failed is not None:  # this process ended it: given back once
                await self._answers.give_back(failed)
            return failed
        if not finished:
            # Another process took the turn over and finishes it: this manifest goes, never the
            # chunks' files (the other's manifest lists the same).
            await delete_files(self._files, export_own_keys(export))
            return None
        log.info("batch export stored", extra={"job_id": job_id, "seconds": round(time.monotonic() - started, 3),
                                               "worker": self._owner})
        # The export is its chunks' files now; a failed chunk's input stays, to run its rows again.
        await delete_files(self._files, [*done_inputs, *merged_scores])
        return await self._store.job(None, job_id)

    async def _drop_results(self, job_id: str) -> None:
        """A failed job's chunk results are never exported: their files go (its failed rows'
        inputs stay in the chunk rows, to run them again)."""
        try:
            await delete_files(self._files, [key async for output in self._chunks.results(job_id)
                                             for key in output.keys])
        except Exception:  # noqa: BLE001 - the job has failed and stays so; only files are left over
            log.exception("a failed job's chunk files could not all be deleted", extra={"job_id": job_id})

    async def _fail(self, job_id: str, error: str) -> BatchJob | None:
        if not await self._chunks.fail(job_id, error, self._clock.now()):
            return None  # it had ended already, by another process
        return await self._store.job(None, job_id)

    # --- status ----------------------------------------------------------------------------

    async def chunks_of(self, job_id: str) -> JobChunks | None:
        return await self._chunks.job_chunks(job_id, self._clock.now())

    # --- helpers ---------------------------------------------------------------------------

    async def _send(self, count: int) -> None:
        if count > 0:
            await self._queue().enqueue_chunks(count)

    @contextlib.asynccontextmanager
    async def _holding(self, renew: Callable[[datetime], Awaitable[bool]], every: float | None = None
                       ) -> AsyncIterator[None]:
        """Renew a lease every heartbeat (or every `every` seconds, when sooner) while the block runs."""
        interval = min(every or self._policy.heartbeat_seconds, self._policy.heartbeat_seconds)

        async def beat() -> None:
            while True:
                await self._clock.sleep(interval)
                if not await renew(self._clock.now() + self._policy.lease):
                    return  # taken over: the block's result will not be written

        heartbeat = asyncio.create_task(beat())
        try:
            yield
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await heartbeat

"""Batch lookups: upload a CSV, run it as a job with stages and progress, keep the export.

The job answers every row with the same `LookupService.answer` as a single lookup, in one
process, with no HTTP call per row. Its state lives in the database, so an interrupted job
is run again from the start on restart; the export is stored together with the job's
'done' mark, so the history never shows half an export."""

from __future__ import annotations

import logging
import re
import uuid

from dataclasses import dataclass
from datetime import datetime
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

from application.batch_files import chunk_text, pieces, stored_rows, upload_key, write_bytes, write_utf8
from application.batch_limits import BatchAllowance, BatchUsage, RowReservation, batch_storage_estimate
from application.batch_runner import ChunkPolicy, ChunkRunner
from application.errors import InvalidInput, NotFound
from application.heavy_work import HeavyWork, Uncapped, ending_with
from application.lookup import BATCH, LookupService
from application.repeat_answers import RepeatAnswers
from application.result_files import delete_files, export_bytes, export_keys, primed, stored_keys
from application.ports.accounts import AccessClaims
from application.ports.batch import (
    CLIENT,
    BatchJob,
    BatchStore,
    ExportFile,
    JobQueue,
    UploadedFile,
    WrittenFile,
)
from application.ports.chunks import ChunkOutput, ChunkResult, ChunkStore, JobChunks
from application.ports.downloads import DETAILED_FILES
from application.ports.results import (
    ChunkResultWriter, ChunkRows, ExportManifest, ExportScores, ManifestChunk, export_scores_key, manifest_key,
    write_manifest,
)
from application.ports.results import ExportQueries, read_manifest
from application.ports.clock import Clock
from application.ports.files import FileStore
from application.ports.metrics import Metrics
from application.ports.lookup import SearchStore, StoredSearch
from application.ports.webhooks import BatchEndedListener, NoBatchEndedListener
from application.search_quota import MonthlyCharge
from application.time_slices import SLICE_SECONDS, TimeSlices
from domain.batch_input import AddressRow, BatchCsvReader, SubmittedAddress, UploadCaps, submitted_csv
from domain.chunks import header_and_body, next_row_after
from domain.export import export_rows, to_csv
from domain.lookup_result import NOT_PROCESSED, LookupResult, not_located, with_location_note
from domain.occupancy import address_from_parts
from domain.row_facts import answer_facts, score_rows
from domain.quota import month_key

NO_DETAIL = (
    "This export has no detailed version: it was made from rows a client sent, or before detailed "
    "exports existed. Run the batch again for one."
)
ROW_NOT_READ = "This row has neither a 5-digit ZIP code nor a city, so it was not located: add one of them."
ROW_FAILED = "This row was not processed: {reason}. Run the job's failed rows again to retry it."
log = logging.getLogger("perilscope.batch")
# Rows a caller sent to POST /api/export are stored as given, unchecked: the name says so, because
# the name is the one label that stays with the file once downloaded, mailed or shared.
CLIENT_SUPPLIED_NAME = "client-supplied"
EXPORT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.csv$")
API_BATCH_NAME = "api-batch.csv"  # the stored upload of a public API batch; its export is api-batch_export_...
log = logging.getLogger("perilscope.batch")
Answer = tuple[dict[str, Any], list[dict[str, Any]]]  # an answer's facts and its score rows
# What an answer's facts and score rows take in memory, about: a few dozen values each (a county's
# score row has 36 scores and ratings), more with occupants and alternatives.
ANSWER_BYTES = 6 * 1024


@dataclass(frozen=True, slots=True)
class BatchCharge:
    """What starting a batch took: one search of the month, and its rows."""

    search: MonthlyCharge
    rows: RowReservation


def eta_seconds(job: BatchJob, now: datetime) -> int | None:
    if job.status != "running" or not job.started_at or job.done == 0:
        return None
    elapsed = (now - job.started_at).total_seconds()
    return max(0, round(elapsed / job.done * (job.total - job.done)))


def valid_export_name(name: str) -> bool:
    """Names are ours (see _export_name); anything else, such as a path, is simply not found."""
    return bool(EXPORT_NAME.fullmatch(name)) and ".." not in name


class BatchService:
    def __init__(
        self,
        store: BatchStore,
        lookup: LookupService,
        searches: SearchStore,
        clock: Clock,
        queue: Callable[[], JobQueue],
        allowance: BatchAllowance,
        downloads: ExportQueries,
        chunks: ChunkStore,
        files: FileStore,
        results: ChunkResultWriter,
        scores: ExportScores,
        policy: ChunkPolicy = ChunkPolicy(),
        worker_id: str = "local",
        slice_seconds: float = SLICE_SECONDS,
        ended: BatchEndedListener | None = None,
        metrics: Metrics | None = None,
        caps: UploadCaps = UploadCaps(),
        heavy: HeavyWork | Uncapped = Uncapped(),
    ) -> None:
        self._store = store
        self._heavy = heavy  # each user's detailed downloads and legacy searches at once
        self._chunks = chunks
        self._files = files
        self.caps = caps
        self._results = results
        self._scores = scores
        # An answer's facts and score rows, shared by the repeats of its address within a job.
        self._repeats: RepeatAnswers[Answer] = RepeatAnswers(size_of=_answer_bytes)
        self._runner = ChunkRunner(store, chunks, files, results, clock, queue, policy, worker_id, answers=self,
                                   slice_seconds=slice_seconds, metrics=metrics,
                                   storage_limit=allowance.limits.storage_bytes)
        self._ended = ended or NoBatchEndedListener()
        self._downloads = downloads  # an export's downloads, queries over its dataset
        self._allowance = allowance
        self._lookup = lookup
        self._searches = searches
        self._clock = clock
        # A factory, because the queue needs this service too (it runs the jobs).
        self._queue = queue
        # Parsing, answering and exporting share the event loop with every other request.
        self._slice_seconds = slice_seconds

    def _slices(self) -> TimeSlices:
        return TimeSlices(self._slice_seconds)

    @property
    def queue(self) -> JobQueue:
        return self._queue()

    # --- upload and start ---------------------------------------------------------

    async def upload(self, caller: AccessClaims, filename: str, body: bytes | AsyncIterable[bytes]) -> UploadedFile:
        """Read, check and store an uploaded CSV as it arrives (`body`: the file's bytes, whole or
        as a stream), never holding it whole. Whatever is refused (UploadError, StorageFull) leaves
        no file behind."""
        await self._lookup.quota.admit(caller)
        reader = BatchCsvReader(filename, self.caps)  # a wrong kind of file is refused before a byte is stored
        upload_id = str(uuid.uuid4())
        key = upload_key(caller.user_id, upload_id)
        limit = self._allowance.limits.storage_bytes
        used = await self._store.storage_used(caller.user_id)
        stored = 0
        async with self._files.open_writer(key) as writer:
            async for piece in pieces(body):
                stored += await write_utf8(writer, reader.feed(piece)[0])
                if used + stored > limit:  # refused now, not after the rest of the file has arrived
                    raise self._allowance.refuse_storage(used, stored)
            stored += await write_utf8(writer, reader.finish()[0])
        upload = UploadedFile(
            id=upload_id, user_id=caller.user_id, name=_safe_display_name(filename), row_count=reader.row_count,
            created_at=self._clock.now(), size_bytes=stored, file_key=key,
        )
        await self._add_upload_or_delete(upload)
        return upload

    async def _add_upload_or_delete(self, upload: UploadedFile) -> None:
        """Record a stored upload, within the owner's storage (checked atomically); refused or
        failed, its file is deleted."""
        try:
            if not await self._store.add_upload(upload, self._allowance.limits.storage_bytes):
                raise self._allowance.refuse_storage(await self._store.storage_used(upload.user_id), upload.size_bytes)
        except BaseException:
            if upload.file_key is not None:
                await self._files.delete(upload.file_key)
            raise

    async def _charge(self, caller: AccessClaims, upload: UploadedFile) -> BatchCharge:
        """One search of the month, and the upload's rows from the monthly batch row allowance."""
        search = await self._lookup.quota.reserve(caller)
        try:
            rows = await self._allowance.reserve_rows(caller, upload.row_count)
        except BaseException:
            await self._lookup.quota.release(search)
            raise
        return BatchCharge(search, rows)

    async def _refund(self, caller: AccessClaims, charge: BatchCharge) -> None:
        await self._lookup.quota.release(charge.search)
        await self._allowance.release(charge.rows)

    async def start(self, caller: AccessClaims, file_id: str) -> BatchJob:
        upload = await self._store.upload(caller.user_id, file_id)
        if upload is None:
            raise NotFound("No file has been uploaded for processing.")
        await self._room_for_batch(caller.user_id, upload.row_count, 0)  # the upload is counted already
        charge = await self._charge(caller, upload)
        try:
            job = BatchJob(
                id=str(uuid.uuid4()), user_id=caller.user_id, file_id=file_id, status="queued", stage="search",
                done=0, total=upload.row_count, created_at=self._clock.now(),
            )
            await self._store.add_job(job)
            await self._searches.add(
                # Its occupants are counted in its export, row by row; here they are unknown, not 0.
                StoredSearch(id=job.id, user_id=caller.user_id, kind=BATCH, address=upload.name,
                             occupant_count=None, result=None, created_at=job.created_at)
            )
        except BaseException:
            await self._refund(caller, charge)
            raise
        await self.queue.enqueue(job.id)
        return job

    async def start_submitted(
        self, user_id: str, addresses: list[SubmittedAddress], callback_url: str | None = None
    ) -> BatchJob:
        """A job for addresses a program sent (the public API), on the same machinery as an
        upload: stored as an upload (the storage limit applies) and run by `run`, its export kept
        in the user's history. Its rows come out of the user's one monthly batch row allowance, as
        an upload's do (given back if it cannot be stored or queued); the caller charges the
        public API's daily plan on top, not the web's monthly search quota."""
        rows = await self._allowance.reserve_rows(AccessClaims(user_id), len(addresses), what="batch")
        try:
            return await self._store_submitted(user_id, addresses, callback_url)
        except BaseException:
            await self._allowance.release(rows)
            raise

    async def _store_submitted(
        self, user_id: str, addresses: list[SubmittedAddress], callback_url: str | None
    ) -> BatchJob:
        now = self._clock.now()
        upload_id = str(uuid.uuid4())
        key = upload_key(user_id, upload_id)
        content = submitted_csv(addresses).encode()
        await self._room_for_batch(user_id, len(addresses), len(content))
        size = await write_bytes(self._files, key, content)
        upload = UploadedFile(id=upload_id, user_id=user_id, name=API_BATCH_NAME, row_count=len(addresses),
                              created_at=now, size_bytes=size, file_key=key)
        await self._add_upload_or_delete(upload)
        job = BatchJob(
            id=str(uuid.uuid4()), user_id=user_id, file_id=upload.id, status="queued", stage="search", done=0,
            total=upload.row_count, created_at=now, callback_url=callback_url,
        )
        await self._store.add_job(job)
        try:
            await self.queue.enqueue(job.id)
        except BaseException:
            # The caller gives the charge back: the job must then never run (a restart resumes queued jobs).
            await self._store.fail(job.id, "The batch could not be queued.", self._clock.now())
            raise
        return job

    async def _room_for_batch(self, user_id: str, rows: int, upload_bytes: int) -> None:
        """A job whose files could never fit the owner's storage is refused at its start, before
        anything is charged or run: an underwriter learns now, not after the rows have run, what
        to delete. The estimate only refuses the hopeless; the finish checks the export as stored."""
        needed = batch_storage_estimate(rows, upload_bytes)
        used = await self._store.storage_used(user_id)
        if not self._allowance.has_room(used, needed):
            raise self._allowance.refuse_storage(used, needed, what=f"a batch of {rows:,} rows (its export, estimated)",
                                                 then="start it again")

    async def unfinished_jobs(self, caller: AccessClaims) -> list[BatchJob]:
        """The caller's queued and running jobs, oldest first (the dashboard shows them on return)."""
        return await self._store.unfinished_jobs(caller.user_id)

    async def job(self, caller: AccessClaims, job_id: str) -> BatchJob:
        return await self.job_of(caller.user_id, job_id)

    async def job_of(self, user_id: str, job_id: str) -> BatchJob:
        """The user's job; another user's is not found, like an unknown id."""
        job = await self._store.job(user_id, job_id)
        if job is None:
            raise NotFound("No such batch job")
        return job

    # --- the job ----------------------------------------------------------------------

    async def run(self, job_id: str) -> None:
        """A job's task: split it into chunks and queue them (application/batch_runner.py)."""
        if ended := await self._runner.split(job_id):
            await self._job_ended(ended)

    async def run_chunk(self, split_waiting: bool = True) -> bool:
        """A chunk task: run the fairest chunk of any job (splitting a job waiting to be, unless
        told not to). False when no chunk was waiting."""
        turn = await self._runner.run_next(split_waiting)
        for ended in turn.ended:
            await self._job_ended(ended)
        return turn.ran

    async def sweep(self) -> None:
        """Periodically, in every worker and server (see ChunkRunner.sweep)."""
        for ended in await self._runner.sweep():
            await self._job_ended(ended)

    async def _job_ended(self, job: BatchJob) -> None:
        """The one place a job has ended, done or failed: reached exactly once per job, by the
        process that ended it."""
        log.info("batch job ended", extra={"job_id": job.id, "status": job.status})
        await self._drop_done_inputs(job.id)
        await self._tell_ended(job.id)

    async def _drop_done_inputs(self, job_id: str) -> None:
        """The done chunks' inputs are read no more (failed ones stay, to run again)."""
        try:
            await delete_files(self._files, await self._chunks.done_input_keys(job_id))
        except Exception:  # noqa: BLE001 - the job has ended either way; the files are only garbage
            log.exception("the inputs of a finished job's chunks could not be deleted", extra={"job_id": job_id})

    async def _tell_ended(self, job_id: str) -> None:
        """The webhook of a job with a callback URL hears that it ended; its trouble never fails the job."""
        try:
            job = await self._store.job(None, job_id)
            if job is not None and job.callback_url:
                await self._ended.batch_ended(job, job.callback_url)
        except Exception:  # noqa: BLE001 - the job is finished and stays so
            log.exception("the batch-ended listener failed", extra={"job_id": job_id})

    async def answer_rows(self, job_id: str, rows: Iterable[AddressRow], slices: TimeSlices) -> ChunkResult:
        """A chunk's rows as its table: each row's facts (its values as they came, its answer's
        facts) and the scores its answer used, in order."""
        table: ChunkRows | None = None
        columns: tuple[str, ...] = ()
        async for row in slices.each(rows):
            if table is None:
                columns, table = row.columns, self._results.new_table(row.columns)
            # Portfolios repeat addresses; an answer is computed once and shared by the repeats.
            answer = self._repeats.get(job_id, row.one_line)
            if answer is None:
                result = await self._answer(row)
                answer = (answer_facts(result), score_rows(result))
                self._repeats.put(job_id, row.one_line, answer)
            table.add_facts(row.line, row.values, *answer)
        return ChunkResult(table or self._results.new_table(()), columns)

    async def give_back(self, job: BatchJob) -> None:
        """A job whose export could not be kept (no room in its owner's storage) gave them nothing:
        its rows go back to the month's allowance and, for a web batch, its search, so running it
        again once old exports are deleted costs what it would have. (A public API batch's daily
        requests are not given back: the day's plan counts requests accepted.)"""
        month = month_key(job.created_at)
        await self._allowance.release(RowReservation(job.user_id, month, job.total))
        if await self._searches.get(job.user_id, job.id) is not None:  # a web batch is stored as a search
            await self._lookup.quota.release(MonthlyCharge(job.user_id, month, None))

    def failed_rows(self, rows: Iterable[AddressRow], reason: str) -> ChunkResult:
        """Rows given up: each kept in its place, not located, with the reason and what to do."""
        note = ROW_FAILED.format(reason=reason)
        now = self._clock.now().isoformat()
        table: ChunkRows | None = None
        columns: tuple[str, ...] = ()
        count = 0
        for row in rows:
            if table is None:
                columns, table = row.columns, self._results.new_table(row.columns)
            table.add(row.line, row.values, not_located(row.one_line, note, now, str(uuid.uuid4()), method=NOT_PROCESSED))
            count += 1
        return ChunkResult(table or self._results.new_table(()), columns, rows_failed=count, error=reason)

    async def assemble(self, job: BatchJob, results: AsyncIterator[ChunkOutput]) -> ExportFile:
        """The export: a manifest of the chunks' facts files, in input order, checked to hold
        every row once, and their score rows merged (each set once). Nothing else is copied or
        composed: the chunks' facts files are the export's. Its size is every file's, as stored
        (the chunks' sizes were recorded as they were written); the chunks' score files, merged,
        are not counted (the finish deletes them: merged_scores_keys)."""
        upload = await self._store.upload(None, job.file_id) if job.file_id else None
        now = self._clock.now()
        export_id = str(uuid.uuid4())
        chunks: list[ManifestChunk] = []
        chunk_scores: list[str] = []
        user_columns: tuple[str, ...] = ()
        rows = size = 0
        async for output in results:
            rows = next_row_after(output.plan, rows)
            if output.facts_key is None or output.scores_key is None:
                raise ValueError(f"chunk {output.plan.index} has no result files")
            user_columns = user_columns or output.user_columns
            chunks.append(ManifestChunk(index=output.plan.index, first_row=output.plan.first_row,
                                        rows=output.plan.row_count, facts=output.facts_key))
            chunk_scores.append(output.scores_key)
            size += output.size_bytes
        scores_key = None
        if chunk_scores:
            merged = await self._scores.merge(self._files, chunk_scores, export_scores_key(job.user_id, export_id))
            scores_key = merged.key
            size += merged.size_bytes - merged.merged_bytes
        key = manifest_key(job.user_id, export_id)
        size += await write_manifest(self._files, key, ExportManifest(list(user_columns), rows, chunks, scores=scores_key))
        return ExportFile(id=export_id, user_id=job.user_id, name=_export_name(upload.name if upload else "batch", now),
                          exported_at=now, job_id=job.id, manifest_key=key, size_bytes=size,
                          detail_columns=user_columns)

    async def job_chunks(self, caller: AccessClaims, job_id: str) -> JobChunks | None:
        """Where the caller's job's chunks are (None for a job not split yet)."""
        await self.job(caller, job_id)
        return await self._runner.chunks_of(job_id)

    async def rerun_failed(self, caller: AccessClaims, job_id: str) -> BatchJob:
        """The failed rows of the caller's job, as a new job (charged like any other)."""
        await self.job(caller, job_id)
        failed = await self._chunks.failed_inputs(job_id)
        if not failed:
            raise InvalidInput("This job has no failed rows to run again.", code="no_failed_rows")
        upload_id = str(uuid.uuid4())
        key = upload_key(caller.user_id, upload_id)
        stored = 0
        # The failed chunks' lines as uploaded, under one header: exactly what the user sent.
        async with self._files.open_writer(key) as writer:
            for index, chunk in enumerate(failed):
                header, body = header_and_body(await chunk_text(self._files, chunk.source))
                stored += await write_utf8(writer, body if index else header + body)
        upload = UploadedFile(
            id=upload_id, user_id=caller.user_id, name=f"failed_rows_of_{job_id[:8]}.csv",
            row_count=sum(chunk.row_count for chunk in failed), created_at=self._clock.now(), size_bytes=stored,
            file_key=key,
        )
        await self._add_upload_or_delete(upload)
        return await self.start(caller, upload.id)

    async def _answer(self, row: AddressRow) -> LookupResult:
        # The CSV already separates the parts; they are read by the single lookup's rule (README, "Addresses").
        address = address_from_parts(row.street, row.city, row.state, row.zip) if row.problem is None else None
        if address is None:
            message = row.problem or ROW_NOT_READ
            return not_located(row.one_line, message, self._clock.now().isoformat(), str(uuid.uuid4()))
        result = await self._lookup.answer(address, query=row.one_line)
        return with_location_note(result, row.zip_note) if row.zip_note else result

    # --- SPEC §7's three-call flow (search, match, export), kept for older clients ----------

    async def search_now(self, caller: AccessClaims, file_id: str) -> AsyncIterator[LookupResult]:
        """Answer every row of an upload in this request (one search against the quota), a row at
        a time as they are sent, so memory does not grow with the rows. The checks and the charge
        happen before the first row: a refusal is an error, not a cut-off answer."""
        upload = await self._store.upload(caller.user_id, file_id)
        if upload is None:
            raise NotFound("No file has been uploaded for processing.")
        end = await self._heavy.begin(caller.user_id, "search")
        try:
            charge = await self._charge(caller, upload)
        except BaseException:
            await end()
            raise
        return self._answered_rows(caller, upload, charge, end)

    async def _answered_rows(self, caller: AccessClaims, upload: UploadedFile, charge: BatchCharge,
                             end: Callable[[], Awaitable[None]]) -> AsyncIterator[LookupResult]:
        slices = self._slices()
        occupants: int | None = None  # unknown until a row's occupants are known (#26, item 2)
        try:
            async for reader, row in stored_rows(self._files, upload, self.caps):
                result = await self._answer(reader.address(row))
                if (found := result.occupant_count) is not None:
                    occupants = (occupants or 0) + found
                yield result
                await slices.pause_if_due()
            await self._searches.add(
                StoredSearch(id=str(uuid.uuid4()), user_id=caller.user_id, kind=BATCH, address=upload.name,
                             occupant_count=occupants, result=None, created_at=self._clock.now())
            )
        except BaseException:  # failed, or the client went away before the last row: not charged
            await self._refund(caller, charge)
            raise
        finally:
            await end()

    async def export_now(self, caller: AccessClaims, results: list[dict[str, Any]]) -> ExportFile:
        """Store results (as `search_now` returns them) as an export in the caller's history. The
        rows are the caller's, not checked against any search: the export is marked client-supplied.
        Rate limited like the other routes, and within the caller's storage: checked before the
        file is written, and again atomically as it is recorded."""
        await self._lookup.quota.admit(caller)
        content = to_csv(export_rows(results)).encode()
        used = await self._store.storage_used(caller.user_id)
        if not self._allowance.has_room(used, len(content)):
            raise self._allowance.refuse_storage(used, len(content), what="this export", then="export again")
        now = self._clock.now()
        export_id = str(uuid.uuid4())
        key = export_keys(caller.user_id, export_id).csv
        size = await write_bytes(self._files, key, content)
        export = ExportFile(id=export_id, user_id=caller.user_id, name=_export_name(CLIENT_SUPPLIED_NAME, now),
                            exported_at=now, source=CLIENT, csv_key=key, size_bytes=size)
        try:
            if not await self._store.add_export(export, self._allowance.limits.storage_bytes):
                used = await self._store.storage_used(caller.user_id)  # a concurrent write took the room
                raise self._allowance.refuse_storage(used, size, what="this export", then="export again")
        except BaseException:
            await delete_files(self._files, export.keys)
            raise
        return export

    async def match_now(self, caller: AccessClaims, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """SPEC §7's match step: the search already matched occupants, so the rows come back as
        sent; rate limited like every other route (it takes a body as large as an export's)."""
        await self._lookup.quota.admit(caller)
        return rows

    # --- exports ------------------------------------------------------------------------

    async def exports(self, caller: AccessClaims) -> list[ExportFile]:
        return await self._store.exports(caller.user_id)

    async def batch_exports_of(self, user_id: str, offset: int, limit: int) -> list[ExportFile]:
        """The user's exports of batch jobs, newest first: for the public API, whose caller
        application/api_batches.py has checked."""
        return await self._store.batch_exports(user_id, offset, limit)

    async def export(self, caller: AccessClaims, name: str) -> ExportFile:
        return await self._export_of(caller.user_id, name)

    async def export_csv(self, caller: AccessClaims, name: str) -> tuple[ExportFile, AsyncIterator[bytes]]:
        """The caller's export and its SPEC CSV, streamed: a batch's made from its dataset by a
        query, rows a client sent (or an export from before, not converted yet) from their file."""
        export = await self._export_of(caller.user_id, name)
        if export.manifest_key is not None:
            pieces = self._downloads.spec_csv(await read_manifest(self._files, export.manifest_key))
        else:
            pieces = await export_bytes(self._files, self._store, export, detailed=False)
        if pieces is None:
            raise NotFound("Export not found")
        return export, await primed(pieces)

    async def _export_of(self, user_id: str, name: str) -> ExportFile:
        export = await self._store.export(user_id, name) if valid_export_name(name) else None
        if export is None:
            raise NotFound("Export not found")
        return export

    async def delete_export(self, caller: AccessClaims, name: str) -> None:
        deleted = await self._store.delete_export(caller.user_id, name) if valid_export_name(name) else None
        if deleted is None:
            raise NotFound("Export not found")
        await delete_files(self._files, await stored_keys(self._files, deleted))

    async def purge_uploads(self) -> int:
        """Retention: free the uploads no job needs any more (their exports stay), files too.
        Returns how many uploads went."""
        keys = await self._store.purge_uploads(self._clock.now() - self._allowance.limits.upload_retention)
        await delete_files(self._files, [key for key in keys if key is not None])
        return len(keys)

    async def usage(self, caller: AccessClaims) -> BatchUsage:
        return await self._allowance.usage(caller)

    async def detailed_export(self, caller: AccessClaims, name: str, fmt: str) -> tuple[ExportFile, WrittenFile]:
        return await self.detailed_export_of(caller.user_id, name, fmt)

    async def detailed_export_of(self, user_id: str, name: str, fmt: str) -> tuple[ExportFile, WrittenFile]:
        """The user's detailed export as a file of that format (application/ports/downloads.py),
        made from its dataset as it is sent (XLSX is built first, in a temporary file), or
        NotFound saying why there is none: rows a client sent have no dataset."""
        export = await self._export_of(user_id, name)
        if export.manifest_key is None:
            raise NotFound(NO_DETAIL)
        if fmt not in DETAILED_FILES:
            raise InvalidInput(f"Unknown export format {fmt[:20]!r}: send {', '.join(DETAILED_FILES)}.",
                               code="unsupported_format")
        manifest = await read_manifest(self._files, export.manifest_key)
        media_type, extension = DETAILED_FILES[fmt]
        end = await self._heavy.begin(user_id, "download")
        try:
            chunks = await primed(self._downloads.detailed(manifest, fmt))
        except BaseException:
            await end()
            raise
        name = f"{export.name.rsplit('.', 1)[0]}_detailed.{extension}"
        return export, WrittenFile(name, media_type, ending_with(chunks, end))

    def eta_seconds(self, job: BatchJob) -> int | None:
        return eta_seconds(job, self._clock.now())

    @staticmethod
    def rows_per_second(job: BatchJob, chunks: JobChunks | None) -> float | None:
        """Rows ended per second from the job's first chunk taken to its latest chunk ended (so
        the figure is the job's own, the same whenever it is asked); None before a chunk ends."""
        if chunks is None or chunks.last_finished_at is None or job.started_at is None:
            return None
        seconds = (chunks.last_finished_at - job.started_at).total_seconds()
        return round(job.done / seconds, 1) if seconds > 0 else None

    async def resume_unfinished(self) -> list[str]:
        """After a restart: queue what was waiting to be split (or split in part) and send tasks
        again for the queued chunks of every unfinished job (an in-process queue's tasks died with
        the process; a spare task on a lasting queue finds nothing to do)."""
        job_ids = await self._store.unfinished_job_ids()
        for job_id in job_ids:
            if await self._runner.chunks_of(job_id) is None:
                # Not split whole: its own task splits it (going on after the chunks stored), in
                # the queue's turn, rather than holding up the start here.
                await self.queue.enqueue(job_id)
            elif ended := await self._runner.split(job_id, resend=True):
                await self._job_ended(ended)
        return job_ids


def _answer_bytes(answer: Answer) -> int:
    facts, scores = answer
    return ANSWER_BYTES + 1024 * (len(scores) + len(facts.get("occupants") or ()) + len(facts.get("alternatives") or ()))


def _safe_display_name(filename: str) -> str:
    base = re.split(r"[\\/]", filename)[-1]
    cleaned = re.sub(r"[^A-Za-z0-9._ -]", "_", base).strip(" .") or "upload.csv"
    return cleaned[:200]


def _export_name(upload_name: str, at: datetime) -> str:
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", upload_name.rsplit(".", 1)[0])[:80] or "batch"
    return f"{stem}_export_{at:%Y%m%d_%H%M%S_%f}.csv"



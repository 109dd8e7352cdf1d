"""Batch lookups: upload a CSV, run it as a job with stages and progress, keep the export.

The job answers every row with the same `LookupService.answer` as a single lookup, in one
process, with no HTTP call per row. Its state lives in the database, so an interrupted job
is run again from the start on restart; the export is stored together with the job's
'done' mark, so the history never shows half an export."""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid

import msgspec
from dataclasses import dataclass
from datetime import datetime
from collections.abc import Callable, Iterable
from typing import Any

from application.batch_limits import BatchAllowance, BatchUsage, RowReservation
from application.errors import NotFound
from application.lookup import BATCH, LookupService
from application.ports.accounts import AccessClaims
from application.ports.batch import (
    CLIENT,
    BatchJob,
    BatchStore,
    DetailedExportWriter,
    ExportFile,
    JobQueue,
    UploadedFile,
    WrittenFile,
)
from application.ports.clock import Clock
from application.ports.lookup import SearchStore, StoredSearch
from application.ports.webhooks import BatchEndedListener, NoBatchEndedListener
from application.search_quota import MonthlyCharge
from application.time_slices import SLICE_SECONDS, TimeSlices
from domain.address import building_key
from domain.batch_input import AddressRow, SubmittedAddress, iter_batch_csv, submitted_csv
from domain.export import export_header, export_rows, result_rows, rows_csv, to_csv
from domain.detailed_export import answer_record, input_record
from domain.lookup_result import LookupResult, not_located, with_location_note
from domain.occupancy import ParsedAddress

NO_DETAIL = (
    "This export has no detailed version: it was made from rows a client sent, or before detailed "
    "exports existed. Run the batch again for one."
)
ROW_NOT_READ = "This row could not be read as a street and a 5-digit ZIP code, so it was not located."
PROGRESS_EVERY_ROWS = 500
# Rows a caller sent to POST /api/export are stored as given, unchecked: the name says so, because
# the name is the one label that stays with the file once downloaded, mailed or shared.
CLIENT_SUPPLIED_NAME = "client-supplied"
EXPORT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.csv$")
API_BATCH_NAME = "api-batch.csv"  # the stored upload of a public API batch; its export is api-batch_export_...
log = logging.getLogger("perilscope.batch")


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
        detailed_writer: DetailedExportWriter,
        slice_seconds: float = SLICE_SECONDS,
        ended: BatchEndedListener | None = None,
    ) -> None:
        self._store = store
        self._ended = ended or NoBatchEndedListener()
        self._detailed_writer = detailed_writer
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

    async def upload(self, caller: AccessClaims, filename: str, content: bytes) -> UploadedFile:
        await self._lookup.quota.admit(caller)
        rows = await self._slices().collect(iter_batch_csv(filename, content))  # UploadError says what is wrong
        upload = UploadedFile(
            id=str(uuid.uuid4()),
            user_id=caller.user_id,
            name=_safe_display_name(filename),
            content=content.decode("utf-8-sig", errors="replace") if _is_utf8(content) else content.decode("latin-1"),
            row_count=len(rows),
            created_at=self._clock.now(),
        )
        if not await self._store.add_upload(upload, self._allowance.limits.storage_bytes):
            raise self._allowance.refuse_storage(await self._store.storage_used(caller.user_id), upload.size_bytes)
        return upload

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
        charge = await self._charge(caller, upload)
        try:
            job = BatchJob(
                id=str(uuid.uuid4()), user_id=caller.user_id, file_id=file_id, status="queued", stage="search",
                done=0, total=upload.row_count, created_at=self._clock.now(),
            )
            await self._store.add_job(job)
            await self._searches.add(
                StoredSearch(id=job.id, user_id=caller.user_id, kind=BATCH, address=upload.name,
                             occupant_count=0, result=None, created_at=job.created_at)
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
        in the user's history. The caller charges it (the public API's daily plan), not the web's
        monthly search quota or batch row allowance."""
        now = self._clock.now()
        content = submitted_csv(addresses)
        upload = UploadedFile(id=str(uuid.uuid4()), user_id=user_id, name=API_BATCH_NAME, content=content,
                              row_count=len(addresses), created_at=now)
        if not await self._store.add_upload(upload, self._allowance.limits.storage_bytes):
            raise self._allowance.refuse_storage(await self._store.storage_used(user_id), upload.size_bytes)
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
        job = await self._store.job(None, job_id)
        if job is None or job.status in ("done", "failed"):
            return
        upload = await self._store.upload(None, job.file_id)
        if upload is None:
            await self._store.fail(job_id, "The uploaded file is gone.", self._clock.now())
            await self._tell_ended(job_id)
            return
        await self._store.start(job_id, self._clock.now())
        slices = self._slices()
        try:
            name = upload.name if upload.name.lower().endswith(".csv") else "x.csv"
            rows = iter_batch_csv(name, upload.content.encode())  # read as the search goes
            answers, details, user_columns = await self._search(job_id, rows, slices)
            await self._store.progress(job_id, "matching", len(answers))
            export_text = export_header() + "".join(answers)
            await self._store.progress(job_id, "export", len(answers))
            now = self._clock.now()
            export = ExportFile(id=str(uuid.uuid4()), user_id=job.user_id, name=_export_name(upload.name, now),
                                content=export_text, exported_at=now, job_id=job_id,
                                detail="".join(details), detail_columns=user_columns)
            await self._store.finish(job_id, export, now)
        except Exception as error:  # noqa: BLE001 - the job records any failure; the server keeps going
            await self._store.fail(job_id, f"Batch processing failed: {type(error).__name__}", self._clock.now())
            await self._tell_ended(job_id)
            raise
        await self._tell_ended(job_id)

    async def _tell_ended(self, job_id: str) -> None:
        """The webhook of a job with a callback URL hears that it ended; its trouble never fails the job."""
        try:
            job = await self._store.job(None, job_id)
            if job is not None and job.callback_url:
                await self._ended.batch_ended(job, job.callback_url)
        except Exception:  # noqa: BLE001 - the job is finished and stays so
            log.exception("the batch-ended listener failed", extra={"job_id": job_id})

    async def _search(
        self, job_id: str, rows: Iterable[AddressRow], slices: TimeSlices
    ) -> tuple[list[str], list[str], tuple[str, ...]]:
        """Every row's lines of the SPEC export and its detailed JSON Lines record, in order, and
        the upload's own columns. Kept as text, 100,000 answers are 100,000 strings, not millions
        of objects for the garbage collector to walk (pauses of 100 ms+)."""
        lines, details = [], []
        user_columns: tuple[str, ...] = ()
        # Portfolios repeat addresses; an answer is computed once and shared by every repeat.
        answers: dict[str, tuple[str, bytes]] = {}
        last_report = time.monotonic()
        async for index, row in slices.each(enumerate(rows, start=1)):
            if index == 1:
                user_columns = tuple(name for name, _ in row.extra)
            answer = answers.get(row.one_line)
            if answer is None:
                result = await self._answer(row)
                answer = answers[row.one_line] = (
                    rows_csv(result_rows(result)), msgspec.json.encode(answer_record(result))
                )
            lines.append(answer[0])
            details.append(_record_line(row, answer[1]))
            if index % PROGRESS_EVERY_ROWS == 0 and time.monotonic() - last_report > 0.2:
                await self._store.progress(job_id, "search", index)
                last_report = time.monotonic()
        return lines, details, user_columns

    async def _answer(self, row: AddressRow) -> LookupResult:
        # The CSV already separates the parts, so the building key comes straight from them.
        key = building_key(row.street, row.zip)
        if key is None:
            return not_located(row.one_line, ROW_NOT_READ, self._clock.now().isoformat(), str(uuid.uuid4()))
        address = ParsedAddress(street=row.street, city=row.city or None, state=row.state or None,
                                zip5=key.zip5, unit=None, key=key)
        result = await self._lookup.answer(address, query=row.one_line)
        return with_location_note(result, row.zip_note) if row.zip_note else result

    # --- SPEC §7's three-call flow (search, match, export), kept for older clients ----------

    async def search_now(self, caller: AccessClaims, file_id: str) -> list[LookupResult]:
        """Answer every row of an upload in this request (one search against the quota)."""
        upload = await self._store.upload(caller.user_id, file_id)
        if upload is None:
            raise NotFound("No file has been uploaded for processing.")
        charge = await self._charge(caller, upload)
        slices = self._slices()
        try:
            rows = await slices.collect(iter_batch_csv("upload.csv", upload.content.encode()))
            results = [await self._answer(row) async for row in slices.each(rows)]
            await self._searches.add(
                StoredSearch(id=str(uuid.uuid4()), user_id=caller.user_id, kind=BATCH, address=upload.name,
                             occupant_count=sum(len(r.occupants) for r in results), result=None,
                             created_at=self._clock.now())
            )
        except BaseException:
            await self._refund(caller, charge)
            raise
        return results

    async def export_now(self, caller: AccessClaims, results: list[dict[str, Any]]) -> ExportFile:
        """Store results (as `search_now` returns them) as an export in the caller's history. The
        rows are the caller's, not checked against any search: the export is marked client-supplied."""
        now = self._clock.now()
        export = ExportFile(id=str(uuid.uuid4()), user_id=caller.user_id, name=_export_name(CLIENT_SUPPLIED_NAME, now),
                            content=to_csv(export_rows(results)), exported_at=now, source=CLIENT)
        await self._store.add_export(export)
        return export

    # --- exports ------------------------------------------------------------------------

    async def exports(self, caller: AccessClaims) -> list[ExportFile]:
        return await self._store.exports(caller.user_id)

    async def export(self, caller: AccessClaims, name: str) -> ExportFile:
        return await self._export_of(caller.user_id, name)

    async def _export_of(self, user_id: str, name: str) -> ExportFile:
        export = await self._store.export(user_id, name) if valid_export_name(name) else None
        if export is None:
            raise NotFound("Export not found")
        return export

    async def delete_export(self, caller: AccessClaims, name: str) -> None:
        if not (valid_export_name(name) and await self._store.delete_export(caller.user_id, name)):
            raise NotFound("Export not found")

    async def purge_uploads(self) -> int:
        """Retention: free the uploads no job needs any more (their exports stay)."""
        return await self._store.purge_uploads(self._clock.now() - self._allowance.limits.upload_retention)

    async def usage(self, caller: AccessClaims) -> BatchUsage:
        return await self._allowance.usage(caller)

    async def detailed_export(self, caller: AccessClaims, name: str, fmt: str) -> tuple[ExportFile, WrittenFile]:
        return await self.detailed_export_of(caller.user_id, name, fmt)

    async def detailed_export_of(self, user_id: str, name: str, fmt: str) -> tuple[ExportFile, WrittenFile]:
        """The user's detailed export as a file of that format, or NotFound saying why there is none."""
        export = await self._export_of(user_id, name)
        detail = await self._store.export_detail(user_id, export.name)
        if detail is None:
            raise NotFound(NO_DETAIL)
        stem = f"{export.name.rsplit('.', 1)[0]}_detailed"
        # Building a large XLSX takes seconds of CPU: off the event loop.
        written = await asyncio.to_thread(self._detailed_writer.write, detail, list(export.detail_columns), fmt, stem)
        return export, written

    def eta_seconds(self, job: BatchJob) -> int | None:
        return eta_seconds(job, self._clock.now())

    async def resume_unfinished(self) -> list[str]:
        """After a restart: queue every job that was queued or running."""
        job_ids = await self._store.unfinished_job_ids()
        for job_id in job_ids:
            await self.queue.enqueue(job_id)
        return job_ids


def _record_line(row: AddressRow, answer: bytes) -> str:
    """One JSON Lines record: the row's own part, then its answer's (shared by repeats), joined
    as JSON text so a repeated answer is encoded once."""
    own = msgspec.json.encode(input_record(row.line, row.extra))
    return (own[:-1] + b"," + answer[1:] + b"\n").decode()


def _is_utf8(content: bytes) -> bool:
    try:
        content.decode("utf-8-sig")
        return True
    except UnicodeDecodeError:
        return False


def _safe_display_name(filename: str) -> str:
    base = re.split(r"[\\/]", filename)[-1]
    cleaned = re.sub(r"[^A-Za-z0-9._ -]", "_", base).strip(" .") or "upload.csv"
    return cleaned[:200]


def _export_name(upload_name: str, at: datetime) -> str:
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", upload_name.rsplit(".", 1)[0])[:80] or "batch"
    return f"{stem}_export_{at:%Y%m%d_%H%M%S_%f}.csv"



"""Batches and their exports through the public API (SPEC §7: POST /search/batch, /batch-assessment,
/export/create, GET /export/status, /export/download).

A batch runs on the web upload's job machinery (BatchService.start_submitted) and its export lands
in the user's export history. Each address is one request of the daily plan: all of them are
charged in one atomic step before the job is stored, or none (429). Each is also one row of the
user's monthly batch row allowance, the same one uploads spend (BatchService.start_submitted).

Export ids: a batch's `export_id` is its job id and names the detailed export as CSV; `<job id>.xlsx`,
`<job id>.jsonl`, `<job id>.parquet` (and `<job id>.csv`) name the same export in another format, as
POST /export/create answers. The file is written when it is downloaded, from the rows the job stored."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from application.api_keys import require_scope
from application.api_plans import ApiPlans, DailyStanding
from application.batch import BatchService
from application.errors import Conflict, InvalidInput, NotFound, TooLarge
from application.pages import Page, PageRequest, page_of
from application.ports.batch import BatchJob, ExportFile, WrittenFile
from application.ports.clock import Clock
from application.ports.public_api import ApiCaller
from application.ports.results import DETAILED_FORMATS
from application.ports.webhooks import CallbackUrlCheck
from domain.api_access import ApiScope
from domain.batch_input import FIRST_ROW, MAX_OWN_FIELDS, SubmittedAddress, own_field_problem

FORMATS = DETAILED_FORMATS
FORMAT_ALIASES = {"json": "jsonl"}  # SPEC §5 names "json": the records are JSON Lines
DEFAULT_FORMAT = "csv"
# A rough rate for an estimate before the job starts: with the embedded data, a job of 2,000
# addresses ran at about 2,000 a second on SQLite (one core); half that allows for a busy server.
# Once the job runs, the estimate comes from its own progress.
ADDRESSES_PER_SECOND_ESTIMATE = 1000
_EXPORT_ID = re.compile(rf"^([0-9a-f-]{{36}})(?:\.({'|'.join(FORMATS)}))?$")
UNKNOWN_EXPORT = "No export has this id among yours: use the export_id that POST /api/v1/search/batch answered."
NO_ADDRESSES = "Send at least one address in `addresses`: [{address, city, state, zip}, ...]."
BOTH_IDS = "Send either export_id or job_id (they name the same batch), not two different ones."
NO_ID = "Send the export_id (or job_id) of a batch from POST /api/v1/search/batch."


def too_many_addresses(count: int, cap: int) -> TooLarge:
    return TooLarge(
        f"This batch has {count:,} addresses; a batch may hold at most {cap:,}. Split it into batches of "
        f"{cap:,} or fewer. Nothing was charged.",
        code="too_many_addresses", details={"limit": cap, "sent": count},
    )


def unknown_format(fmt: str) -> InvalidInput:
    return InvalidInput(f"Unknown export format {fmt[:20]!r}: send {', '.join(FORMATS[:-1])} or {FORMATS[-1]}.",
                        code="unsupported_format")


@dataclass(frozen=True, slots=True)
class RefusedAddress:
    """An address of the batch that cannot be located by the rules of an uploaded row: not looked
    up and not charged, and in the export in its place, not located, with this message."""

    address_index: int
    row: int  # its `row` in the export: address_index + 2
    message: str


@dataclass(frozen=True, slots=True)
class SubmittedBatch:
    job: BatchJob
    export_id: str
    eta_seconds: int
    standing: DailyStanding
    charged: int = 0  # requests of the daily plan: the addresses looked up
    refused: tuple[RefusedAddress, ...] = ()


@dataclass(frozen=True, slots=True)
class ExportState:
    export_id: str
    format: str
    job: BatchJob
    eta_seconds: int | None  # None once the job has ended
    standing: DailyStanding

    @property
    def ready(self) -> bool:
        return self.job.status == "done"


@dataclass(frozen=True, slots=True)
class ExportId:
    job_id: str
    format: str

    @classmethod
    def parse(cls, text: str) -> ExportId:
        match = _EXPORT_ID.fullmatch(text.strip().lower())
        if match is None:
            raise NotFound(UNKNOWN_EXPORT, code="export_not_found")
        return cls(match.group(1), match.group(2) or DEFAULT_FORMAT)

    def __str__(self) -> str:
        return self.job_id if self.format == DEFAULT_FORMAT else f"{self.job_id}.{self.format}"


def _check_own_fields(addresses: list[SubmittedAddress]) -> None:
    """A program's own fields become columns of its export: a name must make a column of its own."""
    for index, address in enumerate(addresses):
        if len(address.fields) > MAX_OWN_FIELDS:
            raise InvalidInput(f"Address {index} has {len(address.fields)} own fields; at most {MAX_OWN_FIELDS}.",
                               code="invalid_own_field", details={"address_index": index})
        for name, _ in address.fields:
            if (problem := own_field_problem(name)) is not None:
                raise InvalidInput(f"Address {index}: {problem} Nothing was charged.", code="invalid_own_field",
                                   details={"address_index": index, "field": name[:64]})


def export_format(fmt: str) -> str:
    chosen = FORMAT_ALIASES.get(fmt.strip().lower(), fmt.strip().lower())
    if chosen not in FORMATS:
        raise unknown_format(fmt)
    return chosen


def not_ready(job: BatchJob) -> Conflict:
    if job.status == "failed":
        return Conflict(
            f"This batch failed ({job.error or 'no reason recorded'}), so it has no export. Submit it again; "
            "its addresses were charged when it was accepted.",
            code="batch_failed",
        )
    return Conflict(
        f"The export is not complete: the batch is {job.status} ({job.done:,} of {job.total:,} addresses done). "
        "Poll GET /api/v1/export/status/{export_id} until its status is done, then download.",
        code="export_not_ready", details={"status": job.status, "done": job.done, "total": job.total},
    )


class ApiBatches:
    def __init__(
        self, batch: BatchService, plans: ApiPlans, callback_check: CallbackUrlCheck, clock: Clock, max_addresses: int
    ) -> None:
        self._batch = batch
        self._plans = plans
        self._callbacks = callback_check
        self._clock = clock
        self.max_addresses = max_addresses

    async def submit(
        self, caller: ApiCaller, addresses: list[SubmittedAddress], callback_url: str | None = None
    ) -> SubmittedBatch:
        """Accept a batch: checked (scope, size, callback URL) before anything is charged, then
        every address charged at once, then the job stored and queued."""
        require_scope(caller, ApiScope.BATCH)
        if not addresses:
            raise InvalidInput(NO_ADDRESSES, code="no_addresses")
        if len(addresses) > self.max_addresses:
            raise too_many_addresses(len(addresses), self.max_addresses)
        _check_own_fields(addresses)
        url = callback_url.strip() if callback_url else None
        if url:
            url = await self._callbacks.check(url)  # InvalidInput(callback_url_refused) says why
        refused = tuple(
            RefusedAddress(index, index + FIRST_ROW, problem)
            for index, address in enumerate(addresses)
            if (problem := address.problem) is not None
        )
        charged = len(addresses) - len(refused)
        charged_at = self._clock.now()
        standing = await self._plans.charge(caller.user_id, charged) if charged else await self._plans.standing(caller.user_id)
        try:
            job = await self._batch.start_submitted(caller.user_id, addresses, url or None)
        except BaseException:
            if charged:
                await self._plans.release(caller.user_id, charged_at, charged)
            raise
        export_id = str(ExportId(job.id, DEFAULT_FORMAT))
        return SubmittedBatch(job, export_id, self._first_estimate(job), standing, charged, refused)

    async def exports(self, caller: ApiCaller, page: PageRequest) -> tuple[Page[ExportFile], DailyStanding]:
        """The caller's exports of batches (the API's and the web uploads'), newest first, a page at a
        time; each is downloaded by its job id as export_id. Listing costs no request."""
        require_scope(caller, ApiScope.BATCH)
        fetched = await self._batch.batch_exports_of(caller.user_id, page.offset, page.fetch)
        return page_of(fetched, page), await self._plans.standing(caller.user_id)

    async def status(self, caller: ApiCaller, export_id: str) -> ExportState:
        require_scope(caller, ApiScope.BATCH)
        return await self._state(caller, ExportId.parse(export_id))

    async def create_export(self, caller: ApiCaller, export_id: str | None, job_id: str | None, fmt: str) -> ExportState:
        """An export of a finished batch in `fmt`: its id to poll and download (409 while the batch runs)."""
        require_scope(caller, ApiScope.BATCH)
        chosen = export_format(fmt)
        ids = {ExportId.parse(text).job_id for text in (export_id, job_id) if text is not None}
        if len(ids) != 1:
            raise InvalidInput(BOTH_IDS if ids else NO_ID, code="invalid_input")
        state = await self._state(caller, ExportId(ids.pop(), chosen))
        if not state.ready:
            raise not_ready(state.job)
        return state

    async def download(self, caller: ApiCaller, export_id: str) -> tuple[WrittenFile, DailyStanding]:
        """The export's file: 409 `export_not_ready` until the batch is done (SPEC §4)."""
        require_scope(caller, ApiScope.BATCH)
        state = await self._state(caller, ExportId.parse(export_id))
        if not state.ready or state.job.export_name is None:
            raise not_ready(state.job)
        _, written = await self._batch.detailed_export_of(caller.user_id, state.job.export_name, state.format)
        return written, state.standing

    async def _state(self, caller: ApiCaller, export: ExportId) -> ExportState:
        try:
            job = await self._batch.job_of(caller.user_id, export.job_id)
        except NotFound:  # another user's batch too: 404, never 403
            raise NotFound(UNKNOWN_EXPORT, code="export_not_found") from None
        return ExportState(str(export), export.format, job, self._eta(job), await self._plans.standing(caller.user_id))

    def _eta(self, job: BatchJob) -> int | None:
        if job.status in ("done", "failed"):
            return None
        return self._batch.eta_seconds(job) if job.status == "running" and job.done else self._first_estimate(job)

    @staticmethod
    def _first_estimate(job: BatchJob) -> int:
        return math.ceil((job.total - job.done) / ADDRESSES_PER_SECOND_ESTIMATE) + 1

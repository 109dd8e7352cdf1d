"""The public API's batches and exports (SPEC §7) under /api/v1: a batch is accepted at once (202)
and runs as a job; its export is polled by id and downloaded as CSV, XLSX, JSON Lines or Parquet.
The rules are application/api_batches.py's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example, OpenAPIFormat, OpenAPIMediaType, OpenAPIResponse, OpenAPIType, Operation, Schema
from litestar.params import Body, PathParameter, QueryParameter
from litestar.response import Stream

from application.api_batches import FORMATS as API_FORMATS
from application.api_keys import require_scope
from application.pages import MAX_OFFSET, PageRequest
from application.ports.downloads import DETAILED_FILES
from application.ports.public_api import ApiCaller
from domain.api_access import ApiScope
from domain.batch_input import SubmittedAddress
from entrypoints.http.dependencies import ApiBatchesService, ApiClient, IdempotencyService
from entrypoints.http.idempotency import IdempotencyKey, idempotent
from entrypoints.http.known_query import only_query
from entrypoints.http.openapi import JSON_BODY, public_api
from entrypoints.http.v1_schema import (
    BATCH_ACCEPTED_EXAMPLE,
    BATCH_EXAMPLE,
    EXPORT_STATUS_EXAMPLE,
    JOB_EXAMPLE_ID,
    OFFSET_DESCRIPTION,
    BatchAccepted,
    BatchRequest,
    ExportCreateRequest,
    ExportList,
    ExportStatus,
    RefusedAddressView,
    export_entry,
    export_status,
    rate_limit_headers,
)

TAGS = ["public API v1"]
EXPORT_MEDIA_TYPES = tuple(DETAILED_FILES[fmt][0] for fmt in API_FORMATS)
# 10,000 addresses are about 1 MB of JSON; the largest batch the settings allow, with the longest
# fields, stays within this (entrypoints/settings.py, API_BATCH_ADDRESSES_CEILING).
BATCH_BODY_LIMIT = 16 * 1024 * 1024
EXPORT_ID = Annotated[
    str,
    PathParameter(
        max_length=100,
        description="The export_id of the batch (its job id: CSV), or `<job id>.xlsx` / `.jsonl` from POST /export/create.",
        examples=[Example(value=JOB_EXAMPLE_ID)],
    ),
]


def may_batch(caller: ApiCaller) -> None:
    """The `batch` scope, checked before `idempotent` may replay a stored answer: an Idempotency-Key
    is the user's, so a retry can come from another of their keys, or a token, that lacks the scope."""
    require_scope(caller, ApiScope.BATCH)


def _documented(success: int, answer: type, example: dict[str, Any], *errors: int | tuple[int, ...]) -> dict[str, Any]:
    """public_api()'s keywords, with the success answer's schema and an example."""
    keywords = public_api(*errors)
    keywords["responses"] = {
        success: ResponseSpec(
            data_container=answer, description="Success", examples=[Example(summary="Example", value=example)],
            generate_examples=False,
        ),
        **keywords["responses"],
    }
    return keywords


BATCH_BODY = Body(
    description="Addresses to assess as one job (needs the `batch` scope); each is one request of your daily plan "
    "and one row of your monthly batch row allowance (the one uploads spend), all charged at once or none "
    "(429 says how many remain).",
    examples=[Example(summary="Two addresses", value=BATCH_EXAMPLE)],
)


@post(
    # SPEC §7 names both; one operation each in /schema.
    ["/api/v1/search/batch", "/api/v1/batch-assessment"],
    tags=TAGS,
    status_code=202,
    request_max_body_size=BATCH_BODY_LIMIT,
    summary="Submit a batch of addresses: 202 with the job and export ids; poll the status, then download",
    **_documented(202, BatchAccepted, BATCH_ACCEPTED_EXAMPLE, JSON_BODY, 409, 429, 503),
)
async def submit_batch(
    request: Request,
    api_batches: ApiBatchesService,
    idempotency: IdempotencyService,
    api_caller: ApiClient,
    data: Annotated[BatchRequest, BATCH_BODY],
    idempotency_key: IdempotencyKey = None,
) -> Response[BatchAccepted]:
    async def accept() -> Response[BatchAccepted]:
        addresses = [SubmittedAddress(a.address, a.city, a.state, a.zip, tuple(a.fields.items())) for a in data.addresses]
        submitted = await api_batches.submit(api_caller, addresses, data.callback_url)
        status_url = f"/api/v1/export/status/{submitted.export_id}"
        body = BatchAccepted(
            status="queued", job_id=submitted.job.id, export_id=submitted.export_id, addresses=len(addresses),
            requests_charged=submitted.charged,
            refused=[RefusedAddressView(r.address_index, r.row, r.message) for r in submitted.refused],
            eta_seconds=submitted.eta_seconds, status_url=status_url,
        )
        return Response(body, status_code=202, headers={"Location": status_url, **rate_limit_headers(submitted.standing)})

    may_batch(api_caller)
    return await idempotent(idempotency, request, api_caller.user_id, idempotency_key, BatchAccepted, accept)


EXPORTS_SHOWN = 100  # exports on a page of the listing, at most (and by default)


@get(
    "/api/v1/exports",
    tags=TAGS,
    summary="Your batch exports (the API's and the web uploads'), newest first, a page at a time (costs no request)",
    guards=[only_query("offset", "limit")],
    **public_api(400),
)
async def list_exports(
    api_batches: ApiBatchesService,
    api_caller: ApiClient,
    offset: Annotated[int, QueryParameter(ge=0, le=MAX_OFFSET, description=OFFSET_DESCRIPTION)] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=EXPORTS_SHOWN, description="Exports on the page, 1 to 100 (default 100).")] = EXPORTS_SHOWN,
) -> Response[ExportList]:
    page, standing = await api_batches.exports(api_caller, PageRequest(offset, limit))
    body = ExportList("success", [export_entry(e) for e in page.items], page.offset, page.next_offset)
    return Response(body, headers=rate_limit_headers(standing))


@get(
    "/api/v1/export/status/{export_id:str}",
    tags=TAGS,
    summary="A batch's export: queued, running, done or failed, its progress and, when done, where to download it",
    guards=[only_query()],
    **_documented(200, ExportStatus, EXPORT_STATUS_EXAMPLE, 400, 404),
)
async def get_export_status(
    api_batches: ApiBatchesService, api_caller: ApiClient, export_id: EXPORT_ID
) -> Response[ExportStatus]:
    state = await api_batches.status(api_caller, export_id)
    return Response(export_status(state), headers=rate_limit_headers(state.standing))


@post(
    "/api/v1/export/create",
    tags=TAGS,
    status_code=200,
    summary="An export of a finished batch in csv, xlsx or jsonl: its export_id to download (409 while the batch runs)",
    **_documented(200, ExportStatus, EXPORT_STATUS_EXAMPLE, JSON_BODY, 404, 409),
)
async def create_export(
    request: Request,
    api_batches: ApiBatchesService,
    idempotency: IdempotencyService,
    api_caller: ApiClient,
    data: Annotated[
        ExportCreateRequest,
        Body(examples=[Example(summary="XLSX of a batch", value={"export_id": JOB_EXAMPLE_ID, "format": "xlsx"})]),
    ],
    idempotency_key: IdempotencyKey = None,
) -> Response[ExportStatus]:
    async def create() -> Response[ExportStatus]:
        state = await api_batches.create_export(api_caller, data.export_id, data.job_id, data.format)
        return Response(export_status(state), status_code=200, headers=rate_limit_headers(state.standing))

    may_batch(api_caller)
    return await idempotent(idempotency, request, api_caller.user_id, idempotency_key, ExportStatus, create)


@dataclass
class ExportFileOperation(Operation):
    """The download's 200 in /schema: the file in the media type of its format. A route declares one
    media type, and a Stream's own (text/csv, XLSX, JSON Lines by the format) must not be overridden."""

    def __post_init__(self) -> None:
        ok = (self.responses or {}).get("200")
        if isinstance(ok, OpenAPIResponse):
            ok.description = "The export file, as an attachment: CSV, XLSX, JSON Lines or Parquet, by the export id's format."
            ok.content = {media_type: OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.BINARY))
                          for media_type in EXPORT_MEDIA_TYPES}


@get(
    "/api/v1/export/download/{export_id:str}",
    tags=TAGS,
    summary="Download a batch's export (409 export_not_ready until the batch is done)",
    guards=[only_query()],
    operation_class=ExportFileOperation,
    **public_api(400, 404, 409, 429),
)
async def download_export(api_batches: ApiBatchesService, api_caller: ApiClient, export_id: EXPORT_ID) -> Stream:
    written, standing = await api_batches.download(api_caller, export_id)
    return Stream(
        written.chunks,
        media_type=written.media_type,
        headers={"Content-Disposition": f'attachment; filename="{written.name}"', **rate_limit_headers(standing)},
    )


ROUTES = [submit_batch, list_exports, get_export_status, create_export, download_export]

"""Batch CSV processing over HTTP: upload, jobs with progress, the export history (owner-scoped)."""

from __future__ import annotations


from collections.abc import AsyncIterator
from typing import Any, Literal

import msgspec
from litestar import MediaType, Request, Response, delete, get, post
from litestar.params import FromPath, FromQuery, JSONBody
from litestar.response import Stream

from application.batch import BatchService
from application.ports.batch import BatchJob, ExportFile
from application.ports.chunks import JobChunks
from domain.lookup_result import LookupResult
from entrypoints.http.presenters import batch_row_body
from entrypoints.http.dependencies import Batch, Claims, requires_sign_in
from entrypoints.http.control_characters import MULTILINE_FIELDS
from entrypoints.http.openapi import CSV_MEDIA_TYPE, JSON_BODY, signed_in
from entrypoints.http.streamed_form import UploadOperation, streamed_file


class StartJobBody(msgspec.Struct):
    file_id: str


def job_fields(batch: BatchService, job: BatchJob) -> dict[str, Any]:
    return {
        "id": job.id,
        "status": job.status,
        "stage": job.stage,
        "done": job.done,
        "total": job.total,
        "eta_seconds": batch.eta_seconds(job),
        "export_filename": job.export_name,
        "error": job.error,
    }


def job_json(batch: BatchService, job: BatchJob) -> dict[str, Any]:
    return {"status": "success", "job": job_fields(batch, job)}


def chunk_fields(batch: BatchService, job: BatchJob, chunks: JobChunks | None) -> dict[str, Any]:
    """How a job runs: its chunks, speed, failed rows and how many workers are on it now (null
    while the job is not split into chunks yet: unknown, not zero). Workers are counted, never
    named: host names and process ids belong to /metrics and the logs, not to every user."""
    return {
        "chunks_total": chunks.total if chunks else None,
        "chunks_done": chunks.done if chunks else None,
        "chunks_failed": chunks.failed if chunks else None,
        "failed_rows": chunks.rows_failed if chunks else None,
        "rows_per_second": batch.rows_per_second(job, chunks),
        "worker_count": chunks.worker_count if chunks else None,
    }


def export_json(export: ExportFile) -> dict[str, Any]:
    return {
        "id": export.id,
        "file_id": export.id,
        "name": export.name,
        "path": f"exports/{export.name}",
        "exported_at": export.exported_at.isoformat(),
        "source": export.source,
    }


def export_headers(export: ExportFile) -> dict[str, str]:
    # Scripts that download an export learn where its rows came from without parsing the name.
    return {"X-Export-Source": export.source}


@post(
    "/api/upload-csv",
    tags=["batch"],
    status_code=200,
    # The handler reads the body itself, as it streams, within the setting's cap (streamed_form.py).
    request_max_body_size=None,
    guards=[requires_sign_in],
    opt={"body": "multipart"},
    operation_class=UploadOperation,
    **signed_in(400, 413, 429),
)
async def upload_csv(batch: Batch, claims: Claims, request: Request) -> dict[str, Any]:
    """Upload a CSV (multipart field `file`), streamed to the file store as it arrives."""
    upload_file = await streamed_file(request, "file", batch.caps.max_bytes)
    upload = await batch.upload(claims, upload_file.filename or "upload.csv", upload_file.content)
    return {"status": "success", "file_id": upload.id, "file_path": f"uploads/{upload.name}", "rows": upload.row_count}


@post(
    "/api/batch-jobs",
    tags=["batch"],
    status_code=202,
    summary="Start a batch job for an uploaded file",
    **signed_in(JSON_BODY, 404, 429),
)
async def start_job(batch: Batch, claims: Claims, data: JSONBody[StartJobBody]) -> dict[str, Any]:
    return job_json(batch, await batch.start(claims, data.file_id))


@get("/api/batch-jobs", tags=["batch"], summary="The caller's queued and running batch jobs, oldest first", **signed_in())
async def list_unfinished_jobs(batch: Batch, claims: Claims) -> dict[str, Any]:
    jobs = await batch.unfinished_jobs(claims)
    return {"status": "success", "jobs": [await _job_status(batch, claims, job) for job in jobs]}


@get(
    "/api/batch-jobs/{job_id:str}",
    tags=["batch"],
    summary="Status, stage and progress of a batch job",
    **signed_in(400, 404),
)
async def get_job(batch: Batch, claims: Claims, job_id: FromPath[str]) -> dict[str, Any]:
    return {"status": "success", "job": await _job_status(batch, claims, await batch.job(claims, job_id))}


async def _job_status(batch: BatchService, claims: Claims, job: BatchJob) -> dict[str, Any]:
    return {**job_fields(batch, job), **chunk_fields(batch, job, await batch.job_chunks(claims, job.id))}


@post(
    "/api/batch-jobs/{job_id:str}/rerun-failed",
    tags=["batch"],
    status_code=202,
    summary="Run the failed rows of a batch job again, as a new job",
    **signed_in(400, 404, 413, 429),
)
async def rerun_failed_rows(batch: Batch, claims: Claims, job_id: FromPath[str]) -> dict[str, Any]:
    return job_json(batch, await batch.rerun_failed(claims, job_id))


@get("/api/list-exported-files", tags=["batch"], **signed_in())
async def list_exported_files(batch: Batch, claims: Claims) -> dict[str, Any]:
    exports = await batch.exports(claims)
    return {"status": "success", "files": [export_json(e) for e in exports]}


@get(
    "/api/view-export/{filename:str}", tags=["batch"], summary="An export's CSV text", media_type=CSV_MEDIA_TYPE,
    **signed_in(400, 404),
)
async def view_export(batch: Batch, claims: Claims, filename: FromPath[str]) -> Stream:
    export, pieces = await batch.export_csv(claims, filename)
    return Stream(pieces, media_type=CSV_MEDIA_TYPE, headers=export_headers(export))


@get(
    "/api/download/{filename:str}", tags=["batch"], summary="An export as a CSV attachment", media_type=CSV_MEDIA_TYPE,
    **signed_in(400, 404),
)
async def download_export(batch: Batch, claims: Claims, filename: FromPath[str]) -> Stream:
    export, pieces = await batch.export_csv(claims, filename)
    return Stream(
        pieces,
        media_type=CSV_MEDIA_TYPE,
        headers={"Content-Disposition": f'attachment; filename="{export.name}"', **export_headers(export)},
    )


@get(
    "/api/exports/{filename:str}/detailed",
    tags=["batch"],
    summary="The detailed export: one row per input row with your columns, every score, rating and the location",
    **signed_in(400, 404, 429),
)
async def download_detailed_export(
    batch: Batch,
    claims: Claims,
    filename: FromPath[str],
    format: FromQuery[Literal["csv", "xlsx", "jsonl", "parquet"]] = "csv",  # noqa: A002 - the documented parameter name
) -> Stream:
    export, written = await batch.detailed_export(claims, filename, format)
    return Stream(
        written.chunks, media_type=written.media_type,
        headers={"Content-Disposition": f'attachment; filename="{written.name}"', **export_headers(export)},
    )


@delete(
    "/api/exports/{filename:str}", tags=["batch"], status_code=200, summary="Delete one of your exports",
    **signed_in(400, 404),
)
async def delete_export(batch: Batch, claims: Claims, filename: FromPath[str]) -> dict[str, Any]:
    await batch.delete_export(claims, filename)
    return {"status": "success"}


class LegacySearchBody(msgspec.Struct):
    file_id: str
    tables: list[str] = msgspec.field(default_factory=lambda: ["us_real_estate"])
    api_key: str | None = None  # accepted and ignored: the session token authenticates (DESIGN.md)


class LegacyDataBody(msgspec.Struct):
    data: list[dict[str, Any]]


STREAM_CHUNK_BYTES = 256 * 1024


@post(
    "/api/search",
    tags=["batch"],
    status_code=200,
    summary="SPEC §7: answer every row of an upload now",
    **signed_in(JSON_BODY, 404, 429, 503),
)
async def legacy_search(batch: Batch, claims: Claims, data: JSONBody[LegacySearchBody]) -> Stream:
    results = await batch.search_now(claims, data.file_id)
    return Stream(_success_with_data(results), media_type=MediaType.JSON)


async def _success_with_data(results: AsyncIterator[LookupResult]) -> AsyncIterator[bytes]:
    """{"status": "success", "data": results} in pieces, each row encoded as it is answered:
    100,000 answers are tens of MB of JSON, which neither the server's memory nor its event loop
    should hold at once."""
    chunk = bytearray(b'{"status":"success","data":[')
    separator = b""
    async for result in results:
        chunk += separator
        chunk += msgspec.json.encode(batch_row_body(result))
        separator = b","
        if len(chunk) >= STREAM_CHUNK_BYTES:
            yield bytes(chunk)
            chunk.clear()
    chunk += b"]}"
    yield bytes(chunk)


@post(
    "/api/match-yelp",
    tags=["batch"],
    status_code=200,
    summary="SPEC §7: occupants are matched during search",
    **signed_in(JSON_BODY, 429),
    opt={MULTILINE_FIELDS: ("data",)},  # result rows: occupant names and descriptions as found
)
async def legacy_match(batch: Batch, data: JSONBody[LegacyDataBody], claims: Claims) -> dict[str, Any]:
    return {"status": "success", "data": await batch.match_now(claims, data.data)}


@post(
    "/api/export",
    tags=["batch"],
    status_code=200,
    summary="SPEC §7: store results as an export",
    **signed_in(JSON_BODY, 429),
    opt={MULTILINE_FIELDS: ("data",)},
)
async def legacy_export(batch: Batch, claims: Claims, data: JSONBody[LegacyDataBody]) -> dict[str, Any]:
    if not data.data:
        return {"status": "error", "error": "No processed data available to export"}
    export = await batch.export_now(claims, data.data)
    return {"status": "success", "file_id": export.id, "file_path": f"exports/{export.name}",
            "exported_at": export.exported_at.isoformat(), "source": export.source}


ROUTES = [upload_csv, start_job, list_unfinished_jobs, get_job, rerun_failed_rows, list_exported_files, view_export, download_export,
          download_detailed_export, delete_export, legacy_search, legacy_match, legacy_export]

"""Batch CSV processing over HTTP: upload, jobs with progress, the export history (owner-scoped)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any

import msgspec
from litestar import MediaType, Request, Response, get, post
from litestar.datastructures import UploadFile
from litestar.params import FromPath, JSONBody, MultipartBody
from litestar.response import Stream

from application.batch import BatchJob, BatchService, eta_seconds
from application.time_slices import TimeSlices
from domain.batch_input import MAX_UPLOAD_BYTES
from entrypoints.http.dependencies import Claims, container_of, requires_sign_in

UPLOAD_BODY_LIMIT = MAX_UPLOAD_BYTES + 1024 * 1024  # the file plus multipart framing


def _batch(request: Request) -> BatchService:
    return container_of(request).batch()


class UploadForm(msgspec.Struct):
    file: UploadFile


class StartJobBody(msgspec.Struct):
    file_id: str


def job_json(request: Request, job: BatchJob) -> dict[str, Any]:
    return {
        "status": "success",
        "job": {
            "id": job.id,
            "status": job.status,
            "stage": job.stage,
            "done": job.done,
            "total": job.total,
            "eta_seconds": eta_seconds(job, container_of(request).clock().now()),
            "export_filename": job.export_name,
            "error": job.error,
        },
    }


@post(
    "/api/upload-csv",
    tags=["batch"],
    status_code=200,
    request_max_body_size=UPLOAD_BODY_LIMIT,
    guards=[requires_sign_in],
)
async def upload_csv(request: Request, claims: Claims, data: MultipartBody[UploadForm]) -> dict[str, Any]:
    content = await data.file.read()
    upload = await _batch(request).upload(claims, data.file.filename or "upload.csv", content)
    return {"status": "success", "file_id": upload.id, "file_path": f"uploads/{upload.name}", "rows": upload.row_count}


@post("/api/batch-jobs", tags=["batch"], status_code=202, summary="Start a batch job for an uploaded file")
async def start_job(request: Request, claims: Claims, data: JSONBody[StartJobBody]) -> dict[str, Any]:
    return job_json(request, await _batch(request).start(claims, data.file_id))


@get("/api/batch-jobs/{job_id:str}", tags=["batch"], summary="Status, stage and progress of a batch job")
async def get_job(request: Request, claims: Claims, job_id: FromPath[str]) -> dict[str, Any]:
    return job_json(request, await _batch(request).job(claims, job_id))


@get("/api/list-exported-files", tags=["batch"])
async def list_exported_files(request: Request, claims: Claims) -> dict[str, Any]:
    exports = await _batch(request).exports(claims)
    return {
        "status": "success",
        "files": [
            {"id": e.id, "file_id": e.id, "name": e.name, "path": f"exports/{e.name}", "exported_at": e.exported_at.isoformat()}
            for e in exports
        ],
    }


@get("/api/view-export/{filename:str}", tags=["batch"], summary="An export's CSV text")
async def view_export(request: Request, claims: Claims, filename: FromPath[str]) -> Response[str]:
    export = await _batch(request).export(claims, filename)
    return Response(export.content, media_type="text/csv; charset=utf-8")


@get("/api/download/{filename:str}", tags=["batch"], summary="An export as a CSV attachment")
async def download_export(request: Request, claims: Claims, filename: FromPath[str]) -> Response[str]:
    export = await _batch(request).export(claims, filename)
    return Response(
        export.content,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{export.name}"'},
    )


class LegacySearchBody(msgspec.Struct):
    file_id: str
    tables: list[str] = msgspec.field(default_factory=lambda: ["us_real_estate"])
    api_key: str | None = None  # accepted and ignored: the session token authenticates (DESIGN.md)


class LegacyDataBody(msgspec.Struct):
    data: list[dict[str, Any]]


STREAM_CHUNK_BYTES = 256 * 1024


@post("/api/search", tags=["batch"], status_code=200, summary="SPEC §7: answer every row of an upload now")
async def legacy_search(request: Request, claims: Claims, data: JSONBody[LegacySearchBody]) -> Stream:
    results = await _batch(request).search_now(claims, data.file_id)
    return Stream(_success_with_data(results), media_type=MediaType.JSON)


async def _success_with_data(results: Iterable[dict[str, Any]]) -> AsyncIterator[bytes]:
    """{"status": "success", "data": results} in pieces: 100,000 answers are tens of MB of JSON,
    which encoded (and compressed) in one go would hold the event loop for most of a second."""
    chunk = bytearray(b'{"status":"success","data":[')
    separator = b""
    async for result in TimeSlices().each(results):
        chunk += separator
        chunk += msgspec.json.encode(result)
        separator = b","
        if len(chunk) >= STREAM_CHUNK_BYTES:
            yield bytes(chunk)
            chunk.clear()
    chunk += b"]}"
    yield bytes(chunk)


@post("/api/match-yelp", tags=["batch"], status_code=200, summary="SPEC §7: occupants are matched during search")
async def legacy_match(data: JSONBody[LegacyDataBody], claims: Claims) -> dict[str, Any]:
    # The search step already matched occupants to each address, so the data comes back as is.
    return {"status": "success", "data": data.data}


@post("/api/export", tags=["batch"], status_code=200, summary="SPEC §7: store results as an export")
async def legacy_export(request: Request, claims: Claims, data: JSONBody[LegacyDataBody]) -> dict[str, Any]:
    if not data.data:
        return {"status": "error", "error": "No processed data available to export"}
    export = await _batch(request).export_now(claims, data.data)
    return {"status": "success", "file_id": export.id, "file_path": f"exports/{export.name}",
            "exported_at": export.exported_at.isoformat()}


ROUTES = [upload_csv, start_job, get_job, list_exported_files, view_export, download_export,
          legacy_search, legacy_match, legacy_export]

"""A file sent as multipart/form-data, read as it arrives.

Litestar's own form parsing keeps the whole file (in a spooled temporary file) before the handler
runs; a route that must never hold an upload whole reads `request.stream()` through the push
parser of `multipart`, the library Litestar itself parses forms with. The body's size limit is
the caller's (it follows a setting), checked on the announced Content-Length and on every byte."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from dataclasses import dataclass

from litestar import Request
from litestar.openapi.spec import OpenAPIFormat, OpenAPIMediaType, OpenAPIType, Operation, RequestBody, Schema
from multipart import MultipartError, MultipartSegment, PushMultipartParser, parse_options_header

from application.errors import InvalidInput
from domain.batch_input import file_too_large

# Boundaries, part headers and any small fields around the file: what a form adds to the file's bytes.
FORM_FRAMING_BYTES = 1024 * 1024
MAX_FORM_PARTS = 16


class FormInvalid(InvalidInput):
    code = "invalid_upload"  # as the CSV's own refusals (entrypoints/http/errors.py)


@dataclass(frozen=True, slots=True)
class StreamedFile:
    filename: str | None
    content: AsyncIterator[bytes]  # the file's bytes, as they arrive


async def streamed_file(request: Request, field: str, max_file_bytes: int | None) -> StreamedFile:
    """The form's file field `field`, its bytes still to come. A body larger than the file's cap
    plus the form's framing is refused (413) before it is read, or as soon as it passes the cap."""
    events = _events(request, max_file_bytes)
    async for event in events:
        if isinstance(event, MultipartSegment) and event.name == field:
            return StreamedFile(event.filename, _part_bytes(events))
    raise FormInvalid(f"The form has no field `{field}`: send the CSV file as the multipart/form-data field `{field}`.")


async def _part_bytes(events: AsyncIterator[MultipartSegment | bytes | None]) -> AsyncIterator[bytes]:
    async for event in events:
        if event is None:  # the end of the file's part
            break
        if event:
            yield bytes(event)
    async for _ in events:  # the rest of the form: a body cut short is an error, not a shorter file
        pass


async def _events(request: Request, max_file_bytes: int | None) -> AsyncIterator[MultipartSegment | bytes | None]:
    media_type, options = parse_options_header(request.headers.get("content-type", ""))
    boundary = options.get("boundary")
    if media_type != "multipart/form-data" or not boundary:
        raise FormInvalid("Send the file as multipart/form-data (Content-Type: multipart/form-data; boundary=...).")
    max_body = math.inf if max_file_bytes is None else max_file_bytes + FORM_FRAMING_BYTES
    if request.content_length is not None and request.content_length > max_body:
        raise file_too_large(max_file_bytes or 0)
    received = 0
    try:
        with PushMultipartParser(boundary, max_segment_count=MAX_FORM_PARTS) as parser:
            async for chunk in request.stream():
                received += len(chunk)
                if received > max_body:
                    raise file_too_large(max_file_bytes or 0)
                for event in parser.parse(chunk):  # an empty chunk (the stream's end) closes the parser
                    yield event
                if parser.closed:
                    break
    except MultipartError as error:
        raise FormInvalid(f"The upload is not a complete multipart/form-data body ({error}); send it again.") from error


@dataclass
class UploadOperation(Operation):
    """The route reads its form itself, so its request body is documented here."""

    def __post_init__(self) -> None:
        self.request_body = self.request_body or RequestBody(
            required=True,
            content={
                "multipart/form-data": OpenAPIMediaType(
                    schema=Schema(
                        title="UploadForm",
                        type=OpenAPIType.OBJECT,
                        properties={"file": Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.BINARY,
                                                   content_media_type="application/octet-stream")},
                        required=["file"],
                    )
                )
            },
        )

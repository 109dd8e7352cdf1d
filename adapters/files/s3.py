"""`FileStore` on an S3-compatible object store (AWS S3, MinIO, Ceph, R2...), for servers and
workers on many machines. boto3, the reference SDK, runs in worker threads: its multipart calls are
explicit, so a writer that fails aborts its upload and leaves nothing, and memory stays at one part
whatever the file's size. Credentials come from boto3's usual chain (AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, an instance role...)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from application.errors import InvalidInput, NotFound
from application.ports.files import StoredFile, checked_key, missing

DEFAULT_CHUNK_SIZE = 1024 * 1024
# S3 needs parts of at least 5 MiB but the last; 8 MiB parts reach 80 GB within the 10,000-part cap.
DEFAULT_PART_SIZE = 8 * 1024 * 1024
MIN_PART_SIZE = 5 * 1024 * 1024
NOT_FOUND_CODES = {"404", "NoSuchKey", "NotFound"}


def s3_client(endpoint_url: str | None, region: str | None, max_connections: int = 20) -> Any:  # noqa: ANN401
    return boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint_url or None,
        region_name=region or None,
        config=Config(max_pool_connections=max_connections, retries={"max_attempts": 5, "mode": "standard"}),
    )


class S3FileWriter:
    """Gathers chunks into parts; the first full part starts a multipart upload, a smaller file is
    one PUT when the writer closes."""

    def __init__(self, client: Any, bucket: str, key: str, part_size: int) -> None:  # noqa: ANN401
        self._client = client
        self._bucket = bucket
        self._key = key
        self._part_size = part_size
        self._buffer = bytearray()
        self._upload_id: str | None = None
        self._parts: list[dict[str, object]] = []

    async def write(self, chunk: bytes) -> None:
        self._buffer += chunk
        while len(self._buffer) >= self._part_size:
            with memoryview(self._buffer) as view:  # one copy of the part, not two
                part = bytes(view[: self._part_size])
            del self._buffer[: self._part_size]
            await self._upload_part(part)

    async def _start_upload(self) -> None:
        if self._upload_id is None:
            created = await asyncio.to_thread(
                self._client.create_multipart_upload, Bucket=self._bucket, Key=self._key
            )
            self._upload_id = created["UploadId"]

    async def _upload_part(self, part: bytes) -> None:
        await self._start_upload()
        number = len(self._parts) + 1
        answer = await asyncio.to_thread(
            self._client.upload_part,
            Bucket=self._bucket, Key=self._key, UploadId=self._upload_id, PartNumber=number, Body=part,
        )
        self._parts.append({"PartNumber": number, "ETag": answer["ETag"]})

    async def commit(self) -> None:
        if self._upload_id is None:
            await asyncio.to_thread(
                self._client.put_object, Bucket=self._bucket, Key=self._key, Body=bytes(self._buffer)
            )
            return
        if self._buffer:
            await self._upload_part(bytes(self._buffer))
            self._buffer.clear()
        await asyncio.to_thread(
            self._client.complete_multipart_upload,
            Bucket=self._bucket, Key=self._key, UploadId=self._upload_id, MultipartUpload={"Parts": self._parts},
        )

    async def abort(self) -> None:
        self._buffer.clear()
        if self._upload_id is not None:
            await asyncio.to_thread(
                self._client.abort_multipart_upload, Bucket=self._bucket, Key=self._key, UploadId=self._upload_id
            )


class S3FileStore:
    def __init__(self, client: Any, bucket: str, part_size: int = DEFAULT_PART_SIZE) -> None:  # noqa: ANN401
        if part_size < MIN_PART_SIZE:
            raise ValueError(f"S3 multipart parts must be at least {MIN_PART_SIZE} bytes, not {part_size}.")
        self._client = client
        self._bucket = bucket
        self._part_size = part_size

    @asynccontextmanager
    async def open_writer(self, key: str) -> AsyncIterator[S3FileWriter]:
        writer = S3FileWriter(self._client, self._bucket, checked_key(key), self._part_size)
        try:
            yield writer
            await writer.commit()
        except BaseException:
            await writer.abort()
            raise

    async def read(self, key: str, chunk_size: int = DEFAULT_CHUNK_SIZE) -> AsyncIterator[bytes]:
        try:
            answer = await asyncio.to_thread(self._client.get_object, Bucket=self._bucket, Key=checked_key(key))
        except ClientError as error:
            raise _not_found_or(error, key) from None
        body = answer["Body"]
        try:
            while chunk := await asyncio.to_thread(body.read, chunk_size):
                yield chunk
        finally:
            await asyncio.to_thread(body.close)

    async def read_range(self, key: str, start: int, length: int) -> bytes:
        if length <= 0:
            return b""
        try:
            answer = await asyncio.to_thread(self._client.get_object, Bucket=self._bucket, Key=checked_key(key),
                                             Range=f"bytes={start}-{start + length - 1}")
        except ClientError as error:
            raise _not_found_or(error, key) from None
        body = answer["Body"]
        try:
            return await asyncio.to_thread(body.read)
        finally:
            await asyncio.to_thread(body.close)

    async def size(self, key: str) -> int:
        try:
            head = await asyncio.to_thread(self._client.head_object, Bucket=self._bucket, Key=checked_key(key))
        except ClientError as error:
            raise _not_found_or(error, key) from None
        return int(head["ContentLength"])

    async def delete(self, key: str) -> None:
        # S3 answers a delete of a missing key with success: a retried delete is harmless.
        await asyncio.to_thread(self._client.delete_object, Bucket=self._bucket, Key=checked_key(key))

    async def exists(self, key: str) -> bool:
        try:
            await self.size(key)
        except NotFound:
            return False
        return True

    async def discard_unfinished(self, written_before: datetime) -> int:
        # A writer uploads a part at least every few seconds while it works; one whose last part
        # (or, with none, whose start) is older than `written_before` is dead.
        pages = iter(self._client.get_paginator("list_multipart_uploads").paginate(Bucket=self._bucket))
        discarded = 0
        while page := await asyncio.to_thread(next, pages, None):
            for upload in page.get("Uploads", []):
                if await self._last_written(upload) < written_before:
                    await asyncio.to_thread(self._client.abort_multipart_upload, Bucket=self._bucket,
                                            Key=upload["Key"], UploadId=upload["UploadId"])
                    discarded += 1
        return discarded

    async def _last_written(self, upload: dict[str, Any]) -> datetime:
        latest = upload["Initiated"]
        pages = iter(self._client.get_paginator("list_parts").paginate(
            Bucket=self._bucket, Key=upload["Key"], UploadId=upload["UploadId"]))
        while page := await asyncio.to_thread(next, pages, None):
            latest = max([latest, *(part["LastModified"] for part in page.get("Parts", []))])
        return latest

    async def list_files(self, prefix: str) -> AsyncIterator[StoredFile]:
        # A page of at most 1,000 keys at a time; an unfinished multipart upload is no object.
        pages = iter(self._client.get_paginator("list_objects_v2").paginate(Bucket=self._bucket, Prefix=prefix))
        while page := await asyncio.to_thread(next, pages, None):
            for item in page.get("Contents", []):
                if _our_key(item["Key"]):
                    yield StoredFile(item["Key"], int(item["Size"]), item["LastModified"])


def _our_key(key: str) -> bool:
    """A key this store could have written (another tool's objects in the bucket are left alone)."""
    try:
        checked_key(key)
    except InvalidInput:
        return False
    return True


def _not_found_or(error: ClientError, key: str) -> Exception:
    code = str(error.response.get("Error", {}).get("Code", ""))
    return missing(key) if code in NOT_FOUND_CODES else error

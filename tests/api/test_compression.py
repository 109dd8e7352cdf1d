"""Responses are compressed as the client asks (entrypoints/http/compression.py): zstd where it
is accepted, gzip where only gzip is, nothing otherwise; JSON and streamed downloads alike, and the
bytes decoded are the bytes sent uncompressed."""

from __future__ import annotations

import gzip
import io

import pytest
import zstandard
from httpx import AsyncClient

from entrypoints.container import Container
from entrypoints.http.compression import COMPRESSION, ZstdCompression
from tests.api.test_detailed_export import _finished_export
from tests.conftest import sign_up_and_log_in


async def raw(client: AsyncClient, url: str, accept: str, headers: dict[str, str] | None = None) -> tuple[str | None, bytes]:
    """The response's Content-Encoding and its body as sent, not decoded."""
    async with client.stream("GET", url, headers={**(headers or {}), "Accept-Encoding": accept}) as response:
        assert response.status_code == 200
        return response.headers.get("content-encoding"), b"".join([piece async for piece in response.aiter_raw()])


def decoded(encoding: str | None, body: bytes) -> bytes:
    if encoding == "zstd":
        frame = zstandard.ZstdDecompressor().decompressobj()
        content = frame.decompress(body)
        assert frame.eof  # the frame was ended, not cut off after its last block
        return content
    return gzip.decompress(body) if encoding == "gzip" else body


@pytest.mark.parametrize(("accept", "encoding"), [
    ("gzip, deflate, br, zstd", "zstd"),  # as Chromium asks
    ("gzip, deflate", "gzip"),
    ("identity", None),
])
async def test_json_is_compressed_as_the_client_accepts(client: AsyncClient, accept: str, encoding: str | None) -> None:
    plain = await raw(client, "/schema/openapi.json", "identity")
    sent = await raw(client, "/schema/openapi.json", accept)
    assert sent[0] == encoding
    assert decoded(*sent) == plain[1] and len(plain[1]) > 100_000
    if encoding:
        assert len(sent[1]) < len(plain[1]) / 4


async def test_a_streamed_download_decodes_to_the_stored_file(client: AsyncClient, container: Container) -> None:
    user = await sign_up_and_log_in(client, "squeezed@example.com")
    name = await _finished_export(client, container, user["headers"])
    for url in (f"/api/download/{name}", f"/api/exports/{name}/detailed?format=jsonl"):
        plain = await raw(client, url, "identity", user["headers"])
        for accept, encoding in (("zstd", "zstd"), ("gzip", "gzip")):
            sent = await raw(client, url, accept, user["headers"])
            assert sent[0] == encoding and decoded(*sent) == plain[1], (url, accept)


async def test_small_answers_are_sent_as_they_are(client: AsyncClient) -> None:
    encoding, body = await raw(client, "/health", "gzip, zstd")
    assert encoding is None and len(body) < 1024


def test_each_piece_of_a_stream_is_sent_as_it_is_written() -> None:
    """A download's pieces reach the client as they are read: each write leaves in the buffer all
    that was written so far, decodable, before the frame ends."""
    buffer, frame = io.BytesIO(), zstandard.ZstdDecompressor().decompressobj()
    compression = ZstdCompression(buffer, "zstd", COMPRESSION)
    received = b""
    for piece in (b"row,1\n" * 5000, b"row,2\n" * 5000):
        compression.write(piece)
        received += frame.decompress(buffer.getvalue())
        buffer.seek(0)
        buffer.truncate()
        assert received.endswith(piece) and not frame.eof
    compression.close()
    compression.close()  # the middleware may close again: the frame ends once
    assert frame.decompress(buffer.getvalue()) == b"" and frame.eof

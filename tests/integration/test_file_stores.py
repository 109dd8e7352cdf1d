"""One contract for every FileStore adapter: the local filesystem, and S3 against a real
S3-compatible server (moto's server mode) that this module starts in a process of its own."""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from adapters.files.local import PARTIAL_DIR, LocalFileStore
from adapters.files.s3 import DEFAULT_PART_SIZE, S3FileStore, s3_client
from application.errors import InvalidInput, NotFound
from application.ports.files import FileStore
from tests.processes import free_port, stop, wait_until

MOTO_SERVER = Path(sys.executable).parent / "moto_server"
MB = 1024 * 1024
BUCKET = "perilscope-test"
# The module's S3 server is started once, on one worker of a parallel run.
pytestmark = pytest.mark.xdist_group("s3_server")


@pytest.fixture(scope="module")
def s3_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with log.open("wb") as log_file:
        server = subprocess.Popen([MOTO_SERVER, "-H", "127.0.0.1", "-p", str(port)], stdout=log_file, stderr=log_file)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: httpx.get(endpoint, timeout=1).status_code < 500, server, log, "moto_server")
        yield endpoint
    finally:
        stop(server)


@pytest.fixture(scope="module")
def s3_credentials() -> Iterator[None]:
    # boto3 reads the standard AWS_* variables, as a deployment would set them.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_ACCESS_KEY_ID", "test-key")
        patch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
        patch.delenv("AWS_PROFILE", raising=False)
        yield


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> FileStore:
    if request.param == "local":
        return LocalFileStore(tmp_path / "files")
    endpoint = request.getfixturevalue("s3_endpoint")
    request.getfixturevalue("s3_credentials")
    client = s3_client(endpoint, "us-east-1")
    bucket = f"{BUCKET}-{uuid.uuid4().hex[:8]}"
    client.create_bucket(Bucket=bucket)
    return S3FileStore(client, bucket)


def generated(total: int, chunk: int = MB) -> Iterator[bytes]:
    """Distinct bytes made on the fly, so a misplaced or repeated chunk changes the digest."""
    block = 0
    while total > 0:
        size = min(chunk, total)
        seed = hashlib.sha256(str(block).encode()).digest()
        yield (seed * (size // len(seed) + 1))[:size]
        total -= size
        block += 1


async def read_all(store: FileStore, key: str, chunk_size: int = MB) -> tuple[bytes, int]:
    chunks = [chunk async for chunk in store.read(key, chunk_size)]
    assert all(len(chunk) <= chunk_size for chunk in chunks)
    return b"".join(chunks), len(chunks)


async def test_a_20_mb_file_is_written_and_read_back_in_chunks(store: FileStore) -> None:
    key = "exports/user-1/job-20mb.csv"
    expected = hashlib.sha256()
    async with store.open_writer(key) as writer:
        for chunk in generated(20 * MB, chunk=700_000):  # not a multiple of any part size
            expected.update(chunk)
            await writer.write(chunk)
    assert await store.exists(key)
    assert await store.size(key) == 20 * MB
    read = hashlib.sha256()
    chunks = 0
    async for chunk in store.read(key, chunk_size=MB):
        assert 0 < len(chunk) <= MB
        read.update(chunk)
        chunks += 1
    assert read.hexdigest() == expected.hexdigest()
    assert chunks >= 20


async def test_a_small_and_an_empty_file_round_trip(store: FileStore) -> None:
    async with store.open_writer("uploads/small.csv") as writer:
        await writer.write(b"Street Address,City\n")
        await writer.write(b"701 5th Ave,Seattle\n")
    async with store.open_writer("uploads/empty.csv"):
        pass
    assert await read_all(store, "uploads/small.csv") == (b"Street Address,City\n701 5th Ave,Seattle\n", 1)
    assert await store.size("uploads/empty.csv") == 0
    assert await read_all(store, "uploads/empty.csv") == (b"", 0)


async def test_a_range_is_read_without_the_rest_of_the_file(store: FileStore) -> None:
    content = bytes(range(256)) * 40
    async with store.open_writer("exports/u/index.rows") as writer:
        await writer.write(content)
    assert await store.read_range("exports/u/index.rows", 0, 8) == content[:8]
    assert await store.read_range("exports/u/index.rows", 5000, 300) == content[5000:5300]
    assert await store.read_range("exports/u/index.rows", len(content) - 8, 8) == content[-8:]
    assert await store.read_range("exports/u/index.rows", len(content) - 3, 50) == content[-3:], "fewer at the end"
    assert await store.read_range("exports/u/index.rows", 10, 0) == b""
    with pytest.raises(NotFound):
        await store.read_range("exports/u/missing.rows", 0, 8)


async def test_writing_again_replaces_the_whole_file(store: FileStore) -> None:
    async with store.open_writer("a/b.txt") as writer:
        await writer.write(b"first version, longer")
    async with store.open_writer("a/b.txt") as writer:
        await writer.write(b"second")
    assert (await read_all(store, "a/b.txt"))[0] == b"second"


async def test_delete_removes_the_file_and_deleting_twice_is_harmless(store: FileStore) -> None:
    async with store.open_writer("gone.bin") as writer:
        await writer.write(b"x")
    await store.delete("gone.bin")
    assert not await store.exists("gone.bin")
    await store.delete("gone.bin")


async def test_a_missing_key_is_not_found_everywhere(store: FileStore) -> None:
    with pytest.raises(NotFound) as raised:
        await store.size("nowhere/missing.csv")
    assert raised.value.code == "file_not_found" and "nowhere/missing.csv" in raised.value.message
    with pytest.raises(NotFound):
        await read_all(store, "nowhere/missing.csv")
    assert not await store.exists("nowhere/missing.csv")


@pytest.mark.parametrize("key", ["../escape.csv", "a/../../etc/passwd", "/etc/passwd", "", "a//b", "a/./b", ".hidden",
                                 "a\\b", "a/b\x00", "x" * 513, f"{PARTIAL_DIR}/x.part"])
async def test_keys_outside_the_store_are_refused_clearly(store: FileStore, key: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        async with store.open_writer(key) as writer:
            await writer.write(b"never")
    assert raised.value.code == "invalid_file_key"
    for attempt in (store.size(key), store.exists(key), store.delete(key), read_all(store, key)):
        with pytest.raises(InvalidInput):
            await attempt


async def test_a_writer_that_fails_leaves_nothing_and_keeps_the_old_file(store: FileStore) -> None:
    async with store.open_writer("kept.csv") as writer:
        await writer.write(b"old")
    for key in ("kept.csv", "never.csv"):
        with pytest.raises(RuntimeError, match="parse error"):
            async with store.open_writer(key) as writer:
                for chunk in generated(12 * MB):  # past one multipart part on S3
                    await writer.write(chunk)
                raise RuntimeError("parse error at row 40,000")
    assert (await read_all(store, "kept.csv"))[0] == b"old"
    assert not await store.exists("never.csv")
    await assert_no_partial_uploads(store)


async def assert_no_partial_uploads(store: FileStore) -> None:
    if isinstance(store, LocalFileStore):
        partial = store._root / PARTIAL_DIR  # noqa: SLF001 - the adapter's own scratch space
        assert not partial.exists() or not any(partial.iterdir())
    else:
        uploads = store._client.list_multipart_uploads(Bucket=store._bucket)  # noqa: SLF001
        assert uploads.get("Uploads", []) == []


async def test_concurrent_writers_to_different_keys_each_keep_their_own_bytes(store: FileStore) -> None:
    async def write(number: int) -> None:
        async with store.open_writer(f"chunks/job/{number:04d}.jsonl") as writer:
            for _ in range(50):
                await writer.write(f"{number},".encode() * 100)
                await asyncio.sleep(0)

    await asyncio.gather(*(write(number) for number in range(16)))
    for number in range(16):
        content, _ = await read_all(store, f"chunks/job/{number:04d}.jsonl")
        assert content == f"{number},".encode() * 5000


async def test_a_reader_stopped_early_releases_the_file(store: FileStore) -> None:
    async with store.open_writer("big.bin") as writer:
        for chunk in generated(3 * MB):
            await writer.write(chunk)
    reader = store.read("big.bin", chunk_size=MB)
    first = await anext(reader)
    await reader.aclose()
    assert len(first) == MB
    await store.delete("big.bin")
    assert not await store.exists("big.bin")


async def test_the_container_builds_the_store_the_settings_name(tmp_path: Path, s3_endpoint: str, s3_credentials: None) -> None:
    from entrypoints.container import build_container
    from tests.conftest import settings_for_tests

    local = build_container(settings_for_tests("sqlite+aiosqlite://", files_dir=tmp_path / "files")).file_store()
    assert isinstance(local, LocalFileStore)
    async with local.open_writer("uploads/one.csv") as writer:
        await writer.write(b"a,b\n")
    assert (tmp_path / "files" / "uploads" / "one.csv").read_bytes() == b"a,b\n"

    bucket = f"{BUCKET}-{uuid.uuid4().hex[:8]}"
    s3_client(s3_endpoint, "us-east-1").create_bucket(Bucket=bucket)
    remote = build_container(settings_for_tests(
        "sqlite+aiosqlite://", file_store="s3", s3_endpoint_url=s3_endpoint, s3_bucket=bucket, s3_region="us-east-1",
    )).file_store()
    assert isinstance(remote, S3FileStore)
    async with remote.open_writer("uploads/one.csv") as writer:
        await writer.write(b"a,b\n")
    assert (await read_all(remote, "uploads/one.csv"))[0] == b"a,b\n"


async def test_writing_and_reading_keep_memory_flat_whatever_the_size(store: FileStore) -> None:
    """64 MB through the store while at most a few parts (S3: 8 MiB each) are held at once
    (measured: 4 MB on the filesystem, 25 MB on S3)."""
    import tracemalloc

    tracemalloc.start()
    try:
        async with store.open_writer("exports/flat.bin") as writer:
            for chunk in generated(64 * MB):
                await writer.write(chunk)
        async for _ in store.read("exports/flat.bin", chunk_size=MB):
            pass
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * DEFAULT_PART_SIZE, f"peak {peak / MB:.1f} MB for a 64 MB file"


async def test_listing_gives_every_stored_file_under_a_prefix_page_by_page(store: FileStore) -> None:
    """More than one S3 page (1,000 keys); no file being written, nothing outside the prefix."""
    expected = {}
    for index in range(1005):
        key = f"jobs/j1/in/{index}.csv"
        async with store.open_writer(key) as writer:
            await writer.write(b"x" * (index % 7))
        expected[key] = index % 7
    for key in ("jobs/j10/out/0.a1.lines", "exports/u/e.csv", "uploads/u/a.csv"):
        async with store.open_writer(key) as writer:
            await writer.write(b"abc")
    async with store.open_writer("jobs/j1/in/writing.csv") as writer:
        await writer.write(b"half")
        listed = [stored async for stored in store.list_files("jobs/j1/")]
    assert {stored.key: stored.size for stored in listed} == expected and len(listed) == len(expected)
    assert all(stored.modified_at.tzinfo is not None for stored in listed)
    assert sorted([stored.key async for stored in store.list_files("jobs/")]) == sorted(
        [*expected, "jobs/j1/in/writing.csv", "jobs/j10/out/0.a1.lines"])
    assert [stored.key async for stored in store.list_files("exports/")] == ["exports/u/e.csv"]
    assert [stored async for stored in store.list_files("nothing/")] == []


async def test_a_write_whose_writer_died_is_discarded_once_nothing_was_written_to_it_for_long(store: FileStore) -> None:
    """A kill -9 mid-file ends no writer block: its partial file (S3: its multipart upload) stays
    until the sweep discards it."""
    killed = store.open_writer("exports/u/killed.csv")
    writer = await killed.__aenter__()
    for chunk in generated(DEFAULT_PART_SIZE + MB):  # S3: one part uploaded, a multipart upload under way
        await writer.write(chunk)
    async with store.open_writer("exports/u/whole.csv") as whole:
        await whole.write(b"kept")
    with pytest.raises(AssertionError):
        await assert_no_partial_uploads(store)  # the dead writer's bytes are there
    assert await store.discard_unfinished(datetime(2000, 1, 1, tzinfo=UTC)) == 0  # written to since: kept
    assert await store.discard_unfinished(datetime.now(UTC) + timedelta(days=1)) == 1
    await assert_no_partial_uploads(store)
    assert not await store.exists("exports/u/killed.csv")
    assert (await read_all(store, "exports/u/whole.csv"))[0] == b"kept"


async def write_file(store: FileStore, key: str, content: bytes) -> None:
    async with store.open_writer(key) as writer:
        await writer.write(content)


async def test_a_file_composed_before_the_dataset_reads_lists_and_deletes_as_one_until_converted(tmp_path: Path) -> None:
    """Before issue #27 an export's CSV and JSON Lines were composed of its chunks' files: on the
    local store a `<key>+parts` directory of links. Nothing composes now; `perilscope exports
    convert` reads such a file once (as one file) and deletes it."""
    store = LocalFileStore(tmp_path / "files")
    composed = tmp_path / "files" / "exports/u/e.jsonl+parts"
    composed.mkdir(parents=True)
    parts = [b'{"row": 2}\n', b"", b'{"row": 3}\n' * 1000]
    for place, content in enumerate(parts):
        (composed / str(place)).write_bytes(content)
    expected = b"".join(parts)
    assert (await read_all(store, "exports/u/e.jsonl"))[0] == expected
    assert await store.exists("exports/u/e.jsonl") and await store.size("exports/u/e.jsonl") == len(expected)
    assert await store.read_range("exports/u/e.jsonl", 5, 20) == expected[5:25]
    assert [(stored.key, stored.size) async for stored in store.list_files("exports/")] == [
        ("exports/u/e.jsonl", len(expected))], "one file, not its parts"
    await store.delete("exports/u/e.jsonl")
    assert not await store.exists("exports/u/e.jsonl") and not composed.exists()


async def test_a_composed_file_whose_maker_died_is_discarded(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path / "files")
    building = tmp_path / "files" / PARTIAL_DIR / "dead+parts"
    building.mkdir(parents=True)
    (building / "0").write_bytes(b"linked before the kill")
    assert await store.discard_unfinished(datetime(2000, 1, 1, tzinfo=UTC)) == 0
    assert await store.discard_unfinished(datetime.now(UTC) + timedelta(days=1)) == 1
    assert not building.exists()

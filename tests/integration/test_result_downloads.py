"""Every download of a batch export made from its columnar dataset (adapters/results/downloads.py),
against what the domain functions write for the same answers (domain/export.py, domain/
detailed_export.py): any rows, any chunking, every row once and in input order, in every format,
on the local store and on S3 (moto's server, as tests/integration/test_file_stores.py runs it)."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import msgspec
import openpyxl
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from adapters.files.local import LocalFileStore
from adapters.files.s3 import S3FileStore, s3_client
from adapters.results.dataset import ParquetCache
from adapters.results.downloads import (
    FORMATS,
    PLAIN_NUMBER,
    ResultDownloads,
    download_column_names,
    query_groups,
    unique_names,
)
from application.ports.files import FileStore
from application.ports.results import ExportManifest, ManifestChunk
from domain.detailed_export import (
    ANSWER_COLUMN_NAMES,
    _answer_record,
    answer_record,
    detail_columns,
    flat_values,
    input_record,
    user_column_names,
)
from domain.export import export_rows, safe_cell, to_csv
from domain.lookup_result import LookupResult
from tests.integration.test_file_stores import BUCKET, s3_credentials, s3_endpoint  # noqa: F401 - fixtures
from tests.support.result_dataset import Row, batch_rows, sample_answer, write_dataset

pytestmark = pytest.mark.xdist_group("s3_server")
USER_COLUMNS = ("Location Name", "=TIV")
CHUNKINGS = st.lists(st.integers(1, 7), min_size=1, max_size=4)


# --- what the domain writes for the same rows (today's exports) ------------------------------------


def expected_spec_csv(rows: Sequence[Row]) -> bytes:
    return to_csv(export_rows([result for _, _, result in rows])).encode()


def _record(line: int, user_columns: Sequence[str], values: Sequence[str | None], result: LookupResult) -> dict[str, Any]:
    """A detailed record as the batch stored it (neutralised), read back from its JSON."""
    record = input_record(line, list(zip(user_columns, values, strict=True))) | answer_record(result)
    return msgspec.json.decode(msgspec.json.encode(record))


def _cell(value: object) -> object:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else value


def expected_detailed_csv(user_columns: Sequence[str], rows: Sequence[Row]) -> bytes:
    """As the detailed CSV was written from the stored records before issue #27 (detailed_writers.as_csv)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(detail_columns(user_columns))
    header = buffer.getvalue().encode("utf-8-sig")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    names = user_column_names(user_columns)
    for line, values, result in rows:
        writer.writerow([_cell(v) for v in flat_values(_record(line, user_columns, values, result), names)])
    return header + buffer.getvalue().encode()


def expected_json_record(line: int, user_columns: Sequence[str], values: Sequence[str | None], result: LookupResult) -> dict[str, Any]:
    """Today's record with the user's values as they came: nothing neutralised."""
    record = {"row": line, "input": dict(zip(unique_names(user_columns), values, strict=True))} | _answer_record(result)
    return msgspec.json.decode(msgspec.json.encode(record))


# --- helpers ------------------------------------------------------------------------------------


async def collect(pieces: AsyncIterator[bytes]) -> bytes:
    return b"".join([piece async for piece in pieces])


def run(coroutine: Any) -> Any:  # noqa: ANN401
    return asyncio.run(coroutine)


@pytest.fixture(scope="module")
def s3_bucket(s3_endpoint: str, s3_credentials: None) -> S3FileStore:  # noqa: F811
    client = s3_client(s3_endpoint, "us-east-1")
    bucket = f"{BUCKET}-{uuid.uuid4().hex[:8]}"
    client.create_bucket(Bucket=bucket)
    return S3FileStore(client, bucket)


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> FileStore:
    if request.param == "local":
        return LocalFileStore(tmp_path_factory.mktemp("files"))
    return request.getfixturevalue("s3_bucket")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> ParquetCache:
    return ParquetCache(tmp_path_factory.mktemp("parquet-cache"))


async def written(files: FileStore, user_columns: Sequence[str], rows: Sequence[Row], chunk_sizes: Sequence[int]) -> ExportManifest:
    # Keys of their own for every example: the S3 bucket is the module's.
    job = uuid.uuid4().hex
    dataset = await write_dataset(files, user_columns, rows, chunk_sizes=chunk_sizes, job_id=job, export_id=job)
    return dataset.manifest


def downloaded(store: FileStore, cache: ParquetCache, rows: Sequence[Row], chunking: Sequence[int], fmt: str) -> bytes:
    """The rows written as a dataset in chunks of `chunking`, downloaded as `fmt` ('spec': SPEC's CSV)."""
    async def download() -> bytes:
        manifest = await written(store, USER_COLUMNS, rows, chunking)
        downloads = ResultDownloads(store, cache)
        return await collect(downloads.spec_csv(manifest) if fmt == "spec" else downloads.detailed(manifest, fmt))

    return run(download())


def xlsx_rows(content: bytes, sheet: str = "Rows") -> list[tuple[Any, ...]]:
    book = openpyxl.load_workbook(io.BytesIO(content), read_only=True)
    try:
        return [tuple(row) for row in book[sheet].iter_rows(values_only=True)]
    finally:
        book.close()


def xlsx_text(value: Any) -> Any:  # noqa: ANN401
    """Text as an XLSX holds it: XML has no control characters, so xlsxwriter writes them as _xHHHH_."""
    if not isinstance(value, str):
        return value
    return re.sub(r"[\x00-\x08\x0b-\x1f]", lambda found: f"_x{ord(found.group()):04X}_", value)


def _rows_with_columns(user_columns: int = 2, max_size: int = 12) -> st.SearchStrategy[list[Row]]:
    return batch_rows(user_columns=user_columns, max_size=max_size)


# Bounded: each example writes a dataset and runs DuckDB; a failure is reported as found, unshrunk.
EXAMPLES = settings(max_examples=12, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.data_too_large])


# --- SPEC CSV and detailed CSV: byte for byte ----------------------------------------------------


@EXAMPLES
@given(rows=_rows_with_columns(), chunking=CHUNKINGS)
def test_the_spec_csv_is_byte_for_byte_the_domains_for_any_rows_and_chunking(
        store: FileStore, cache: ParquetCache, rows: list[Row], chunking: list[int]) -> None:
    assert downloaded(store, cache, rows, chunking, "spec") == expected_spec_csv(rows)


@EXAMPLES
@given(rows=_rows_with_columns(), chunking=CHUNKINGS)
def test_the_detailed_csv_is_byte_for_byte_the_domains_for_any_rows_and_chunking(
        store: FileStore, cache: ParquetCache, rows: list[Row], chunking: list[int]) -> None:
    assert downloaded(store, cache, rows, chunking, "csv") == expected_detailed_csv(USER_COLUMNS, rows)


# --- JSON Lines ---------------------------------------------------------------------------------


@EXAMPLES
@given(rows=_rows_with_columns(), chunking=CHUNKINGS)
def test_json_lines_have_todays_records_with_the_users_values_as_they_came(
        store: FileStore, cache: ParquetCache, rows: list[Row], chunking: list[int]) -> None:
    got = downloaded(store, cache, rows, chunking, "jsonl").decode()
    lines = got.split("\n")[:-1]  # not splitlines(): a value may hold U+2028 or a \x1c, not escaped in JSON
    assert got == "" if not rows else got.endswith("\n")
    assert len(lines) == len(rows)
    for text, (line, values, result) in zip(lines, rows, strict=True):
        record = json.loads(text)
        wanted = expected_json_record(line, USER_COLUMNS, values, result)
        assert list(record) == list(wanted)  # the keys, in today's order
        assert record == wanted


def test_json_lines_keep_a_formula_like_value_and_number_repeated_column_names(tmp_path: Path) -> None:
    async def check() -> None:
        files = LocalFileStore(tmp_path)
        manifest = await written(files, ["Notes", "Notes", "@where"], [(2, ["-2+3", "=1+1", "x"], sample_answer())], [5])
        record = json.loads(await collect(ResultDownloads(files).detailed(manifest, "jsonl")))
        assert record["input"] == {"Notes": "-2+3", "Notes (2)": "=1+1", "@where": "x"}

    run(check())


# --- XLSX ---------------------------------------------------------------------------------------


@EXAMPLES
@given(rows=_rows_with_columns(max_size=8), chunking=CHUNKINGS)
def test_the_xlsx_has_every_row_once_in_order_numbers_as_numbers(
        store: FileStore, cache: ParquetCache, rows: list[Row], chunking: list[int]) -> None:
    content = downloaded(store, cache, rows, chunking, "xlsx")
    sheet = xlsx_rows(content)
    assert sheet[0] == tuple(detail_columns(USER_COLUMNS))
    # A column is numbers when every value in it is a plain number.
    numeric = {i for i in range(len(USER_COLUMNS))
               if all(not r[1][i] or PLAIN_NUMBER.fullmatch(r[1][i]) for r in rows)}
    assert len(sheet) == len(rows) + 1
    names = user_column_names(USER_COLUMNS)
    for cells, (line, values, result) in zip(sheet[1:], rows, strict=True):
        record = _record(line, USER_COLUMNS, values, result)
        flat = flat_values(record, names)
        for index, (cell, value) in enumerate(zip(cells, flat, strict=True)):
            if index < len(USER_COLUMNS):
                given_value = values[index]
                if given_value and index in numeric:
                    assert cell == float(given_value.replace(",", ""))
                else:
                    assert cell == xlsx_text(safe_cell(given_value) or None)
            elif isinstance(value, bool):
                assert cell == ("yes" if value else "no")
            elif isinstance(value, float):  # xlsxwriter writes 16 significant digits, as Excel keeps
                assert cell == pytest.approx(value, rel=1e-15, abs=1e-300), ANSWER_COLUMN_NAMES[index - len(USER_COLUMNS)]
            else:
                assert cell == xlsx_text(None if value in (None, "") else value), ANSWER_COLUMN_NAMES[index - len(USER_COLUMNS)]


def test_the_xlsx_header_is_frozen_with_filters_and_a_columns_sheet(tmp_path: Path) -> None:
    async def check() -> None:
        files = LocalFileStore(tmp_path)
        rows = [(2, ["1,250,000", "02134", "-2+3", "98104"], sample_answer()),
                (3, ["12.5", "12.5", "7", "98101"], sample_answer()), (4, ["", "1", "8", "98102"], sample_answer())]
        manifest = await written(files, ["TIV", "Code A", "Notes", "Zip"], rows, [5])
        content = await collect(ResultDownloads(files).detailed(manifest, "xlsx"))
        book = openpyxl.load_workbook(io.BytesIO(content))
        sheet = book["Rows"]
        assert sheet.freeze_panes == "A2"
        assert sheet.auto_filter.ref is not None and sheet.auto_filter.ref.startswith("A1:")
        assert [sheet["A2"].value, sheet["A3"].value, sheet["A4"].value] == [1250000, 12.5, None]
        assert sheet["A2"].data_type == "n"
        # A leading zero makes its column identifiers, kept as text; so does a formula-like value,
        # neutralised; a ZIP code stays text whatever its values.
        assert [sheet["B2"].value, sheet["B3"].value] == ["02134", "12.5"]
        assert [sheet["C2"].value, sheet["C3"].value] == ["'-2+3", "7"]
        assert [sheet["D2"].value, sheet["D3"].value] == ["98104", "98101"]
        about = [row[0] for row in book["Columns"].iter_rows(values_only=True)]
        assert about[:5] == ["Column", "TIV", "Code A", "Notes", "Zip"] and "Sources" in about

    run(check())


# --- Parquet ------------------------------------------------------------------------------------


@EXAMPLES
@given(rows=_rows_with_columns(), chunking=CHUNKINGS)
def test_the_parquet_download_has_the_detailed_columns_typed_every_row_once_in_order(
        store: FileStore, cache: ParquetCache, rows: list[Row], chunking: list[int]) -> None:
    content = downloaded(store, cache, rows, chunking, "parquet")
    table = pq.read_table(io.BytesIO(content))
    assert table.column_names == download_column_names(USER_COLUMNS)
    assert str(table.schema.field("lat").type) == "double"
    assert str(table.schema.field("low_confidence").type) == "bool"
    assert str(table.schema.field("row").type) == "int64"
    got = table.to_pylist()
    assert [r["row"] for r in got] == [line for line, _, _ in rows]
    for record, (line, values, result) in zip(got, rows, strict=True):
        wanted = expected_json_record(line, USER_COLUMNS, values, result)
        assert [record[name] for name in USER_COLUMNS] == list(values)  # as they came
        for name in ANSWER_COLUMN_NAMES:
            if name == "low_confidence":
                assert record[name] is result.location.low_confidence
            else:
                assert record[name] == wanted[name], name


# --- pieces -------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_an_export_of_no_rows_downloads_as_its_header_alone(tmp_path: Path, fmt: str) -> None:
    async def check() -> bytes:
        files = LocalFileStore(tmp_path)
        manifest = await written(files, USER_COLUMNS, [], [5])
        return await collect(ResultDownloads(files).detailed(manifest, fmt))

    content = run(check())
    if fmt == "csv":
        assert content == expected_detailed_csv(USER_COLUMNS, [])
    elif fmt == "jsonl":
        assert content == b""
    elif fmt == "xlsx":
        assert xlsx_rows(content) == [tuple(detail_columns(USER_COLUMNS))]
    else:
        assert pq.read_table(io.BytesIO(content)).num_rows == 0


def test_queries_take_the_first_chunk_alone_then_groups_of_rows() -> None:
    chunks = [ManifestChunk(index=i, first_row=i * 10, rows=10, facts=f"{i}.f", scores=f"{i}.s") for i in range(7)]
    manifest = ExportManifest(user_columns=[], rows=70, chunks=chunks)
    groups = query_groups(manifest, rows_per_query=25)
    assert groups[0] == slice(0, 1)
    covered: list[int] = [i for group in groups for i in range(*group.indices(7))]
    assert covered == list(range(7))  # every chunk once, in order


def test_a_download_stopped_early_releases_its_query(tmp_path: Path) -> None:
    async def check() -> None:
        files = LocalFileStore(tmp_path)
        rows = [(i + 2, ["a", "1"], sample_answer()) for i in range(50)]
        manifest = await written(files, USER_COLUMNS, rows, [10])
        pieces = ResultDownloads(files).detailed(manifest, "csv")
        await anext(pieces)
        await anext(pieces)
        await pieces.aclose()  # a client gone: the cursor is closed, a new download runs
        assert (await collect(ResultDownloads(files).detailed(manifest, "csv"))).count(b"\r\n") >= 51

    run(check())

"""`perilscope exports convert` (adapters/results/legacy_exports.py): an export made before issue
#27, its detailed records written as today's domain/detailed_export.input_record + answer_record
make them and its SPEC CSV as domain/export.py writes it, becomes a dataset whose rows read back
equal to the dataset the new chunk writer makes of the same answers; its old files are gone and
its owner's storage counts the new ones; a second run changes nothing."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert, select

from adapters.db.account_tables import UserRow
from adapters.db.batch_tables import ExportFileRow
from adapters.db.engine import create_engine, create_session_factory
from adapters.db.writer import SqlWriter
from adapters.files.local import LocalFileStore
from adapters.results.dataset import ExportDataset
from adapters.results.legacy_exports import LegacyExportConverter, facts_of_record, score_rows_of_record, unneutralised
from application.ports.files import FileStore
from application.ports.results import read_manifest
from domain.detailed_export import answer_record, input_record, neutralised, user_column_names
from domain.export import export_header, result_rows, rows_csv, safe_cell
from domain.lookup_result import LookupResult
from domain.row_facts import ANSWER_FACT_FIELDS, answer_facts, answer_record_of, input_name, score_rows, spec_rows_of
from entrypoints.migrate import upgrade_to_head
from tests.integration.test_file_stores import s3_credentials, s3_endpoint, store
from tests.support.result_dataset import Row, answers, batch_rows, write_dataset

# The local store and S3 against moto's server: the FileStore contract's own fixtures.
pytestmark = pytest.mark.xdist_group("s3_server")
__all__ = ["s3_credentials", "s3_endpoint", "store"]

USER_COLUMNS = ["policy", "=TIV"]  # a header a spreadsheet would run: neutralised in the old records


class World:
    """A migrated SQLite database (a copy of `template`) and a local file store."""

    def __init__(self, directory: Path, template: Path, files: FileStore | None = None) -> None:
        shutil.copyfile(template, directory / "convert.db")
        self.url = f"sqlite+aiosqlite:///{directory / 'convert.db'}"
        self.engine = create_engine(self.url)
        self.sessions = create_session_factory(self.engine)
        self.writer = SqlWriter(self.sessions)
        self.root = directory / "files"
        self.files = files or LocalFileStore(self.root)

    def converter(self, chunk_rows: int = 3) -> LegacyExportConverter:
        return LegacyExportConverter(self.sessions, self.writer, self.files, chunk_rows=chunk_rows)

    async def user(self) -> str:
        user_id = str(uuid.uuid4())
        await self.writer.execute(insert(UserRow).values(id=user_id, email=f"{user_id}@example.com",
                                                         created_at=datetime.now(UTC)))
        return user_id

    async def write(self, key: str, content: bytes) -> None:
        async with self.files.open_writer(key) as writer:
            await writer.write(content)

    async def row(self, export_id: str) -> Any:  # noqa: ANN401
        async with self.sessions() as session:
            return (await session.execute(
                select(ExportFileRow.csv_key, ExportFileRow.detail_key, ExportFileRow.summary_key,
                       ExportFileRow.rows_index_key, ExportFileRow.manifest_key, ExportFileRow.size_bytes,
                       ExportFileRow.content, ExportFileRow.detail, ExportFileRow.detail_columns)
                .where(ExportFileRow.id == export_id))).one()

    def stored(self) -> dict[str, tuple[int, int]]:
        """Every file of the store: its size and when it was written."""
        return {str(path.relative_to(self.root)): (path.stat().st_size, path.stat().st_mtime_ns)
                for path in self.root.rglob("*") if path.is_file() and not path.name.startswith(".")}


def old_export_texts(rows: Sequence[Row], user_columns: Sequence[str]) -> tuple[str, str]:
    """The SPEC CSV and the detailed JSON Lines of these rows, as the batch wrote them before #27."""
    csv_text = export_header() + "".join(rows_csv(result_rows(result)) for _, _, result in rows)
    records = "".join(
        msgspec.json.encode(input_record(line, list(zip(user_columns, values))) | answer_record(result)).decode() + "\n"
        for line, values, result in rows)
    return csv_text, records


async def add_old_export(world: World, user_id: str, rows: Sequence[Row], in_files: bool = True) -> str:
    export_id = str(uuid.uuid4())
    csv_text, records = old_export_texts(rows, USER_COLUMNS)
    values: dict[str, Any] = dict(
        id=export_id, user_id=user_id, name=f"batch_{export_id[:8]}.csv", source="computed",
        exported_at=datetime.now(UTC), detail_columns=json.dumps(user_column_names(USER_COLUMNS)))
    if in_files:
        stem = f"exports/{user_id}/{export_id}"
        keys = dict(csv_key=f"{stem}.csv", detail_key=f"{stem}.jsonl", summary_key=f"{stem}.summary",
                    rows_index_key=f"{stem}.rows")
        contents = (csv_text.encode(), records.encode(), b"\x81tally", b"index")
        for key, content in zip(keys.values(), contents):
            await world.write(key, content)
        values |= keys | {"size_bytes": sum(len(content) for content in contents)}
    else:  # as migration 0016 left an export of before export files
        values |= {"content": csv_text, "detail": records, "size_bytes": 0}
    await world.writer.execute(insert(ExportFileRow).values(**values))
    return export_id


def _plain(value: Any) -> Any:  # noqa: ANN401
    """A value as every spreadsheet format shows it: the old records kept text neutralised, the
    dataset keeps it as it came; the two agree once neutralised."""
    if isinstance(value, str):
        return safe_cell(value)
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _spec_occupants(facts: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The occupants as SPEC §3's CSV shows them: all the old export kept of them."""
    return [(o["name"] or "NA", o["vicinity"] or "NA", ",".join(o["types"] or []) or "NA",
             o["lat"] if o["lat"] is not None else facts["lat"], o["lng"] if o["lng"] is not None else facts["lng"],
             o["business_status"] or "NA", o["naics_code"] or "N/A") for o in facts["occupants"]]


def read_back(dataset: ExportDataset) -> tuple[list[tuple], list[dict[str, Any]], list[tuple]]:
    """The dataset's detailed rows, its facts rows (occupants as the CSV shows them) and its scores."""
    with dataset.cursor() as cursor:
        detailed = cursor.execute("SELECT * FROM detailed").fetchall()
        relation = cursor.execute("SELECT * FROM facts ORDER BY row")
        names = [column[0] for column in relation.description]
        facts = [dict(zip(names, row)) for row in relation.fetchall()]
        scores = cursor.execute("SELECT * FROM scores ORDER BY level, geoid, nri_version").fetchall()
    for row in facts:
        row["occupants"] = _spec_occupants(row)
    return _plain(detailed), _plain(facts), _plain(scores)


def old_texts_again(dataset: ExportDataset) -> tuple[str, list[dict[str, Any]]]:
    """The SPEC CSV and the detailed records made again from the dataset, as the old export had them."""
    with dataset.cursor() as cursor:
        relation = cursor.execute("SELECT * FROM facts ORDER BY row")
        names = [column[0] for column in relation.description]
        facts = [dict(zip(names, row)) for row in relation.fetchall()]
        relation = cursor.execute("SELECT * FROM scores")
        names = [column[0] for column in relation.description]
        scores = {(row["level"], row["geoid"], row["nri_version"]): row
                  for row in (dict(zip(names, values)) for values in relation.fetchall())}
    csv_text, records = export_header(), []
    for row in facts:
        county = scores.get(("county", row["county_fips"], row["nri_version"]))
        tract = scores.get(("tract", row["tract_geoid"], row["tract_nri_version"]))
        csv_text += rows_csv(spec_rows_of(row, county))
        inputs = {name: row[input_name(index)] for index, name in enumerate(dataset.user_columns)}
        records.append(input_record(row["row"], inputs.items()) | neutralised(answer_record_of(row, county, tract)))
    return csv_text, records


async def assert_converted_equals_direct(world: World, user_id: str, export_id: str, rows: Sequence[Row]) -> None:
    row = await world.row(export_id)
    assert row.manifest_key == f"exports/{user_id}/{export_id}.manifest.json"
    assert (row.csv_key, row.detail_key, row.summary_key, row.rows_index_key, row.content, row.detail) == (None,) * 6
    manifest = await read_manifest(world.files, row.manifest_key)
    assert manifest.user_columns == USER_COLUMNS and manifest.rows == len(rows)
    assert json.loads(row.detail_columns) == USER_COLUMNS  # as uploaded, as a new export's
    assert [chunk.first_row for chunk in manifest.chunks] == list(range(0, max(len(rows), 1), 3))
    # The owner's storage counts what is stored now.
    assert row.size_bytes == sum([await world.files.size(key) for key in (row.manifest_key, *manifest.keys)])
    assert {key for key in world.stored() if key.startswith(f"exports/{user_id}/")} == {row.manifest_key, *manifest.keys}
    direct = await write_dataset(world.files, USER_COLUMNS, rows, chunk_rows=7, user_id=user_id,
                                 export_id=f"direct{export_id}", job_id=f"direct{export_id}")
    converted = await ExportDataset.open(world.files, manifest)
    # What the old export's downloads gave, made again from the dataset: the same.
    csv_text, records = old_export_texts(rows, USER_COLUMNS)
    again_csv, again_records = old_texts_again(converted)
    assert again_csv == csv_text, "the SPEC CSV differs"
    assert again_records == [json.loads(line) for line in records.split("\n") if line], "the JSON Lines records differ"
    converted_back = read_back(converted)
    direct_back = read_back(await ExportDataset.open(world.files, direct.manifest))
    assert converted_back[0] == direct_back[0], "the detailed rows differ"
    assert converted_back[1] == direct_back[1], "the facts differ"
    assert converted_back[2] == direct_back[2], "the scores differ"


def run(coroutine):  # noqa: ANN001, ANN201
    return asyncio.run(coroutine)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database migrated once, copied by each test (and each example)."""
    path = tmp_path_factory.mktemp("template") / "template.db"
    upgrade_to_head(f"sqlite+aiosqlite:///{path}")
    return path


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    return tmp_path


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=batch_rows(user_columns=len(USER_COLUMNS), max_size=8), in_files=st.booleans())
def test_an_old_export_converts_to_a_dataset_whose_rows_read_back_equal(scratch: Path, template: Path,
                                                                         rows: list[Row], in_files: bool) -> None:
    async def scenario(world: World) -> None:
        try:
            user_id = await world.user()
            export_id = await add_old_export(world, user_id, rows, in_files=in_files)
            old_keys = [key for key in world.stored() if key.startswith("exports/")]

            report = await world.converter().convert_all()

            assert (report.converted, report.rows, report.occupants_not_matched) == (1, len(rows), 0)
            for key in old_keys:
                assert not await world.files.exists(key), f"{key} is still stored"
            before = (world.stored(), await world.row(export_id))
            again = await world.converter().convert_all()
            assert (again.converted, again.csv_moved) == (0, 0)
            assert (world.stored(), await world.row(export_id)) == before, "a second run changed something"
            await assert_converted_equals_direct(world, user_id, export_id, rows)
        finally:
            await world.engine.dispose()

    with tempfile.TemporaryDirectory(dir=scratch) as directory:
        run(scenario(World(Path(directory), template)))


@settings(max_examples=30, deadline=None)
@given(answer=answers())
def test_a_record_gives_back_every_fact_and_score_row_of_its_answer(answer: LookupResult) -> None:
    """Field by field (the occupants aside: the records never had them, the CSV gives them)."""
    record = unneutralised(json.loads(msgspec.json.encode(input_record(2, []) | answer_record(answer))))
    facts = facts_of_record(record, answer_facts(answer)["occupants"])
    assert tuple(facts) == ANSWER_FACT_FIELDS, "domain/row_facts.py's fields changed: read them in legacy_exports.py"
    assert _plain(facts) == _plain(answer_facts(answer))
    assert _plain(score_rows_of_record(record)) == _plain(score_rows(answer))


def test_exports_a_client_sent_are_left_and_a_csv_kept_in_the_database_moves_to_a_file(scratch: Path,
                                                                                         template: Path) -> None:
    world = World(scratch, template)

    async def scenario() -> None:
        try:
            user_id = await world.user()
            client_id, old_csv_id = str(uuid.uuid4()), str(uuid.uuid4())
            client_key = f"exports/{user_id}/{client_id}.csv"
            await world.write(client_key, b"address,name\r\n1 Main St,NA\r\n")
            now = datetime.now(UTC)
            await world.writer.execute(insert(ExportFileRow).values(
                id=client_id, user_id=user_id, name="client.csv", source="client", csv_key=client_key, size_bytes=29,
                exported_at=now))
            await world.writer.execute(insert(ExportFileRow).values(
                id=old_csv_id, user_id=user_id, name="old.csv", source="computed", content="address\r\n2 Elm St\r\n",
                size_bytes=0, exported_at=now))
            client_before = await world.row(client_id)

            report = await world.converter().convert_all()

            assert (report.converted, report.csv_moved) == (0, 1)
            assert await world.row(client_id) == client_before
            moved = await world.row(old_csv_id)
            assert moved.content is None and moved.manifest_key is None and moved.size_bytes == 19
            assert b"".join([piece async for piece in world.files.read(moved.csv_key)]) == b"address\r\n2 Elm St\r\n"
            again = await world.converter().convert_all()
            assert (again.converted, again.csv_moved) == (0, 0)
        finally:
            await world.engine.dispose()

    run(scenario())


# One example of a few rows, not shrunk: the tests below are about what happens to an export, not
# about which answers it holds (the first test is).
A_FEW_ROWS = batch_rows(user_columns=len(USER_COLUMNS), max_size=8)
ONE_EXAMPLE = settings(max_examples=1, phases=[Phase.generate], deadline=None,
                       suppress_health_check=[HealthCheck.function_scoped_fixture])


@ONE_EXAMPLE
@given(rows=A_FEW_ROWS)
def test_the_command_converts_and_says_so_then_finds_nothing(scratch: Path, template: Path,
                                                            monkeypatch: pytest.MonkeyPatch, rows: list[Row]) -> None:
    from entrypoints.cli import main

    assume(len(rows) >= 4)
    world = World(scratch, template)
    monkeypatch.setenv("DATABASE_URL", world.url)
    monkeypatch.setenv("PERILSCOPE_ENV", "test")
    monkeypatch.setenv("PERILSCOPE_FILES_DIR", str(world.root))
    monkeypatch.setenv("PERILSCOPE_VAR_DIR", str(scratch / "var"))

    async def arrange() -> None:
        try:
            await add_old_export(world, await world.user(), rows)
        finally:
            await world.engine.dispose()

    run(arrange())
    first = CliRunner().invoke(main, ["exports", "convert"])
    assert first.exit_code == 0, first.output
    assert f"converted 1 export(s), {len(rows)} rows" in first.output
    second = CliRunner().invoke(main, ["exports", "convert"])
    assert second.exit_code == 0 and "no export to convert" in second.output


class _DiesAtTheManifest(LocalFileStore):
    """A store whose process dies (an exception here) as the manifest is written: the chunks'
    files are stored, the row not changed yet."""

    def open_writer(self, key: str):  # noqa: ANN201
        if key.endswith(".manifest.json"):
            raise KeyboardInterrupt("killed")
        return super().open_writer(key)


@ONE_EXAMPLE
@given(rows=A_FEW_ROWS)
def test_a_conversion_cut_short_is_taken_up_by_the_next_run(scratch: Path, template: Path, rows: list[Row]) -> None:
    assume(len(rows) >= 4)
    world = World(scratch, template)

    async def scenario() -> None:
        try:
            user_id = await world.user()
            export_id = await add_old_export(world, user_id, rows)
            old = await world.row(export_id)
            dying = LegacyExportConverter(world.sessions, world.writer, _DiesAtTheManifest(world.root), chunk_rows=3)
            with pytest.raises(KeyboardInterrupt):
                await dying.convert_all()
            assert await world.row(export_id) == old, "the row changed before the dataset was whole"
            assert all([await world.files.exists(key) for key in (old.csv_key, old.detail_key)])

            report = await world.converter().convert_all()

            assert (report.converted, report.rows) == (1, len(rows))
            await assert_converted_equals_direct(world, user_id, export_id, rows)
        finally:
            await world.engine.dispose()

    run(scenario())


@ONE_EXAMPLE
@given(rows=A_FEW_ROWS)
def test_the_conversion_works_alike_on_the_local_store_and_on_s3(scratch: Path, template: Path, store: FileStore,
                                                                 rows: list[Row]) -> None:
    assume(len(rows) >= 4)
    world = World(scratch, template, files=store)

    async def scenario() -> None:
        try:
            user_id = await world.user()
            export_id = await add_old_export(world, user_id, rows)
            old = await world.row(export_id)

            report = await world.converter().convert_all()

            assert (report.converted, report.rows) == (1, len(rows))
            for key in (old.csv_key, old.detail_key, old.summary_key, old.rows_index_key):
                assert not await store.exists(key)
            row = await world.row(export_id)
            manifest = await read_manifest(store, row.manifest_key)
            assert row.size_bytes == sum([await store.size(key) for key in (row.manifest_key, *manifest.keys)])
            csv_text, records = old_export_texts(rows, USER_COLUMNS)
            again_csv, again_records = old_texts_again(await ExportDataset.open(store, manifest))
            assert again_csv == csv_text
            assert again_records == [json.loads(line) for line in records.split("\n") if line]
            assert (await world.converter().convert_all()).converted == 0
        finally:
            await world.engine.dispose()

    run(scenario())


@ONE_EXAMPLE
@given(rows=A_FEW_ROWS)
def test_an_export_whose_records_are_missing_is_left_as_it_is(scratch: Path, template: Path, rows: list[Row]) -> None:
    world = World(scratch, template)

    async def scenario() -> None:
        try:
            export_id = await add_old_export(world, await world.user(), rows)
            old = await world.row(export_id)
            await world.files.delete(old.detail_key)

            report = await world.converter().convert_all()

            assert report.converted == 0 and len(report.skipped) == 1
            assert await world.row(export_id) == old
            assert await world.files.exists(old.csv_key), "its CSV is kept: nothing is emptied"
        finally:
            await world.engine.dispose()

    run(scenario())

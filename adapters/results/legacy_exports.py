"""Exports made before issue #27, converted once into the columnar dataset (`perilscope exports
convert`, run by `make migrate` after `db upgrade`): so no second code path reads the old formats.

An old export is its detailed JSON Lines records (a file at `detail_key`, or, before export files,
the `detail` text of its row) and its SPEC CSV (`csv_key`, or the row's `content`), beside a
portfolio summary and a viewer index that the dataset makes unnecessary. Each record becomes a
facts row and its county's and tract's score rows (domain/row_facts.py's fields, read back from
the record's columns and parts), written in chunks of `chunk_rows` with the chunk writer under the
export's own keys (`exports/<user>/<export>.<chunk>.facts.parquet`, `.scores.parquet`), then the
manifest. The export's row then names the manifest alone and counts the new files' bytes against
its owner's storage; the old files are deleted after that.

What the old records cannot give back, and what the conversion does about it:
- the occupants are not in the records: they come from the SPEC CSV's address group of the row
  (one group per row, in the same order; a group whose address text is not the record's is not
  taken), where an unknown text reads 'NA' and an occupant without its own point has the row's;
- the records' text was neutralised against spreadsheet formulas (a leading "'" before = + - @
  tab or CR): it is taken off again, the dataset keeping values as they came. A value that truly
  began with "'=" loses its quote in JSON Lines and Parquet; spreadsheet formats are unchanged;
- the upload's address columns were never kept (issue #27): they stay missing.

Idempotent and resumable: an export is picked while its row has no manifest; its chunk keys are
fixed, so a run cut short writes them again; the row changes in one statement, only if it still
has no manifest (an export deleted meanwhile has its new files deleted). Files of a run killed
between the row's change and the deletion of the old ones are named by no row: the orphan sweep
(application/orphan_files.py) deletes them. Exports of rows a client sent (a CSV file and no
records) are left as they are; an old export kept in the database with its CSV alone has the CSV
moved into the file store, as a client's."""

from __future__ import annotations

import csv
import logging
import tempfile
from collections.abc import Container, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from sqlalchemy import and_, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from adapters.db.batch_tables import ExportFileRow
from adapters.db.writer import SqlWriter
from adapters.results.chunk_writer import ChunkTable, WrittenChunk, chunk_keys, write_bytes
from application.errors import NotFound
from application.ports.files import FileStore
from application.ports.results import ExportManifest, ManifestChunk, manifest_key, write_manifest
from domain.export import FORMULA_TRIGGERS
from domain.occupancy import UNKNOWN
from domain.perils import HAZARDS, PerilScores
from domain.row_facts import COUNTY, TRACT, score_key, score_row

log = logging.getLogger(__name__)

NO_NAICS = "N/A"  # domain/export.py's cell for an occupant without a NAICS code


@dataclass
class ConversionReport:
    converted: int = 0  # exports made datasets
    rows: int = 0
    csv_moved: int = 0  # CSV-only exports moved from the database into the file store
    bytes_before: int = 0  # of the converted exports, as their rows counted them
    bytes_after: int = 0
    occupants_not_matched: int = 0  # rows whose SPEC CSV group did not match their record
    skipped: list[str] = field(default_factory=list)  # exports whose records are missing: left as they are
    names: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _OldExport:
    id: str
    user_id: str
    name: str
    csv_key: str | None
    detail_key: str | None
    summary_key: str | None
    rows_index_key: str | None
    size_bytes: int
    detail_columns: tuple[str, ...]
    in_database: bool  # its text is in the row (`detail`, `content`), not in files

    @property
    def old_keys(self) -> list[str]:
        return [key for key in (self.csv_key, self.detail_key, self.summary_key, self.rows_index_key) if key]


class LegacyExportConverter:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], writer: SqlWriter, files: FileStore,
                 chunk_rows: int = 5000) -> None:
        self._sessions = sessions
        self._writer = writer
        self._files = files
        self._chunk_rows = max(1, chunk_rows)

    async def convert_all(self) -> ConversionReport:
        report = ConversionReport()
        for export in await self._pending():
            if export.detail_key is None and not await self._has_detail_text(export.id):
                if export.in_database:
                    report.csv_moved += await self._move_csv(export)
                continue
            try:
                rows, size, unmatched = await self.convert(export)
            except NotFound:
                log.warning("export not converted: its records are missing", extra={"export": export.name})
                report.skipped.append(export.name)
                continue
            if size is None:
                continue
            report.converted += 1
            report.rows += rows
            report.bytes_before += export.size_bytes
            report.bytes_after += size
            report.occupants_not_matched += unmatched
            report.names.append(export.name)
        return report

    async def _pending(self) -> list[_OldExport]:
        """Exports with old files or text and no manifest: made by a job before issue #27."""
        row = ExportFileRow
        old_in_database = and_(row.csv_key.is_(None), or_(row.detail.is_not(None), row.content.is_not(None)))
        async with self._sessions() as session:
            found = (await session.execute(
                select(row.id, row.user_id, row.name, row.csv_key, row.detail_key, row.summary_key, row.rows_index_key,
                       row.size_bytes, row.detail_columns, old_in_database.label("in_database"))
                .where(row.manifest_key.is_(None), or_(row.detail_key.is_not(None), old_in_database))
                .order_by(row.exported_at, row.id)
            )).all()
        return [
            _OldExport(r.id, r.user_id, r.name, r.csv_key, r.detail_key, r.summary_key, r.rows_index_key,
                       r.size_bytes or 0, tuple(msgspec.json.decode(r.detail_columns)) if r.detail_columns else (),
                       bool(r.in_database))
            for r in found
        ]

    async def _has_detail_text(self, export_id: str) -> bool:
        async with self._sessions() as session:
            return bool(await session.scalar(
                select(ExportFileRow.detail.is_not(None)).where(ExportFileRow.id == export_id)))

    async def _text_of(self, export_id: str, column: Any) -> str | None:  # noqa: ANN401 - a column
        async with self._sessions() as session:
            return await session.scalar(select(column).where(ExportFileRow.id == export_id))

    async def _move_csv(self, export: _OldExport) -> int:
        """An export kept in the database with its SPEC CSV alone: the CSV becomes its file."""
        content = await self._text_of(export.id, ExportFileRow.content)
        if content is None:
            return 0
        key = f"exports/{export.user_id}/{export.id}.csv"
        encoded = content.encode()
        await write_bytes(self._files, key, encoded)
        changed = await self._change_row(export.id, csv_key=key, size_bytes=len(encoded))
        if not changed:
            await self._files.delete(key)
        return int(changed)

    async def convert(self, export: _OldExport) -> tuple[int, int | None, int]:
        """The export as a dataset: (rows, its stored bytes or None when it went meanwhile, rows
        whose occupants could not be read from its CSV)."""
        with tempfile.TemporaryDirectory(prefix="perilscope-convert-") as scratch:
            records_path, csv_path = Path(scratch) / "records.jsonl", Path(scratch) / "export.csv"
            await self._stage(export, records_path, csv_path)
            # As uploaded: the records' `input` keys, like their values, are read back unneutralised.
            user_columns = [unneutralised(name) for name in export.detail_columns] or _columns_of_first(records_path)
            written: list[WrittenChunk] = []
            chunks: list[ManifestChunk] = []
            unmatched = rows = 0
            table = ChunkTable(len(user_columns))
            scores_known: set[tuple[str, Any, Any]] = set()  # of this chunk's table

            async def flush() -> None:
                nonlocal table
                scores_known.clear()
                facts_key, scores_key = chunk_keys(f"exports/{export.user_id}/{export.id}.{len(chunks)}")
                done = await table.write(self._files, facts_key, scores_key)
                written.append(done)
                chunks.append(ManifestChunk(index=len(chunks), first_row=rows - table.rows, rows=table.rows,
                                            facts=facts_key, scores=scores_key))
                table = ChunkTable(len(user_columns))

            groups = _spec_groups(csv_path)
            for record in _records(records_path):
                group = next(groups, None)
                occupants, matched = _occupants(record, group)
                unmatched += not matched
                inputs = record.get("input") or {}
                scores = score_rows_of_record(record, scores_known)
                scores_known.update(score_key(row) for row in scores)
                table.add_facts(record["row"], [inputs.get(name) for name in user_columns],
                                facts_of_record(record, occupants), scores)
                rows += 1
                if table.rows >= self._chunk_rows:
                    await flush()
            if table.rows or not chunks:
                await flush()
        manifest = ExportManifest(user_columns=user_columns, rows=rows, chunks=chunks)
        key = manifest_key(export.user_id, export.id)
        size = await write_manifest(self._files, key, manifest) + sum(chunk.size_bytes for chunk in written)
        new_keys = [key, *manifest.keys]
        if not await self._change_row(export.id, manifest_key=key, size_bytes=size, csv_key=None, detail_key=None,
                                      summary_key=None, rows_index_key=None,
                                      detail_columns=msgspec.json.encode(user_columns).decode()):
            for stale in new_keys:  # deleted (or converted by another run) meanwhile
                await self._files.delete(stale)
            return rows, None, unmatched
        for old in export.old_keys:
            await self._files.delete(old)
        log.info("export converted", extra={"export": export.name, "rows": rows, "bytes_before": export.size_bytes,
                                            "bytes_after": size, "occupants_not_matched": unmatched})
        return rows, size, unmatched

    async def _stage(self, export: _OldExport, records_path: Path, csv_path: Path) -> None:
        """The export's records and CSV as local files, read line by line after (a CSV's address
        cell spans lines): memory stays at a piece whatever the export's size."""
        for path, key, column in ((records_path, export.detail_key, ExportFileRow.detail),
                                  (csv_path, export.csv_key, ExportFileRow.content)):
            with path.open("wb") as out:
                # Missing records raise NotFound: the export is left as it is, never emptied. A
                # missing CSV only costs the occupants.
                if key is not None and (key == export.detail_key or await self._files.exists(key)):
                    async for piece in self._files.read(key):
                        out.write(piece)
                elif export.in_database:
                    text = await self._text_of(export.id, column)
                    out.write((text or "").encode())

    async def _change_row(self, export_id: str, **values: Any) -> bool:  # noqa: ANN401
        async with self._writer.session() as session:
            result = await session.execute(
                update(ExportFileRow)
                .where(ExportFileRow.id == export_id, ExportFileRow.manifest_key.is_(None))
                .values(content=None, detail=None, **values)
            )
            await session.commit()
        return result.rowcount == 1


# --- the old records, read back as facts ----------------------------------------------------------


def unneutralised(value: Any) -> Any:  # noqa: ANN401
    """A value as it was before domain/export.safe_cell quoted it (recursively in lists and dicts)."""
    if isinstance(value, str):
        return value[1:] if value.startswith("'") and value[1:].startswith(FORMULA_TRIGGERS) else value
    if isinstance(value, list):
        return [unneutralised(item) for item in value]
    if isinstance(value, dict):
        return {unneutralised(key): unneutralised(item) for key, item in value.items()}
    return value


def _records(path: Path) -> Iterator[dict[str, Any]]:
    decoder = msgspec.json.Decoder()
    with path.open("rb") as handle:
        for line in handle:
            if line.strip():
                record = decoder.decode(line)
                # A neutralised text starts with a quote, so its JSON with `"'`: walk the whole
                # record only when more of those are in it than its user's columns explain (a
                # header such as '=TIV' is on every row; most answers have none).
                inputs = record.get("input") or {}
                quoted = sum(1 for pair in inputs.items() for text in pair if isinstance(text, str) and text[:1] == "'")
                if line.count(b"\"'") > quoted:
                    yield unneutralised(record)
                else:
                    if quoted:
                        record["input"] = unneutralised(inputs)
                    yield record


def _columns_of_first(path: Path) -> list[str]:
    """The user's columns when the export row does not list them: the first record's keys."""
    for record in _records(path):
        return list((record.get("input") or {}).keys())
    return []


def _spec_groups(path: Path) -> Iterator[list[dict[str, str]]]:
    """SPEC §3's address groups of the CSV, in order: a row with an address starts one."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        group: list[dict[str, str]] = []
        for row in reader:
            if row.get("address"):
                if group:
                    yield group
                group = [row]
            elif group:
                group.append(row)
        if group:
            yield group


def _occupants(record: dict[str, Any], group: list[dict[str, str]] | None) -> tuple[list[dict[str, Any]], bool]:
    """The row's occupants from its CSV group, and whether the group was the row's. A group is
    one line with nothing known when the row has no occupants (count None or 0)."""
    count = record.get("occupant_count")
    if group is None or unneutralised(group[0].get("address")) != record.get("address"):
        return [], not count
    if not count:
        return [], True
    return [_occupant(row) for row in group[:count]], len(group) == count


def _occupant(row: dict[str, str]) -> dict[str, Any]:
    """An occupant from its SPEC CSV line (its cells neutralised, as every CSV cell was)."""
    def text(name: str) -> str | None:
        value = unneutralised(row.get(name))
        return None if value in (None, "", UNKNOWN) else value

    types = unneutralised(row.get("types"))
    return {
        "name": text("name"), "vicinity": text("vicinity"),
        "types": [] if types in (None, "", UNKNOWN) else types.split(","),
        "lat": _float(row.get("lat")), "lng": _float(row.get("lng")),
        "business_status": text("business_status"),
        "naics_code": None if row.get("naics_code") in (None, "", NO_NAICS) else unneutralised(row["naics_code"]),
    }


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except ValueError:
        return None


def _whole(value: Any) -> int | None:  # noqa: ANN401
    if value is None or value == "":
        return None
    return int(round(float(value)))


def facts_of_record(record: dict[str, Any], occupants: list[dict[str, Any]]) -> dict[str, Any]:
    """The facts row of an old detailed record (domain/detailed_export.answer_record): the same
    fields domain/row_facts.answer_facts gives the answer it was made from."""
    location = record.get("location") or {}
    receipt = record.get("receipt") or {}
    providers = receipt.get("providers") or {}
    tract = record.get("tract")
    return {
        "status": record.get("status"),
        "message": record.get("message"),
        "address": record.get("address"),
        "normalized_address": record.get("normalized_address"),
        "match_level": record.get("match_level"),
        "lat": record.get("lat"),
        "lng": record.get("lng"),
        "county_fips": record.get("county_fips"),
        "county_name": record.get("county_name"),
        "county_state": record.get("county_state"),
        "county_method": record.get("county_method"),
        "county_confidence": record.get("county_confidence"),
        "low_confidence": location.get("low_confidence", record.get("low_confidence") == "yes"),
        "alternatives": [
            {"county_fips": a.get("county_fips"), "county_name": a.get("county_name"), "state": a.get("state"),
             "share": a.get("share"), "total_score": a.get("Total_Score"), "risk_rating": a.get("risk_rating")}
            for a in location.get("alternatives") or []
        ],
        "alternative_counties": record.get("alternative_counties"),
        "location_notes": list(location.get("notes") or []),
        "locator": location.get("source"),
        "tract_geoid": record.get("tract_geoid", location.get("tract_geoid")),
        "nri_version": record.get("nri_version"),
        "tract_county_fips": tract.get("county_fips") if tract else None,
        "tract_nri_version": tract.get("nri_version") if tract else record.get("tract_nri_version"),
        "tract_from": tract.get("tract_from") if tract else None,
        "tract_notes": list(tract.get("notes") or []) if tract else None,
        "tract_note": record.get("tract_note"),
        "property_name": record.get("property_name"),
        "year_built": _whole(record.get("year_built")),
        "property_type": record.get("property_type"),
        "floors": _whole(record.get("floors")),
        "gross_floor_area_sqft": _whole(record.get("gross_floor_area_sqft")),
        "parking_area_sqft": _whole(record.get("parking_area_sqft")),
        "largest_use": record.get("largest_use"),
        "occupant_count": record.get("occupant_count"),
        "occupants": occupants,
        "naics_codes": record.get("naics_codes"),
        "data_as_of": record.get("data_as_of"),
        "geocoder": providers.get("geocoder"),
        "places": providers.get("places"),
        "perils": providers.get("perils"),
        "property_records": providers.get("property_records"),
        "tract_perils": providers.get("tract_perils"),
        "scored_at": receipt.get("scored_at"),
        "datasets": [{"dataset": d.get("dataset"), "version": d.get("version"), "as_of": d.get("as_of")}
                     for d in receipt.get("datasets") or []],
        "from_cache": receipt.get("from_cache"),
        "cache_max_age_hours": receipt.get("cache_max_age_hours"),
        "scored": _scored(record),
        "tract_scored": tract is not None,
    }


def _scored(record: dict[str, Any]) -> bool:
    """Whether the answer had county scores: its receipt says so (`geography_level`); a record of
    before receipts did when any county score or rating is there."""
    receipt = record.get("receipt") or {}
    if "geography_level" in receipt:
        return receipt["geography_level"] == COUNTY
    return any(record.get(name) is not None for name in ("Total_Score", "risk_rating")) or any(
        record.get(f"{h.code}_Score") is not None or record.get(f"{h.code}_Rating") is not None for h in HAZARDS)


def _scores(record: dict[str, Any], prefix: str) -> PerilScores:
    """The county's (prefix '') or the tract's ('tract_') scores from the record's columns."""
    return PerilScores(
        scores={h.code: record.get(f"{prefix}{h.code}_Score") for h in HAZARDS},
        ratings={h.code: record.get(f"{prefix}{h.code}_Rating") for h in HAZARDS},
        total=record.get(f"{prefix}Total_Score"),
        total_rating=record.get(f"{prefix}risk_rating"),
    )


def score_rows_of_record(record: dict[str, Any], known: Container[tuple[str, Any, Any]] = ()) -> list[dict[str, Any]]:
    """The record's county and tract scores as score rows (domain/row_facts.score_rows), but
    those whose key (level, geoid, nri_version) is `known` (a chunk has them already)."""
    rows = []
    if _scored(record) and (key := (COUNTY, record.get("county_fips"), record.get("nri_version"))) not in known:
        rows.append(score_row(*key, _scores(record, "")))
    tract = record.get("tract")
    if tract:
        location = record.get("location") or {}
        geoid = location.get("tract_geoid") if location.get("tract_geoid") is not None else tract.get("tract_geoid")
        if (key := (TRACT, geoid, tract.get("nri_version"))) not in known:
            rows.append(score_row(*key, _scores(record, "tract_")))
    return rows


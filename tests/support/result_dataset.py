"""Batch results written as a real export dataset (issue #27) from answers made in the test:
(line, user_values, LookupResult) rows through the real chunk writer (adapters/results/
chunk_writer.py) into any FileStore, with the manifest, as a finished job leaves them. And
hypothesis strategies of varied answers, consistent as real ones are (a county's scores are the
same for every row of the same NRI release), for tests of the downloads, viewer and portfolio."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

import msgspec

from adapters.results.chunk_writer import ChunkTable, chunk_keys
from adapters.results.export_scores import ParquetExportScores
from application.ports.files import FileStore
from application.ports.results import ExportManifest, ManifestChunk, export_scores_key, manifest_key, write_manifest
from domain.address import BuildingKey
from domain.lookup_result import (
    CountyAlternative, DatasetVersion, Location, LookupResult, Provenance, TractPerils, not_located,
)
from domain.occupancy import Building, GeoPoint, Occupant, OccupantCoverage, ParsedAddress
from domain.perils import HAZARDS, PerilScores
from tests.fakes import sample_answer

Row = tuple[int, Sequence[str | None], LookupResult]
__all__ = ["Row", "WrittenDataset", "answers", "batch_rows", "county_scores", "sample_answer", "write_dataset"]


@dataclass(frozen=True, slots=True)
class WrittenDataset:
    manifest: ExportManifest
    manifest_key: str
    size_bytes: int  # every file's bytes, the manifest's included

    @property
    def keys(self) -> tuple[str, ...]:
        return (self.manifest_key, *self.manifest.keys)


async def write_dataset(files: FileStore, user_columns: Sequence[str], rows: Iterable[Row], *,
                        chunk_rows: int = 5000, chunk_sizes: Sequence[int] | None = None,
                        job_id: str = "job1", user_id: str = "user1", export_id: str = "export1",
                        merged: bool = True) -> WrittenDataset:
    """The rows written as chunks of `chunk_rows` (or of the sizes `chunk_sizes`, in turn; the
    last size repeats), each claimed once (attempt 1), their score rows merged into the export's
    as a job's finish merges them (`merged=False`: each chunk keeps its own, as an export made
    before they were merged), and the export's manifest."""
    rows = list(rows)
    sizes = list(chunk_sizes or [chunk_rows])
    chunks: list[ManifestChunk] = []
    size_bytes = 0
    start = 0
    while start < len(rows) or not chunks:
        size = max(1, sizes[min(len(chunks), len(sizes) - 1)])
        part = rows[start:start + size]
        table = ChunkTable(user_columns)
        for line, values, result in part:
            table.add(line, values, result)
        facts_key, scores_key = chunk_keys(f"jobs/{job_id}/out/{len(chunks)}.a1")
        written = await table.write(files, facts_key, scores_key)
        size_bytes += written.size_bytes
        chunks.append(ManifestChunk(index=len(chunks), first_row=start, rows=len(part), facts=facts_key, scores=scores_key))
        start += len(part)
        if not rows:
            break
    scores_key = None
    if merged:
        chunk_scores = [chunk.scores for chunk in chunks if chunk.scores]
        merge = await ParquetExportScores().merge(files, chunk_scores, export_scores_key(user_id, export_id))
        for chunk_key in chunk_scores:
            await files.delete(chunk_key)
        chunks = [msgspec.structs.replace(chunk, scores=None) for chunk in chunks]
        scores_key, size_bytes = merge.key, size_bytes - merge.merged_bytes + merge.size_bytes
    manifest = ExportManifest(user_columns=list(user_columns), rows=len(rows), chunks=chunks, scores=scores_key)
    key = manifest_key(user_id, export_id)
    size_bytes += await write_manifest(files, key, manifest)
    return WrittenDataset(manifest, key, size_bytes)


# --- answers -----------------------------------------------------------------------------------

RATINGS = ("Very High", "Relatively High", "Relatively Moderate", "Relatively Low", "Very Low", "No Rating",
           "Not Applicable", "Insufficient Data")
COUNTIES = (("53033", "King", "WA"), ("06037", "Los Angeles", "CA"), ("72127", "San Juan", "PR"),
            ("09110", "Capitol", "CT"), ("12086", "Miami-Dade", "FL"))
RELEASES = ("1.20.0", "1.19.0")


def county_scores(county_fips: str, nri_version: str | None, level: str = "county") -> PerilScores:
    """The same scores for the same county (or tract) and release, every time: as the NRI gives."""
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(f"{level}{county_fips}{nri_version}"))
    scores: dict[str, float | None] = {}
    ratings: dict[str, str | None] = {}
    for index, hazard in enumerate(HAZARDS):
        value = (seed * (index + 7)) % 1000
        if value % 9 == 0:
            scores[hazard.code], ratings[hazard.code] = None, "Not Applicable"
        else:
            scores[hazard.code] = round(value / 10 + (index % 3) * 0.005, 3)
            ratings[hazard.code] = RATINGS[value % 5]
    total = None if seed % 11 == 0 else round((seed % 1000) / 10, 2)
    return PerilScores(scores=scores, ratings=ratings, total=total, total_rating=None if total is None else RATINGS[seed % 5])


text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)
user_value = st.one_of(st.none(), text, st.sampled_from(["=1+1", "-2+3", "1,000,000", "12.5", "  x ", ""]))
maybe_float = st.one_of(st.none(), st.floats(-90, 90, allow_nan=False, allow_infinity=False))


@st.composite
def answers(draw: st.DrawFn) -> LookupResult:
    """A batch row's answer: not located, failed, ZIP level or answered; county scored or not,
    with a tract or not, a building or not, occupants known, none or unknown."""
    kind = draw(st.sampled_from(["answered", "answered", "answered", "zip", "not_located", "failed"]))
    street = draw(st.sampled_from(["701 5th Ave", "=1 Calle Luna", "PO BOX 12", "1 Main St"]))
    if kind in ("not_located", "failed"):
        return not_located(f"{street}, Nowhere", draw(st.sampled_from(["could not read", "-timed out"])),
                           "2026-11-28T10:00:00+00:00", "s", method="failed" if kind == "failed" else "none")
    fips, name, state = draw(st.sampled_from(COUNTIES))
    release = draw(st.sampled_from(RELEASES))
    scored = draw(st.booleans()) or kind == "answered"
    address = ParsedAddress(street, draw(st.sampled_from(["Seattle", None])), state, "98104", None,
                            BuildingKey(street.upper(), "98104"), street_read=kind != "zip")
    point = draw(st.one_of(st.none(), st.builds(GeoPoint, lat=st.floats(-80, 80), lng=st.floats(-170, 170),
                                                match_level=st.sampled_from(["building", "census_exact", "zip_centroid"]))))
    tract_geoid = draw(st.one_of(st.none(), st.sampled_from([fips + "000100", fips + "020200"])))
    alternatives = tuple(
        CountyAlternative(alt_fips, alt_name, alt_state, draw(st.floats(0, 1)), draw(maybe_float.map(lambda v: None if v is None else abs(v))),
                          draw(st.one_of(st.none(), st.sampled_from(RATINGS))))
        for alt_fips, alt_name, alt_state in draw(st.lists(st.sampled_from(COUNTIES), max_size=2))
    )
    location = Location(
        method=draw(st.sampled_from(["zip", "zip_share", "geocoder"])), county_fips=fips, county_name=name, state=state,
        confidence=draw(st.one_of(st.none(), st.floats(0, 1))), low_confidence=draw(st.booleans()),
        alternatives=alternatives, notes=tuple(draw(st.lists(st.sampled_from(["ZIP repaired.", "=check", "State differs."]), max_size=2))),
        point=point, tract_geoid=tract_geoid, locator=draw(st.sampled_from([None, "zip", "census"])),
    )
    tract = None
    if tract_geoid is not None and draw(st.booleans()):
        tract_release = draw(st.sampled_from(RELEASES))
        tract = TractPerils(tract_geoid, fips, county_scores(tract_geoid, tract_release, "tract"), tract_release,
                            draw(st.sampled_from(["geocoder", "building record"])),
                            () if tract_release == release else ("Tract scores are from another release.",))
    building = draw(st.one_of(st.none(), st.builds(
        Building, address=st.just(street), property_name=st.one_of(st.none(), text),
        year_built=st.one_of(st.none(), st.integers(1850, 2025)), property_type=st.one_of(st.none(), st.just("Office")),
        floors=st.one_of(st.none(), st.integers(1, 90)), gfa_total=st.one_of(st.none(), st.integers(0, 2_000_000)),
        gfa_parking=st.one_of(st.none(), st.integers(0, 50_000)), largest_use=st.one_of(st.none(), st.just("Office")))))
    occupants = tuple(draw(st.lists(st.builds(
        Occupant, name=text, vicinity=text, types=st.lists(st.sampled_from(["store", "=x", "cafe"]), max_size=2),
        business_status=st.sampled_from(["OPERATIONAL", "NA"]), lat=maybe_float, lng=maybe_float,
        naics_code=st.one_of(st.none(), st.sampled_from(["531120", "722511"]))), max_size=3)))
    coverage = draw(st.one_of(st.none(), st.builds(OccupantCoverage, covered=st.booleans(), source=st.just("registry"),
                                                   covers=st.just("Seattle"))))
    datasets = tuple(draw(st.lists(st.builds(DatasetVersion, dataset=st.sampled_from(["NRI", "ZIP"]),
                                             version=st.one_of(st.none(), st.just("1")),
                                             as_of=st.one_of(st.none(), st.just("2025-01-01"))), max_size=2)))
    provenance = Provenance(
        nri_version=release, geocoder="census", places="registry", perils="NRI" if scored else None,
        property_records=draw(st.one_of(st.none(), st.just("benchmarking"))), scored_at="2026-11-28T10:00:00+00:00",
        datasets=datasets, from_cache=draw(st.booleans()), cache_max_age_hours=draw(st.one_of(st.none(), st.just(24))),
        tract_perils="NRI tracts" if tract else None,
    )
    return LookupResult(
        search_id="s", query=f"{street}, Seattle, {state} 98104", address=address, location=location,
        perils=county_scores(fips, release) if scored else None, building=building, provenance=provenance,
        occupants=occupants, tract_perils=tract, occupant_coverage=coverage,
    )


def batch_rows(user_columns: int = 2, max_size: int = 20) -> st.SearchStrategy[list[Row]]:
    """Rows as a batch has them: lines increasing from 2 (the header is line 1), the user's
    values, and an answer each."""
    return st.lists(st.tuples(st.lists(user_value, min_size=user_columns, max_size=user_columns), answers()),
                    max_size=max_size).map(lambda drawn: [(index + 2, values, result) for index, (values, result) in enumerate(drawn)])


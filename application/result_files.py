"""Where a batch's results live in the file store (application/ports/files.py): each chunk's
result, written by the claim that answered it, and each export's files.

A chunk's result is two Parquet files (application/ports/results.py, adapters/results/):
`jobs/<job>/out/<chunk>.a<attempt>.facts.parquet` and `...scores.parquet` (the attempt is the
claim's fencing token, so a claimant whose lease was taken over writes beside the winner, never
over it). A batch's export is those files and its manifest, `exports/<user>/<export id>.manifest.json`:
nothing is copied or composed when a job finishes. Rows a client sent (POST /api/export), and an
export made before the dataset until it is converted, are `exports/<user>/<export id>.csv` (with,
for the latter, `.jsonl`, `.summary` and `.rows`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass

from application.batch_files import pieces
from application.errors import NotFound
from application.ports.batch import BatchStore, ExportFile
from application.ports.chunks import ChunkFiles, ChunkResult, ClaimedChunk
from application.ports.files import FileStore
from application.ports.results import ChunkResultWriter, export_scores_key, read_manifest


@dataclass(frozen=True, slots=True)
class ExportKeys:
    """The files of an export from before the dataset (and, `csv` alone, of rows a client sent)."""

    csv: str
    detail: str
    summary: str
    rows_index: str


def export_keys(user_id: str, export_id: str) -> ExportKeys:
    stem = f"exports/{user_id}/{export_id}"
    return ExportKeys(f"{stem}.csv", f"{stem}.jsonl", f"{stem}.summary", f"{stem}.rows")


def export_of_key(key: str) -> str | None:
    """The export whose file the key is ('exports/<user>/<export>.<kind>'), or None."""
    parts = key.split("/")
    return parts[2].partition(".")[0] if len(parts) == 3 and parts[0] == "exports" else None


def chunk_stem(chunk: ClaimedChunk) -> str:
    """Where this claim writes its chunk's files: the claim's number in the name."""
    return f"jobs/{chunk.job_id}/out/{chunk.plan.index}.a{chunk.attempt}"


async def write_chunk(files: FileStore, writer: ChunkResultWriter, chunk: ClaimedChunk,
                      result: ChunkResult) -> ChunkFiles:
    """The chunk's result as this claim's files: the facts of its rows and the scores they used."""
    facts_key, scores_key = writer.chunk_keys(chunk_stem(chunk))
    written = await result.table.write(files, facts_key, scores_key)
    return ChunkFiles(written.facts_key, written.scores_key, written.size_bytes, result.user_columns,
                      rows_failed=result.rows_failed, error=result.error)


async def stored_keys(files: FileStore, export: ExportFile) -> tuple[str, ...]:
    """Every file of the export: the ones its row names and, for a dataset, the chunk files its
    manifest lists (none when the manifest is gone already: a delete retried)."""
    if export.manifest_key is None:
        return export.keys
    try:
        manifest = await read_manifest(files, export.manifest_key)
    except NotFound:
        return export.keys
    return manifest.keys + export.keys  # the manifest last: a delete cut short can be retried


def export_own_keys(export: ExportFile) -> tuple[str, ...]:
    """The files an export's finish wrote of its own (its manifest and merged score rows), for an
    export that was not kept: never the chunks' facts files, which are the job's until it ends."""
    if export.manifest_key is None:
        return export.keys
    return (*export.keys, export_scores_key(export.user_id, export.id))


async def delete_files(files: FileStore, keys: Iterable[str]) -> None:
    for key in keys:
        await files.delete(key)


async def export_bytes(files: FileStore, store: BatchStore, export: ExportFile, detailed: bool
                       ) -> AsyncIterator[bytes] | None:
    """The CSV, or the detailed JSON Lines records, of an export that is not a dataset (rows a
    client sent; an export from before, not converted yet), in pieces; None when it has no such part."""
    if not export.legacy:
        key = export.detail_key if detailed else export.csv_key
        return files.read(key) if key is not None else None
    text = await store.legacy_text(export.user_id, export.name, detailed)
    return None if text is None else pieces(text.encode())


async def primed(pieces: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """`pieces` with its first piece already read: a missing file or a failing conversion raises
    here, before a response has started, so the caller still answers with a clear status."""
    iterator = aiter(pieces)
    first = await anext(iterator, None)

    async def rest() -> AsyncIterator[bytes]:
        try:
            if first is not None:
                yield first
            async for piece in iterator:
                yield piece
        finally:  # a client gone mid-download: the file is released now, not when collected
            if hasattr(iterator, "aclose"):
                await iterator.aclose()

    return rest()

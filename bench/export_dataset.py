"""What a job's finish does to a bench's chunk files (application/batch.py assemble): the chunks'
score rows merged into the export's one file, theirs deleted. The benches that write a dataset
themselves call it, unless asked to keep each chunk's own (`--own-scores`: an export made before
they were merged), so both can be measured in one run."""

from __future__ import annotations

import msgspec

from adapters.results.export_scores import ParquetExportScores
from application.ports.files import FileStore
from application.ports.results import ExportManifest, export_scores_key


async def merged_scores(files: FileStore, manifest: ExportManifest, user_id: str, export_id: str) -> ExportManifest:
    chunk_scores = [chunk.scores for chunk in manifest.chunks if chunk.scores]
    if not chunk_scores:
        return manifest
    merged = await ParquetExportScores().merge(files, chunk_scores, export_scores_key(user_id, export_id))
    for key in chunk_scores:
        await files.delete(key)
    chunks = [msgspec.structs.replace(chunk, scores=None) for chunk in manifest.chunks]
    return msgspec.structs.replace(manifest, chunks=chunks, scores=merged.key)

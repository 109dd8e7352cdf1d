"""Export manifests read once and kept (the viewer's pages and the portfolio's summaries each
read one per request): a manifest never changes once written, so the most recent few are kept,
a few KB each, the least recently used dropped first."""

from __future__ import annotations

from collections import OrderedDict

from application.ports.files import FileStore
from application.ports.results import ExportManifest, read_manifest


class KeptManifests:
    def __init__(self, files: FileStore, capacity: int) -> None:
        self._files = files
        self._capacity = capacity
        self._kept: OrderedDict[str, ExportManifest] = OrderedDict()

    async def get(self, key: str) -> ExportManifest:
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        manifest = self._kept[key] = await read_manifest(self._files, key)
        while len(self._kept) > self._capacity:
            self._kept.popitem(last=False)
        return manifest

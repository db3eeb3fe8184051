"""Fresh t-SNE map layouts (``generator.analysis.paper_map``), kept in the cache database by the matrix
they were computed from (``layout_key``), so a rebuild of the same vectors does not run t-SNE again.

A row is read only when written with the layout version of its digest's size (``layout_version``)
and holds one finite position per paper; one layout is kept, the digest's current one.
"""

from __future__ import annotations

import io

import numpy as np

from generator.analysis.paper_map import layout_version
from generator.cache.database import CacheDatabase, StoredEntries

KIND = "map layout"


class LayoutStore:
    def __init__(self, database: CacheDatabase | None, papers: int) -> None:
        self.database = database
        self.version = layout_version(papers)

    def known(self) -> StoredEntries[np.ndarray]:
        """The stored layout by ``layout_key``, read when asked for."""
        return StoredEntries(self.database, KIND, self.version, _decode)

    def save(self, key: str, positions: np.ndarray) -> None:
        if self.database is None:
            return
        buffer = io.BytesIO()
        np.save(buffer, positions)
        # One layout kept: the digest's current one (an older one is never asked for again).
        self.database.put_many(KIND, [(key, buffer.getvalue())], self.version, keep_only=[key])


def _decode(data: bytes) -> np.ndarray | None:
    try:
        positions = np.load(io.BytesIO(data), allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if positions.ndim != 2 or positions.shape[1] != 2 or not np.isfinite(positions).all():
        return None
    return positions.astype(np.float64)

"""The last build's joint vectors and neighbour lists (``generator.analysis.neighbours``), one row of
the cache database per model, so an edit updates the related papers instead of recomputing them.

Each model's row is keyed by ``neighbour_key`` (the model, the space fit it was computed in and the
number of related papers), and read only when written by the same
code; a row that does not decode to consistent arrays is ignored. Each build replaces its model's
row.
"""

from __future__ import annotations

import io
import zipfile

import numpy as np

from generator import source_fingerprint
from generator.analysis.neighbours import NeighbourState, model_prefix
from generator.analysis.related import NeighbourLists
from generator.cache.database import CacheDatabase, StoredEntries

KIND = "paper neighbours"


class NeighbourStore:
    def __init__(self, database: CacheDatabase | None, model_name: str) -> None:
        self.database = database
        self.model_name = model_name

    def known(self) -> StoredEntries[NeighbourState]:
        """The stored states by ``neighbour_key``, each read when asked for."""
        return StoredEntries(self.database, KIND, source_fingerprint(), _decode)

    def load(self, key: str) -> NeighbourState | None:
        return self.known().get(key)

    def save(self, key: str, state: NeighbourState) -> None:
        """Best effort: without it the next build computes the neighbours whole. Replaces this
        model's earlier row; other models' rows stay, as their fits do."""
        database = self.database
        if database is None:
            return
        try:
            buffer = io.BytesIO()
            np.savez(
                buffer,
                # raw sha256 digests, 32 bytes a row (a bytes dtype would drop trailing zero bytes)
                keys=np.frombuffer(b"".join(bytes.fromhex(k) for k in state.keys), dtype=np.uint8).reshape(
                    len(state.keys), 32
                ),
                vectors=np.asarray(state.vectors, dtype=np.float32),
                expansion_indices=state.expansion.indices.astype(np.int32),
                expansion_scores=state.expansion.scores.astype(np.float32),
                related_indices=state.related.indices.astype(np.int32),
                related_scores=state.related.scores.astype(np.float32),
            )
            prefix = model_prefix(self.model_name)
            kept = [stored for stored in database.keys(KIND) if not stored.startswith(prefix)] + [key]
            database.put_many(KIND, [(key, buffer.getvalue())], source_fingerprint(), keep_only=kept)
        except ValueError:  # a key that is not a sha256: nothing worth keeping
            pass


def _decode(data: bytes) -> NeighbourState | None:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            state = NeighbourState(
                keys=tuple(row.tobytes().hex() for row in archive["keys"]),
                vectors=archive["vectors"].astype(np.float32, copy=False),
                expansion=NeighbourLists(
                    archive["expansion_indices"].astype(np.intp), archive["expansion_scores"]
                ),
                related=NeighbourLists(archive["related_indices"].astype(np.intp), archive["related_scores"]),
            )
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):  # damaged or foreign
        return None
    return state if state.consistent() else None

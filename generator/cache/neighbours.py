"""The last build's joint vectors and neighbour lists (``generator.analysis.neighbours``), one row of
the cache database per model, so an edit updates the related papers instead of recomputing them.

Each model's row is keyed by the model, the space fit it was computed in (its phrases, idf, means,
axes and spreads, hashed) and the number of related papers, and read only when written by the same
code; a row that does not decode to consistent arrays is ignored. Each build replaces its model's
row.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import numpy as np

from generator import source_fingerprint
from generator.analysis.neighbours import NeighbourState
from generator.analysis.related import NeighbourLists, SpaceFit
from generator.cache.database import open_cache

KIND = "paper neighbours"


def _model_prefix(model_name: str) -> str:
    return hashlib.sha256(model_name.encode()).hexdigest()[:16] + "-"


def neighbour_key(model_name: str, fit: SpaceFit, related_count: int) -> str:
    """The model's prefix, then a hash of the fit and the count (each model keeps its own row)."""
    digest = hashlib.sha256(f"{model_name}\0{related_count}\0".encode())
    digest.update("\x1f".join(map(str, fit.terms)).encode("utf-8") + b"\0")
    for array in (fit.idf, fit.mean, fit.components, fit.opening_mean, fit.title_mean, fit.projection):
        digest.update(b"-" if array is None else np.ascontiguousarray(array, dtype=np.float32).tobytes())
    spreads = (fit.semantic_spread, fit.topical_spread, fit.opening_spread, fit.title_spread)
    digest.update("\0".join(map(repr, spreads)).encode())
    return _model_prefix(model_name) + digest.hexdigest()[:32]


class NeighbourStore:
    def __init__(self, cache_dir: Path, model_name: str) -> None:
        self.cache_dir = cache_dir
        self.model_name = model_name

    def load(self, key: str) -> NeighbourState | None:
        database = open_cache(self.cache_dir)
        if database is None:
            return None
        try:
            data = database.get(KIND, key, source_fingerprint())
        finally:
            database.close()
        if data is None:
            return None
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as archive:
                state = NeighbourState(
                    keys=tuple(row.tobytes().hex() for row in archive["keys"]),
                    vectors=archive["vectors"].astype(np.float32, copy=False),
                    expansion=NeighbourLists(
                        archive["expansion_indices"].astype(np.intp), archive["expansion_scores"]
                    ),
                    related=NeighbourLists(
                        archive["related_indices"].astype(np.intp), archive["related_scores"]
                    ),
                )
        except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):  # damaged or foreign
            return None
        return state if state.consistent() else None

    def save(self, key: str, state: NeighbourState) -> None:
        """Best effort: without it the next build computes the neighbours whole. Replaces this
        model's earlier row; other models' rows stay, as their fits do."""
        database = open_cache(self.cache_dir)
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
            prefix = _model_prefix(self.model_name)
            kept = [stored for stored in database.keys(KIND) if not stored.startswith(prefix)] + [key]
            database.put_many(KIND, [(key, buffer.getvalue())], source_fingerprint(), keep_only=kept)
        except ValueError:  # a key that is not a sha256: nothing worth keeping
            pass
        finally:
            database.close()

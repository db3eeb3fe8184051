"""The embedding cache: any ``Embedder`` with the cache database in front.

Each vector is stored under sha256(model name, text) (and the parts' ranges, for ``embed_spans``),
so a rebuild only embeds what changed. It lives with the cache, not the analysis: the analysis
sees an ``Embedder`` and nothing of where its vectors come from.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from generator.analysis.embed import Embedder, ProgressCallback, check_spans
from generator.cache.database import CacheDatabase
from generator.errors import DigestError


class EmbeddingCache:
    """Vectors keyed by sha256(model name, text), in the cache folder's database.

    A file that is not a readable database of this schema version is deleted and started anew:
    a cache is never trusted over recomputing.
    """

    def __init__(self, database: CacheDatabase) -> None:
        self.database = database
        """The build's one connection: the other stores share it."""
        self.path = database.path
        self.was_reset = database.was_reset

    @classmethod
    def open(cls, path: Path) -> EmbeddingCache:
        """The database at ``path``, checked on opening; a ``DigestError`` when it cannot be opened."""
        try:
            return cls(CacheDatabase(path, check=True))
        except (sqlite3.Error, OSError) as error:
            raise DigestError(f"cannot open the cache {path}: {error}") from None

    @staticmethod
    def key(model_name: str, text: str) -> bytes:
        return hashlib.sha256(f"{model_name}\0{text}".encode()).digest()

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        return self.database.get_vectors(keys)

    def put_many(self, items: Sequence[tuple[bytes, np.ndarray]]) -> None:
        self.database.put_vectors(items)

    def close(self) -> None:
        self.database.close()


SPANS_KEY = "\0spans "
"""Prefix of a text's cache key when its parts are pooled with it: other vectors than the text's own."""


class CachedEmbedder:
    """Any ``Embedder`` with an ``EmbeddingCache`` in front; counts hits and misses."""

    def __init__(self, backend: Embedder, cache: EmbeddingCache) -> None:
        self.backend = backend
        self.cache = cache
        self.hits = 0
        self.misses = 0

    @property
    def name(self) -> str:
        return self.backend.name

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        keys = [EmbeddingCache.key(self.name, text) for text in texts]
        found = self._through_cache(
            keys, lambda rows: self.backend.embed([texts[row] for row in rows], progress), 1, progress
        )
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[key] for key in keys]).astype(np.float32, copy=False)

    def embed_spans(
        self, texts: Sequence[str], spans: np.ndarray, progress: ProgressCallback | None = None
    ) -> np.ndarray:
        """As the backend's, each text's vectors stored as one row under the text and its ranges."""
        spans = check_spans(texts, spans)
        parts = 1 + spans.shape[1]
        keys = [
            EmbeddingCache.key(self.name, f"{SPANS_KEY}{row.tolist()}\0{text}")
            for text, row in zip(texts, spans, strict=True)
        ]

        def compute(rows: list[int]) -> np.ndarray:
            return self.backend.embed_spans([texts[row] for row in rows], spans[rows], progress)

        found = self._through_cache(keys, compute, parts, progress)
        if not texts:
            return np.zeros((0, parts, 0), dtype=np.float32)
        return np.stack([found[key].reshape(parts, -1) for key in keys]).astype(np.float32, copy=False)

    def _through_cache(
        self,
        keys: Sequence[bytes],
        compute: Callable[[list[int]], np.ndarray],
        parts: int,
        progress: ProgressCallback | None,
    ) -> dict[bytes, np.ndarray]:
        """Each key's vectors (``parts`` of them, stored as one row): from the cache, or ``compute``d
        for the first row of each key the cache lacks and stored, 4,096 rows at a time, so an
        interrupted run keeps its work."""
        found = {
            key: vector
            for key, vector in self.cache.get_many(list(dict.fromkeys(keys))).items()
            if vector.shape[0] % parts == 0  # a row of another shape is recomputed, not trusted
        }
        first_row: dict[bytes, int] = {}
        for row, key in enumerate(keys):
            if key not in found:
                first_row.setdefault(key, row)
        missing = list(first_row.values())
        self.hits += len(keys) - sum(1 for key in keys if key not in found)
        self.misses += len(missing)
        if progress:
            progress(len(keys) - len(missing))
        for start in range(0, len(missing), 4096):
            rows = missing[start : start + 4096]
            new = [(keys[row], vector.ravel()) for row, vector in zip(rows, compute(rows), strict=True)]
            self.cache.put_many(new)
            found.update(new)
        return found

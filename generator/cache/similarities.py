"""KeyBERT's similarities between each paper and its keyword candidates, kept in the cache database,
so a rebuild runs KeyBERT for the papers whose embedding or candidates changed, not for the digest.

A row is keyed by the model, the paper's embedding and its candidates' spellings, so any change to
one of them is a miss; it is used only when written by the same code (``generator.source_fingerprint``)
and only when it holds one value per candidate. Each build keeps only the rows of its own papers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from generator import source_fingerprint
from generator.cache.database import open_cache

KIND = "keyword similarities"


def similarity_key(model_name: str, paper_vector: np.ndarray, spellings: Sequence[str]) -> str:
    digest = hashlib.sha256(model_name.encode() + b"\0")
    digest.update(np.ascontiguousarray(paper_vector, dtype=np.float32).tobytes())
    digest.update("\x1f".join(spellings).encode())
    return digest.hexdigest()[:32]


class SimilarityStore:
    def __init__(self, cache_dir: Path, model_name: str) -> None:
        self.cache_dir = cache_dir
        self.model_name = model_name

    def load(self, keys: Sequence[str], lengths: Sequence[int]) -> list[np.ndarray | None]:
        """The stored similarities of each key (``None``: not stored, or not ``length`` values)."""
        database = open_cache(self.cache_dir)
        if database is None:
            return [None] * len(keys)
        try:
            stored = database.get_many(KIND, list(keys), source_fingerprint())
        finally:
            database.close()
        found: list[np.ndarray | None] = []
        for key, length in zip(keys, lengths, strict=True):
            data = stored.get(key)
            values = None
            if data is not None and len(data) == 8 * length:
                values = np.frombuffer(data, dtype=np.float64)
            found.append(values)
        return found

    def save(self, new: dict[str, np.ndarray], keep_only: Sequence[str]) -> None:
        """Best effort: without it the next build runs KeyBERT again."""
        database = open_cache(self.cache_dir)
        if database is None:
            return
        try:
            # float64: a stored similarity is exactly the one KeyBERT gave, so a rebuild ranks alike.
            items = [(key, np.asarray(values, dtype=np.float64).tobytes()) for key, values in new.items()]
            database.put_many(KIND, items, source_fingerprint(), keep_only=keep_only)
        finally:
            database.close()

"""KeyBERT's similarities between each paper and its keyword candidates, kept in the cache database,
so a rebuild runs KeyBERT for the papers whose embedding or candidates changed, not for the digest.

A row is keyed by ``similarity_key`` (the model, the paper's embedding and its candidates'
spellings), so any change to one of them is a miss; it is used only when written by the same code
(``generator.source_fingerprint``) and only when it holds one value per candidate. Each build keeps
only the rows of its own papers.
"""

from __future__ import annotations

import numpy as np

from generator import source_fingerprint
from generator.analysis.keywords import NewEntries
from generator.cache.database import CacheDatabase, StoredEntries

KIND = "keyword similarities"


class SimilarityStore:
    def __init__(self, database: CacheDatabase | None) -> None:
        self.database = database

    def known(self) -> StoredEntries[np.ndarray]:
        """The stored similarities by ``keywords.similarity_key``, read in one query on first use (the
        analysis uses a row only when it holds one value per candidate)."""
        return StoredEntries(self.database, KIND, source_fingerprint(), _decode, prefetch=True)

    def save(self, found: NewEntries[np.ndarray]) -> None:
        """Best effort: without it the next build runs KeyBERT again. Keeps only ``found.keys``."""
        if self.database is None:
            return
        # float64: a stored similarity is exactly the one KeyBERT gave, so a rebuild ranks alike.
        items = [(key, np.asarray(values, dtype=np.float64).tobytes()) for key, values in found.new.items()]
        self.database.put_many(KIND, items, source_fingerprint(), keep_only=found.keys)


def _decode(data: bytes) -> np.ndarray | None:
    return np.frombuffer(data, dtype=np.float64) if len(data) % 8 == 0 else None

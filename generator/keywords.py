"""Keyword extraction: KeyBERT ranking candidate phrases by similarity to the paper embedding.

KeyBERT runs once over all papers (its batched form): the candidate vocabulary is built over the
whole digest and every distinct phrase is embedded once, through the same cached embedder as the
papers, so a warm rebuild embeds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from keybert import KeyBERT
from keybert.backend import BaseEmbedder
from sklearn.feature_extraction.text import CountVectorizer

from generator.embed import Embedder
from generator.model import Keyword
from generator.progress import Advance

# Words joined by hyphens stay one token, so "zeroth-order" survives as written.
TOKEN_PATTERN = r"(?u)\b[A-Za-z][\w]*(?:-[\w]+)*\b"
NGRAM_RANGE = (1, 2)
MMR_DIVERSITY = 0.5


class _KeyBERTBackend(BaseEmbedder):
    """Lets KeyBERT embed candidate phrases through our (cached) embedder."""

    def __init__(self, embedder: Embedder, progress: Advance | None) -> None:
        super().__init__()
        self._embedder = embedder
        self._progress = progress

    def embed(self, documents: Sequence[str], verbose: bool = False) -> np.ndarray:
        return self._embedder.embed(list(documents), self._progress)


def candidate_vectorizer() -> CountVectorizer:
    return CountVectorizer(ngram_range=NGRAM_RANGE, stop_words="english", token_pattern=TOKEN_PATTERN)


def count_candidates(texts: Sequence[str]) -> int:
    """How many distinct candidate phrases KeyBERT will embed for these texts."""
    return len(candidate_vectorizer().fit(texts).vocabulary_)


def extract_keywords(
    texts: Sequence[str],
    text_vectors: np.ndarray,
    embedder: Embedder,
    top_n: int,
    progress: Advance | None = None,
) -> list[list[Keyword]]:
    """``top_n`` keywords for each text, best first.

    ``text_vectors`` are the texts' own embeddings, computed once by the caller and reused here.
    """
    if not texts:
        return []
    model = KeyBERT(model=_KeyBERTBackend(embedder, progress))
    results = model.extract_keywords(
        list(texts),
        vectorizer=candidate_vectorizer(),
        doc_embeddings=text_vectors,
        top_n=top_n,
        use_mmr=True,
        diversity=MMR_DIVERSITY,
    )
    if len(texts) == 1:  # KeyBERT unwraps the list for a single document
        results = [results]
    return [[Keyword(text=phrase, score=float(score)) for phrase, score in found] for found in results]

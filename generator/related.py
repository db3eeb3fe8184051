"""Related papers: nearest neighbours by cosine similarity of the paper embeddings."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from generator.model import Keyword, RelatedPaper

CHUNK_ROWS = 1024
"""Rows of the similarity matrix held at once, so memory stays O(N * chunk), not O(N²)."""


def find_related(
    vectors: np.ndarray, keywords: Sequence[Sequence[Keyword]], count: int
) -> list[list[RelatedPaper]]:
    """The ``count`` most similar other papers for each paper, best first, with shared keywords.

    ``vectors`` must be L2-normalised, so the dot product is the cosine similarity.
    """
    total = vectors.shape[0]
    count = min(count, total - 1)
    if count <= 0:
        return [[] for _ in range(total)]
    keyword_sets = [{k.text for k in found} for found in keywords]
    related: list[list[RelatedPaper]] = []
    for start in range(0, total, CHUNK_ROWS):
        similarity = vectors[start : start + CHUNK_ROWS] @ vectors.T
        rows = np.arange(similarity.shape[0])
        similarity[rows, rows + start] = -np.inf  # never the paper itself
        top = np.argpartition(-similarity, count - 1, axis=1)[:, :count]
        for row, candidates in enumerate(top):
            index = start + row
            ordered = sorted(candidates, key=lambda j: (-similarity[row, j], j))
            related.append(
                [
                    RelatedPaper(
                        index=int(j),
                        score=round(float(similarity[row, j]), 4),
                        shared_keywords=tuple(k.text for k in keywords[index] if k.text in keyword_sets[j]),
                    )
                    for j in ordered
                ]
            )
    return related

"""My list's "Recommended for you" in Python: the steps ``javascripts/recommend.js`` takes over one
vector file (up to 3,500 papers), for the benchmark (``benchmarks/recommend_quality.py``) and the
browser test to check the browser's ranking with. The build writes nothing for it: the browser reads
the vectors search by meaning ships (``meaning_index``).

A logistic regression of the saved papers against every other paper of the digest (each side
weighing half, ``STEPS`` steps of full-batch gradient descent from zero) ranks the papers by its
weights' dot product with their vectors; a second ranking is each paper's cosine to its closest saved
paper; the two are fused by reciprocal rank (``FUSION_OFFSET``). How the steps and rate were chosen is in
``benchmarks/notes/recommendations.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

STEPS = 10
RATE = 32.0
DECAY = 0.0
FUSION_OFFSET = 60


def logistic_scores(
    vectors: np.ndarray, saved: np.ndarray, steps: int = STEPS, rate: float = RATE, decay: float = DECAY
) -> np.ndarray:
    """Each paper's score (higher is closer to the saved papers); ``saved`` are row numbers."""
    count, dimensions = vectors.shape
    target = np.zeros(count)
    target[saved] = 1.0
    chosen = int(target.sum())
    weight = np.where(target == 1.0, 0.5 / chosen, 0.5 / (count - chosen))
    w = np.zeros(dimensions)
    bias = 0.0
    for _ in range(steps):
        margin = vectors @ w + bias
        error = weight * (1.0 / (1.0 + np.exp(-margin)) - target)
        w = w - rate * (vectors.T @ error + decay * w)
        bias = bias - rate * error.sum()
    return vectors @ w


def ranks(scores: np.ndarray) -> np.ndarray:
    """Each score's rank, 0 for the highest; ties keep the earlier first."""
    out = np.empty(len(scores), dtype=np.int64)
    out[np.argsort(-scores, kind="stable")] = np.arange(len(scores))
    return out


def recommendation_scores(vectors: np.ndarray, saved: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Each paper's score (-inf for the saved ones) and the saved paper it is closest to: the model's
    ranking and the closeness to the closest saved paper, fused by their reciprocal ranks over the
    papers not saved."""
    model = logistic_scores(vectors, np.array(saved))
    similarity = vectors @ vectors[saved].T
    closest = np.array(saved)[np.argmax(similarity, axis=1)]
    others = np.setdiff1d(np.arange(len(vectors)), saved)
    fused = np.full(len(vectors), -np.inf)
    fused[others] = 1.0 / (FUSION_OFFSET + ranks(model[others])) + 1.0 / (
        FUSION_OFFSET + ranks(similarity[others].max(axis=1))
    )
    return fused, closest


@dataclass(frozen=True)
class Recommendation:
    place: int
    closest: int
    """The saved paper (a row number) whose vector is closest to this one's."""


def recommended(vectors: np.ndarray, saved: list[int], count: int) -> list[Recommendation]:
    """The ``count`` best papers not saved, best first (ties: the earlier row), each with the saved
    paper it is closest to (ties: the earlier saved). ``vectors`` as the browser reads them: the int8
    values times their scale, in float64."""
    scores, closest = recommendation_scores(vectors, saved)
    order = np.argsort(-scores, kind="stable")[: min(count, len(vectors) - len(set(saved)))]
    return [Recommendation(int(place), int(closest[place])) for place in order]


def read_vectors(data: bytes, dimensions: int) -> np.ndarray:
    """A vector file's rows as the browser reads them (``meaning_index.vectors_file``'s layout)."""
    count = len(data) // (4 + dimensions)
    scales = np.frombuffer(data[: 4 * count], dtype="<f4").astype(np.float64)
    values = np.frombuffer(data[4 * count :], dtype=np.int8).reshape(count, dimensions)
    return values.astype(np.float64) * scales[:, None]

"""The joint vectors and both neighbour passes of the related papers, updated where papers changed.

While the digest-wide fit is reused (``generator.analysis.fit``), a paper's joint vector depends on
its own text only, so the last build's vectors and neighbour lists stay right for every paper whose
text is unchanged, except where a changed paper enters or leaves them. An edit then recomputes:

1. the joint vectors of the new and edited papers (their phrases counted, not the digest's);
2. in each neighbour pass (expansion, then related papers), the full list of a changed row and of
   a row whose list held a paper that is gone, and a merge for a row that a changed row now beats
   at its last place (one dot product per changed row and row, not per pair of rows);
3. the related pass treats as changed every row whose expanded vector changed in the first pass.

Lists of untouched rows are kept as they were, so an edit at 50,000 papers recomputes a few hundred
rows, not the digest. Each changed paper reaches about ``EXPANSION_NEIGHBOURS`` expansion lists, and
each row those move about ``related_count`` related lists, so past about one changed paper per
``ROWS_PER_CHANGE`` papers a whole recomputation is as cheap, and is what runs.

Below ``APPROXIMATE_FROM`` papers both passes are exact either way, so an update gives the lists a
whole recomputation gives (up to ties within float rounding). Above it the whole passes search an
HNSW graph (recall@5 0.9995) and an update ranks the changed rows exactly.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from generator.analysis.related import (
    CHUNK_ROWS,
    EXPANSION_NEIGHBOURS,
    NeighbourLists,
    PaperEmbeddings,
    PaperSpace,
    PhraseCounts,
    SpaceFit,
    best_first,
    count_phrases,
    exact_neighbours,
    expand_from,
    joint_vectors,
    neighbour_lists,
    one_thread,
)

ROWS_PER_CHANGE = 200
"""About how many rows one changed paper makes an update recompute (20 expansion lists, each moved
row in about 5 related lists, plus merges): the update runs while that is below the digest's size."""


def neighbour_key(model_name: str, fit: SpaceFit, related_count: int) -> str:
    """The content key of a ``NeighbourState``: the model's prefix (``model_prefix``: each model keeps
    its own), then a hash of the space fit it was computed in and the number of related papers."""
    digest = hashlib.sha256(f"{model_name}\0{related_count}\0".encode())
    digest.update("\x1f".join(map(str, fit.terms)).encode("utf-8") + b"\0")
    for array in (fit.idf, fit.mean, fit.components, fit.opening_mean, fit.title_mean, fit.projection):
        digest.update(b"-" if array is None else np.ascontiguousarray(array, dtype=np.float32).tobytes())
    spreads = (fit.semantic_spread, fit.topical_spread, fit.opening_spread, fit.title_spread)
    digest.update("\0".join(map(repr, spreads)).encode())
    return model_prefix(model_name) + digest.hexdigest()[:32]


def model_prefix(model_name: str) -> str:
    return hashlib.sha256(model_name.encode()).hexdigest()[:16] + "-"


@dataclass(frozen=True)
class NeighbourState:
    """What the related-papers passes keep for the next build made with the same fit."""

    keys: tuple[str, ...]
    """Each row's paper key (``generator.analysis.fit.paper_key``)."""
    vectors: np.ndarray
    """The joint vectors."""
    expansion: NeighbourLists
    """Each row's nearest rows by joint vector, the query expansion's."""
    related: NeighbourLists
    """Each row's nearest rows by expanded vector: its related papers, before any cut-off."""

    def consistent(self) -> bool:
        rows = len(self.keys)
        return (
            self.vectors.ndim == 2
            and len(self.vectors) == rows
            and all(
                lists.indices.shape == lists.scores.shape and lists.indices.shape[0] == rows
                for lists in (self.expansion, self.related)
            )
            and all(
                not lists.indices.size or (lists.indices.min() >= 0 and lists.indices.max() < rows)
                for lists in (self.expansion, self.related)
            )
        )


@dataclass(frozen=True)
class Neighbourhood:
    space: PaperSpace
    state: NeighbourState
    """``previous`` itself when no paper changed."""
    recomputed_rows: int | None
    """Rows whose related list an update recomputed or merged; ``None`` when everything was computed."""


def paper_neighbours(
    fit: SpaceFit,
    texts: Sequence[str],
    keys: Sequence[str],
    embeddings: PaperEmbeddings,
    related_count: int,
    previous: NeighbourState | None = None,
    counts: PhraseCounts | None = None,
) -> Neighbourhood:
    """The papers' joint space and both neighbour passes; from ``previous`` (made with this same
    fit and ``related_count``) where that is cheaper, else computed whole. ``counts``, the texts'
    phrase counts when the caller has them, saves counting them again."""
    with one_thread():
        old_rows = _reusable_rows(previous, keys, related_count)
        if previous is None or old_rows is None:
            counts = counts if counts is not None else count_phrases(texts)
            vectors = joint_vectors(fit, counts, embeddings)
            expansion = neighbour_lists(vectors, EXPANSION_NEIGHBOURS)
            expanded = expand_from(vectors, expansion)
            related = neighbour_lists(expanded, related_count)
            recomputed = None
        else:
            moved = old_rows < 0
            vectors = np.empty((len(keys), previous.vectors.shape[1]), dtype=np.float32)
            vectors[~moved] = previous.vectors[old_rows[~moved]]
            if moved.any():
                changed = np.flatnonzero(moved)
                changed_counts = count_phrases([texts[i] for i in changed])
                fresh = joint_vectors(fit, changed_counts, embeddings.rows(changed))
                if fresh.shape[1] != vectors.shape[1]:
                    return paper_neighbours(fit, texts, keys, embeddings, related_count, None, counts)
                vectors[changed] = fresh
            new_row = np.full(len(previous.keys), -1, dtype=np.intp)
            new_row[old_rows[~moved]] = np.flatnonzero(~moved)
            expansion, expansion_changed = updated_lists(
                vectors, _renumbered(previous.expansion, old_rows, new_row), moved
            )
            expanded = expand_from(vectors, expansion)
            related, related_changed = updated_lists(
                expanded, _renumbered(previous.related, old_rows, new_row), moved | expansion_changed
            )
            recomputed = int(related_changed.sum())
    state = NeighbourState(tuple(keys), vectors, expansion, related)
    if previous is not None and recomputed == 0 and state.keys == previous.keys:
        state = previous  # the same papers in the same order: nothing to store again
    return Neighbourhood(PaperSpace(vectors=vectors, expanded=expanded), state, recomputed)


def _reusable_rows(
    previous: NeighbourState | None, keys: Sequence[str], related_count: int
) -> np.ndarray | None:
    """Each paper's row in ``previous`` (-1 for a new or edited paper), or ``None`` when the update
    would not pay or cannot be trusted (lists of another length, papers with the same text)."""
    if previous is None or not previous.consistent():
        return None
    rows = len(keys)
    if previous.expansion.count != max(0, min(EXPANSION_NEIGHBOURS, rows - 1)):
        return None
    if previous.related.count != max(0, min(related_count, rows - 1)):
        return None
    row_of = {key: row for row, key in enumerate(previous.keys)}
    if len(row_of) != len(previous.keys) or len(set(keys)) != rows:
        return None
    old_rows = np.array([row_of.get(key, -1) for key in keys], dtype=np.intp)
    new = int((old_rows < 0).sum())
    gone = len(previous.keys) - (rows - new)
    if (new + gone) * ROWS_PER_CHANGE > rows:
        return None
    return old_rows


def _renumbered(lists: NeighbourLists, old_rows: np.ndarray, new_row: np.ndarray) -> NeighbourLists:
    """The previous lists in today's row order and numbering: -1 marks a paper that is gone, and a
    new paper's row is all -1."""
    indices = np.full((len(old_rows), lists.count), -1, dtype=np.intp)
    scores = np.full((len(old_rows), lists.count), -np.inf, dtype=np.float32)
    kept = old_rows >= 0
    indices[kept] = new_row[lists.indices[old_rows[kept]]]
    scores[kept] = lists.scores[old_rows[kept]]
    return NeighbourLists(indices, scores)


def updated_lists(
    vectors: np.ndarray, previous: NeighbourLists, moved: np.ndarray
) -> tuple[NeighbourLists, np.ndarray]:
    """``previous`` (renumbered to these rows) brought up to date with the rows in ``moved``, whose
    vectors are new; also which rows' lists changed.

    A moved row, and a row whose list held a paper that is gone or moved, gets its list computed
    over every row. Any other row's list is still its best among the unmoved rows, so only a moved
    row that now beats its last neighbour can change it: that row is merged in."""
    count = previous.count
    indices, scores = previous.indices.copy(), previous.scores.copy()
    stale = moved | (indices < 0).any(axis=1) | moved[np.maximum(indices, 0)].any(axis=1)
    changed = stale.copy()
    if count == 0:
        return NeighbourLists(indices, scores), changed
    last_score, last_index = scores[:, -1], indices[:, -1]
    arrivals: dict[int, list[tuple[int, float]]] = defaultdict(list)
    moved_rows = np.flatnonzero(moved)
    for start in range(0, len(moved_rows), CHUNK_ROWS):
        chunk = moved_rows[start : start + CHUNK_ROWS]
        block = vectors[chunk] @ vectors.T
        beats = (block > last_score) | ((block == last_score) & (chunk[:, None] < last_index))
        beats[:, stale] = False
        for source, row in zip(*np.nonzero(beats), strict=True):
            arrivals[int(row)].append((int(chunk[source]), float(block[source, row])))
    for row, arrived in arrivals.items():
        candidates = np.concatenate([indices[row], np.array([j for j, _ in arrived], dtype=np.intp)])
        candidate_scores = np.concatenate([scores[row], np.array([s for _, s in arrived], dtype=np.float32)])
        ranked, ranked_scores = best_first(candidate_scores[None, :], candidates[None, :])
        indices[row], scores[row] = ranked[0, :count], ranked_scores[0, :count]
        changed[row] = True
    recompute = np.flatnonzero(stale)
    for start in range(0, len(recompute), CHUNK_ROWS):
        rows = recompute[start : start + CHUNK_ROWS]
        indices[rows], scores[rows] = exact_neighbours(vectors, rows, count)
    return NeighbourLists(indices, scores), changed

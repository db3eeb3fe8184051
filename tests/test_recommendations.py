"""My list's recommendations in Python (``generator.site.recommendations``, the twin of
``javascripts/recommend.js``; the browser test checks the two agree)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.site.meaning_index import vectors_file
from generator.site.recommendations import logistic_scores, read_vectors, recommended


def _vectors(seed: int, count: int, dimensions: int = 16) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(count, dimensions))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000), count=st.integers(3, 60), data=st.data())
def test_recommendations_leave_out_the_saved_papers_and_name_the_closest_one(
    seed: int, count: int, data: st.DataObject
) -> None:
    vectors = read_vectors(vectors_file(_vectors(seed, count)), 16)
    saved = data.draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=count - 1, unique=True))
    wanted = data.draw(st.integers(1, 30))
    found = recommended(vectors, saved, wanted)
    assert len(found) == min(wanted, count - len(saved))
    assert len({r.place for r in found}) == len(found)
    for r in found:
        assert r.place not in saved and r.closest in saved
        cosines = vectors[saved] @ vectors[r.place]
        assert r.closest == saved[int(np.argmax(cosines))]


def test_one_step_of_the_regression_ranks_as_the_saved_centroid_minus_the_digest_mean() -> None:
    vectors = _vectors(1, 200)
    saved = np.array([3, 50, 120])
    others = np.setdiff1d(np.arange(200), saved)
    expected = vectors @ (vectors[saved].mean(axis=0) - vectors[others].mean(axis=0))
    assert np.array_equal(np.argsort(-logistic_scores(vectors, saved, steps=1)), np.argsort(-expected))


def test_papers_near_the_saved_ones_come_first() -> None:
    rng = np.random.default_rng(2)
    subject = _vectors(3, 1)[0]
    near = subject + 0.05 * rng.normal(size=(10, 16))
    vectors = np.concatenate([near / np.linalg.norm(near, axis=1, keepdims=True), _vectors(4, 190)])
    found = recommended(vectors, [0, 1, 2], 7)
    assert {r.place for r in found} == set(range(3, 10))

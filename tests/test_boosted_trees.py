"""The trees shipped for titles and keywords score as the scikit-learn models they were learned as."""

from __future__ import annotations

import json

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

from generator.analysis.boosted_trees import BoostedTrees


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 5)).astype(np.float32)
    return x, x[:, 0] * 2 + np.sin(x[:, 1]) + (x[:, 2] > 0)


def test_trees_predict_as_scikit_learn_does() -> None:
    x, y = _data()
    regressor = HistGradientBoostingRegressor(max_iter=30, random_state=0).fit(x, y)
    assert np.allclose(BoostedTrees.from_histogram_boosting(regressor).predict(x), regressor.predict(x))
    classifier = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(x, y > 1)
    trees = BoostedTrees.from_histogram_boosting(classifier)
    assert np.allclose(trees.predict(x), classifier.decision_function(x))
    assert trees.predict(x[:0]).shape == (0,)


def test_trees_survive_both_file_forms(tmp_path) -> None:
    x, y = _data()
    trees = BoostedTrees.from_histogram_boosting(
        HistGradientBoostingRegressor(max_iter=20, max_leaf_nodes=7, random_state=0).fit(x, y)
    )
    # JSON (the keyword ranker): trees one by one, nodes numbered from 0 in each.
    lists = json.loads(json.dumps(trees.node_lists()))
    assert len(lists) == 20 and all(min(tree["left"]) >= 0 for tree in lists)
    from_json = BoostedTrees.from_node_lists(lists, trees.baseline)
    assert np.allclose(from_json.predict(x), trees.predict(x), atol=1e-6)
    assert from_json.node_lists() == lists
    # npz (the title model): one set of arrays.
    np.savez(tmp_path / "trees.npz", **trees.arrays("t"))
    with np.load(tmp_path / "trees.npz") as data:
        from_npz = BoostedTrees.from_arrays(data, "t")
    assert np.array_equal(from_npz.predict(x), trees.predict(x))

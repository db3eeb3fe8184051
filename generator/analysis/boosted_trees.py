"""Gradient-boosted trees learned by scikit-learn and walked in numpy at build time.

The title scorer (``titles``) and the keyword ranker (``keyphrases.ranker``) are both scikit-learn
``HistGradientBoosting*`` models. A digest build needs neither scikit-learn's estimators nor pickles:
the trees ship as node arrays (an ``.npz`` for titles, JSON for keywords) and are walked here, every
row at once, one tree after another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

JSON_VALUE_DIGITS = 8
"""Leaf values written to JSON keep this many decimals: far below the scores' differences, and the
file stays small and the same from one training run to the next."""


@dataclass(frozen=True)
class BoostedTrees:
    """Every tree's nodes in one set of arrays: a row goes ``left`` when its ``feature`` is at most
    ``threshold``; the leaves it reaches add their ``value`` to ``baseline`` (a regressor's
    prediction, a binary classifier's log-odds)."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    leaf: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    """Each tree's first node in the arrays above."""
    baseline: float

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """The model's output for each row (a regressor's ``predict``, a classifier's
        ``decision_function``)."""
        count = len(rows)
        total = np.full(count, self.baseline, dtype=np.float64)
        if not count:
            return total
        flat = np.ascontiguousarray(rows, dtype=np.float64).ravel()
        width = rows.shape[1]
        for root in self.roots:
            node = np.full(count, root, dtype=np.int64)
            # Only the rows not yet at a leaf walk on: trees are shallow on most rows.
            active = np.flatnonzero(~self.leaf[node])
            while len(active):
                at = node[active]
                goes_left = flat[active * width + self.feature[at]] <= self.threshold[at]
                after = np.where(goes_left, self.left[at], self.right[at])
                node[active] = after
                active = active[~self.leaf[after]]
            total += self.value[node]
        return total

    @classmethod
    def from_histogram_boosting(cls, model) -> BoostedTrees:
        """The trees of a fitted HistGradientBoostingRegressor, or of a binary
        HistGradientBoostingClassifier."""
        return cls.from_node_lists(
            [
                {
                    "feature": nodes["feature_idx"],
                    "threshold": nodes["num_threshold"],
                    "left": nodes["left"],
                    "right": nodes["right"],
                    "leaf": nodes["is_leaf"],
                    "value": nodes["value"],
                }
                for nodes in (predictor.nodes for (predictor,) in model._predictors)
            ],
            float(np.ravel(model._baseline_prediction)[0]),
        )

    @classmethod
    def from_node_lists(cls, trees: Sequence[Mapping[str, Sequence]], baseline: float) -> BoostedTrees:
        """Trees given one by one, each numbering its own nodes from 0."""
        parts: dict[str, list[np.ndarray]] = {
            k: [] for k in ("feature", "threshold", "left", "right", "leaf", "value")
        }
        roots, offset = [], 0
        for tree in trees:
            roots.append(offset)
            parts["feature"].append(np.asarray(tree["feature"], dtype=np.int64))
            parts["threshold"].append(np.asarray(tree["threshold"], dtype=np.float64))
            parts["left"].append(np.asarray(tree["left"], dtype=np.int64) + offset)
            parts["right"].append(np.asarray(tree["right"], dtype=np.int64) + offset)
            parts["leaf"].append(np.asarray(tree["leaf"]).astype(bool))
            parts["value"].append(np.asarray(tree["value"], dtype=np.float64))
            offset += len(parts["feature"][-1])
        return cls(
            **{name: np.concatenate(arrays) for name, arrays in parts.items()},
            roots=np.array(roots, dtype=np.int64),
            baseline=float(baseline),
        )

    def node_lists(self) -> list[dict[str, list]]:
        """The trees one by one, each numbering its own nodes from 0 (JSON-ready)."""
        ends = [*self.roots[1:], len(self.feature)]
        trees = []
        for start, end in zip(self.roots, ends, strict=True):
            nodes = slice(int(start), int(end))
            trees.append(
                {
                    "feature": [int(v) for v in self.feature[nodes]],
                    "threshold": [float(v) for v in self.threshold[nodes]],
                    "left": [int(v) - int(start) for v in self.left[nodes]],
                    "right": [int(v) - int(start) for v in self.right[nodes]],
                    "value": [round(float(v), JSON_VALUE_DIGITS) for v in self.value[nodes]],
                    "leaf": [int(v) for v in self.leaf[nodes]],
                }
            )
        return trees

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """The arrays for ``numpy.savez``, named ``{prefix}_…``."""
        return {
            f"{prefix}_feature": self.feature.astype(np.int16),
            f"{prefix}_threshold": self.threshold.astype(np.float64),
            f"{prefix}_left": self.left.astype(np.int32),
            f"{prefix}_right": self.right.astype(np.int32),
            f"{prefix}_leaf": self.leaf.astype(bool),
            f"{prefix}_value": self.value.astype(np.float64),
            f"{prefix}_roots": self.roots.astype(np.int32),
            f"{prefix}_baseline": np.array(self.baseline),
        }

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray], prefix: str) -> BoostedTrees:
        return cls(
            feature=data[f"{prefix}_feature"].astype(np.int64),
            threshold=data[f"{prefix}_threshold"].astype(np.float64),
            left=data[f"{prefix}_left"].astype(np.int64),
            right=data[f"{prefix}_right"].astype(np.int64),
            leaf=data[f"{prefix}_leaf"].astype(bool),
            value=data[f"{prefix}_value"].astype(np.float64),
            roots=data[f"{prefix}_roots"].astype(np.int64),
            baseline=float(data[f"{prefix}_baseline"]),
        )

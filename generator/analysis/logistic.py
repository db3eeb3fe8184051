"""A logistic regression on standardised features, frozen into plain numbers.

The readers'-verdict models (``titles.VerdictModel``, ``keyphrases.ranker.StrayModel``) are each
scikit-learn's ``make_pipeline(StandardScaler(), LogisticRegression())`` fitted by a benchmark
(``benchmarks/verdicts.py``) and shipped as its scaler's and regression's numbers, so that the package
computes their log-odds without scikit-learn. Each model adds its own decision rule and file format;
the log-odds are computed here, once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

import numpy as np

FeatureVector: TypeAlias = np.ndarray | tuple[float, ...]
"""One number per feature: an array as the verdict model reads it from its ``.npz``, or a tuple as the
stray model reads it from JSON (a tuple keeps that model hashable and comparable with ``==``)."""


@dataclass(frozen=True)
class StandardisedLogistic:
    """The log-odds of a logistic regression fitted on standardised features."""

    mean: FeatureVector
    """Each feature's mean over the training rows (the scaler's ``mean_``)."""
    scale: FeatureVector
    """Each feature's standard deviation over the training rows (the scaler's ``scale_``), 1 where that
    is 0: a feature constant in training is left as it is."""
    weights: FeatureVector
    """The regression's coefficient of each standardised feature."""
    intercept: float

    def odds(self, rows: np.ndarray) -> np.ndarray:
        """The log-odds of each row (one column per feature): the fitted pipeline's
        ``decision_function``."""
        standardised = (rows - np.asarray(self.mean)) / np.asarray(self.scale)
        return standardised @ np.asarray(self.weights) + self.intercept

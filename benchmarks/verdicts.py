"""What the trainers on readers' verdicts share: reading the verdicts, the classifier they fit and how a
fitted one becomes the package's ``StandardisedLogistic``.

``train_title_verdicts.py`` (is a candidate title WRONG?) and ``train_keyword_strays.py`` (is a keyword
STRAY?) learn from a few hundred verdicts each, in a TSV of ``benchmarks/data/`` with one row per judged
item of a paper; both ship a logistic regression on standardised features
(``generator.analysis.logistic``).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path
from typing import TypeAlias

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from generator.analysis.logistic import StandardisedLogistic

Verdicts: TypeAlias = dict[str, dict[str, str]]
"""A reader's verdict ("WRONG", "STRAY", …) by paper id, then by the judged item's text."""


def load_verdicts(path: Path, judged_column: str) -> Verdicts:
    """The verdicts of a TSV with the columns ``id``, ``verdict`` and ``judged_column`` (the judged item:
    "candidate" for titles, "keyword" for keywords)."""
    verdicts: Verdicts = defaultdict(dict)
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            verdicts[row["id"]][row[judged_column]] = row["verdict"]
    return verdicts


def classifier() -> Pipeline:
    """A regularised logistic regression on standardised features."""
    # a few hundred verdicts: a regularised linear model ranks held-out candidate titles better than
    # boosted trees (AUC 0.73 against 0.69, fields held out)
    return make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=5000))


def fitted_logistic(fitted: Pipeline) -> StandardisedLogistic:
    """The numbers of a fitted ``classifier()``, whose ``odds`` are its ``decision_function``."""
    scaler, logistic = fitted[0], fitted[1]
    return StandardisedLogistic(
        mean=scaler.mean_,
        # a feature constant in training has scale 0: left as it is, as the scaler leaves it
        scale=np.where(scaler.scale_ > 0, scaler.scale_, 1.0),
        weights=logistic.coef_[0],
        intercept=float(logistic.intercept_[0]),
    )

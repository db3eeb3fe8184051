"""The digest-wide fit: what the analysis learns from all papers together, kept between builds.

The joint space (idf, corpus mean, LSA axes), the topic centres and labels and the paper map are
learned from the whole digest. Refitting them on every build would let one edited abstract nudge
every paper's vector, and so every related-paper score, topic and map position on the site: a
one-line edit rewrote 2,395 of 4,181 pages at ICML 2024 and re-ran the t-SNE. So a fit is stored in
the cache folder and reused while the digest stays close to the papers it was fitted on (at most
``REFIT_SHARE`` of them new, edited or removed); new and edited papers are placed in it. Past that,
or with ``refit``, everything is fitted afresh. A stored fit that cannot be read, or comes from
another version or model, is fitted afresh too, never trusted. The build stores it
in its cache and gives it back to the next analysis.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from generator.analysis.related import SpaceFit
from generator.analysis.topics import TopicFit
from generator.progress import plural

FIT_VERSION = "2"
"""Part of the stored fit's name and contents: change it when what is fitted changes."""
REFIT_SHARE = 0.05
"""A fit is reused while at most this share of the digest's papers is new, edited or removed."""


def paper_key(text: str) -> str:
    """A paper's identity for the fit: its analysis text, so an edited abstract counts as new."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class DigestFit:
    model_name: str
    paper_keys: tuple[str, ...]
    """The papers the fit was learned from."""
    space: SpaceFit
    topics: TopicFit
    positions: np.ndarray
    """Map positions of ``paper_keys``, row by row."""
    map_method: str

    def changed_papers(self, keys: list[str]) -> int:
        """Papers new or edited since the fit, plus the papers it knew that are gone."""
        return len(set(keys).symmetric_difference(self.paper_keys))

    def describe_changes(self, keys: list[str]) -> str:
        """What changed since the fit, as a reader counts it: an edited abstract is one paper new or
        edited and one gone (its old text), which ``changed_papers`` counts as two."""
        known = set(self.paper_keys)
        new = len(set(keys) - known)
        gone = len(known - set(keys))
        if not new and not gone:
            return "no paper changed"
        parts = [f"{plural(new, 'paper')} new or edited"] if new else []
        if gone:
            parts.append(f"{plural(gone, 'old text')} gone (edited or removed)")
        return ", ".join(parts)

    def reusable_for(self, keys: list[str], dimensions: int) -> bool:
        if self.space.dimensions not in (None, dimensions):
            return False
        return self.changed_papers(keys) <= REFIT_SHARE * len(keys)

    def map_positions(self) -> dict[str, tuple[float, float]]:
        return {
            key: (float(x), float(y)) for key, (x, y) in zip(self.paper_keys, self.positions, strict=True)
        }

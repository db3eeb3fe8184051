"""The digest-wide fit: what the analysis learns from all papers together, kept between builds.

The joint space (idf, corpus mean, LSA axes), the topic centres and labels and the paper map are
learned from the whole digest. Refitting them on every build would let one edited abstract nudge
every paper's vector, and so every related-paper score, topic and map position on the site: a
one-line edit rewrote 2,395 of 4,181 pages at ICML 2024 and re-ran the t-SNE. So a fit is stored in
the cache folder and reused while the digest stays close to the papers it was fitted on (at most
``REFIT_SHARE`` of them new, edited or removed); new and edited papers are placed in it. Past that,
or with ``refit``, everything is fitted afresh. A stored fit that cannot be read, or comes from
another version or model, is fitted afresh too, never trusted. It is one row of the cache database
(``generator.cache.database``).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from generator.analysis.related import SpaceFit
from generator.analysis.topics import TopicFit
from generator.cache.database import open_cache
from generator.progress import plural

FIT_VERSION = "2"
"""Part of the stored fit's name and contents: change it when what is fitted changes."""
REFIT_SHARE = 0.05
"""A fit is reused while at most this share of the digest's papers is new, edited or removed."""
KIND = "digest fit"


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


class FitStore:
    """One stored fit per model, a NumPy archive (no pickled objects) in the cache database."""

    def __init__(self, cache_dir: Path, model_name: str) -> None:
        self.cache_dir = cache_dir
        self.key = hashlib.sha256(f"{FIT_VERSION}\0{model_name}".encode()).hexdigest()[:16]
        self.model_name = model_name

    def read_bytes(self) -> bytes | None:
        database = open_cache(self.cache_dir)
        if database is None:
            return None
        try:
            return database.get(KIND, self.key, FIT_VERSION)
        finally:
            database.close()

    def write_bytes(self, data: bytes) -> None:
        database = open_cache(self.cache_dir)
        if database is not None:
            database.put(KIND, self.key, FIT_VERSION, data)
            database.close()

    def fingerprint(self) -> str:
        """A hash of the stored fit (``no fit`` when there is none): part of the analysis' key."""
        data = self.read_bytes()
        return hashlib.sha256(data).hexdigest() if data is not None else "no fit"

    def load(self) -> DigestFit | None:
        """The stored fit, or ``None`` when there is none or it is unusable."""
        data = self.read_bytes()
        if data is None:
            return None
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as archive:
                return self._decode(dict(archive))
        except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):  # damaged or foreign
            return None

    def _decode(self, arrays: dict[str, np.ndarray]) -> DigestFit | None:
        meta = json.loads(str(arrays["meta"]))
        if meta.get("version") != FIT_VERSION or meta.get("model") != self.model_name:
            return None
        keys = tuple(str(key) for key in arrays["keys"])
        terms, idf = arrays["terms"], arrays["idf"]
        positions = arrays["positions"].astype(np.float64)
        centres = arrays["centres"].astype(np.float64)
        labels = tuple(tuple(str(p) for p in label) for label in meta["labels"])
        mean = arrays["mean"] if meta["joint"] else None
        components = arrays["components"] if meta["lsa"] else None
        opening_mean = arrays["opening_mean"] if meta["opening"] else None
        title_mean = arrays["title_mean"] if meta["title"] else None
        projection = arrays["projection"] if meta["projected"] else None
        consistent = (
            positions.shape == (len(keys), 2)
            and np.isfinite(positions).all()
            and terms.shape == idf.shape
            and len(labels) == len(centres)
            and (components is None or components.shape[1] == len(terms))
            and all(
                view is None or (mean is not None and view.shape == mean.shape)
                for view in (opening_mean, title_mean)
            )
            and (projection is None or projection.ndim == 2)
            and (mean is None or (centres.ndim == 2 and centres.shape[1] >= len(mean)) or not len(centres))
        )
        if not consistent:
            return None
        space = SpaceFit(
            terms=terms,
            idf=idf.astype(np.float32),
            mean=None if mean is None else mean.astype(np.float32),
            semantic_spread=float(meta["semantic_spread"]),
            components=None if components is None else components.astype(np.float32),
            topical_spread=float(meta["topical_spread"]),
            opening_mean=None if opening_mean is None else opening_mean.astype(np.float32),
            opening_spread=float(meta["opening_spread"]),
            title_mean=None if title_mean is None else title_mean.astype(np.float32),
            title_spread=float(meta["title_spread"]),
            projection=None if projection is None else projection.astype(np.float32),
        )
        return DigestFit(
            model_name=self.model_name,
            paper_keys=keys,
            space=space,
            topics=TopicFit(centres=centres, labels=labels),
            positions=positions,
            map_method=str(meta["map_method"]),
        )

    def save(self, fit: DigestFit) -> None:
        """Best effort: a read-only cache folder costs a refit next time, not the build."""
        space = fit.space
        meta = {
            "version": FIT_VERSION,
            "model": fit.model_name,
            "joint": space.mean is not None,
            "lsa": space.components is not None,
            "semantic_spread": space.semantic_spread,
            "topical_spread": space.topical_spread,
            "opening": space.opening_mean is not None,
            "opening_spread": space.opening_spread,
            "title": space.title_mean is not None,
            "title_spread": space.title_spread,
            "projected": space.projection is not None,
            "labels": [list(label) for label in fit.topics.labels],
            "map_method": fit.map_method,
        }
        arrays = {
            "meta": np.array(json.dumps(meta)),
            "keys": np.array(fit.paper_keys, dtype=str),
            "positions": np.asarray(fit.positions, dtype=np.float64),
            "terms": np.asarray(space.terms, dtype=str),
            "idf": space.idf,
            "mean": _or_empty(space.mean),
            "components": space.components if space.components is not None else np.zeros((0, 0)),
            "opening_mean": _or_empty(space.opening_mean),
            "title_mean": _or_empty(space.title_mean),
            "projection": space.projection if space.projection is not None else np.zeros((0, 0)),
            "centres": fit.topics.centres,
        }
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        self.write_bytes(buffer.getvalue())


def _or_empty(vector: np.ndarray | None) -> np.ndarray:
    return vector if vector is not None else np.zeros(0, dtype=np.float32)

"""The digest-wide fit (``generator.analysis.fit``) stored between builds: one row of the cache
database per model, a NumPy archive (no pickled objects)."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import numpy as np

from generator.analysis.fit import FIT_VERSION, DigestFit
from generator.analysis.related import SpaceFit
from generator.analysis.topics import TopicFit
from generator.cache.database import CacheDatabase

KIND = "digest fit"


class FitStore:
    """One stored fit per model, a NumPy archive (no pickled objects) in the cache database."""

    def __init__(self, database: CacheDatabase | None, model_name: str) -> None:
        self.database = database
        self.key = hashlib.sha256(f"{FIT_VERSION}\0{model_name}".encode()).hexdigest()[:16]
        self.model_name = model_name

    def read_bytes(self) -> bytes | None:
        if self.database is None:
            return None
        return self.database.get(KIND, self.key, FIT_VERSION)

    def write_bytes(self, data: bytes) -> None:
        if self.database is not None:
            self.database.put(KIND, self.key, FIT_VERSION, data)

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

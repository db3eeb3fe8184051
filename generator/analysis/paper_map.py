"""The paper map: a 2-D layout of the papers, reusable by the matrix it was computed from.

The map lays out the vectors related papers are found in (``PaperSpace.expanded``), so what sits
close on the map is what the paper pages call related. t-SNE (scikit-learn, cosine distance) keeps
the most of each paper's neighbourhood of the methods measured on ICML 2024 (42% of the 10 nearest
neighbours of the embeddings, against 31% for UMAP and 4% for PCA) and needs no new dependency. On
the expanded vectors, 62% of a paper's 10 most related papers are among its 10 nearest points on the
map and 75% of those points share its topic (t-SNE of the plain embeddings: 40% and 58%).

t-SNE is deterministic with a fixed seed, but costs 10-30 s at 2,634 papers and grows as N log N
(minutes at 10k), so the build stores a fresh t-SNE layout under a hash of the input matrix
(``layout_key``) and gives it back to the next one (``known``). Small digests, and any t-SNE
failure, get PCA, which is instant.

A fresh t-SNE runs in a worker process (``start_map_layout``), so the build renders the pages and
runs MkDocs meanwhile: both are single-threaded Python, and t-SNE needs one core. In a thread
instead, the two fought over the GIL: t-SNE beside a busy Python loop took 25 s instead of 8 s.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from generator.analysis.related import one_thread

LAYOUT_VERSION = "tsne-cosine-pca-init-2"
"""A stored layout's version (``layout_version``): change it when the layout method or its settings change."""
LARGE_LAYOUT_VERSION = "opentsne-fft-cosine-pca-init-1"
"""The same for the layout of digests from ``FFT_TSNE_FROM`` papers."""
FFT_TSNE_FROM = 5_000
"""From this many papers t-SNE is openTSNE's FIt-SNE (approximate neighbours, gradients
interpolated on a grid by FFT: O(N)) instead of scikit-learn's Barnes-Hut (exact neighbours, O(N log N)
with a larger constant), which at 50k papers (``benchmarks/scale.py``) laid the map out in its worker
within the build. Below this size scikit-learn's layout is kept, as measured on ICML 2024."""
MIN_PAPERS_FOR_TSNE = 50
"""Below this a t-SNE neighbourhood (perplexity) spans most of the digest and shows nothing PCA does not."""
PERPLEXITY = 30.0


@dataclass(frozen=True)
class MapLayout:
    positions: np.ndarray
    """(N, 2), inside the unit square; both axes share one scale, so distances read truly."""
    method: str
    """"t-SNE" or "PCA"."""
    from_cache: bool = False


def map_layout(vectors: np.ndarray, known: Mapping[str, np.ndarray] | None = None) -> MapLayout:
    """A 2-D position for each paper from its (L2-normalised) vector; taken from ``known`` (layouts
    by ``layout_key``) when the same vectors were laid out before."""
    return start_map_layout(vectors, known).result()


class MapJob:
    """A layout that is ready, or that t-SNE is computing in a worker process."""

    def __init__(
        self, layout: MapLayout | None = None, vectors: np.ndarray | None = None, key: str | None = None
    ) -> None:
        """Ready with ``layout``; else started on ``vectors``, whose ``layout_key`` is ``key``."""
        self._layout = layout
        self._vectors = vectors
        self.key = key
        """The layout's ``layout_key`` when it is laid out here, fresh (``fresh``): one to store."""
        self._process: subprocess.Popen[bytes] | None = None
        self._folder: Path | None = None
        if layout is None:
            self._start()

    def _start(self) -> None:
        # A new interpreter running this module, given the vectors in a file: not a fork (of torch's
        # threads), and not multiprocessing's spawn, which runs the caller's main script again.
        self._folder = Path(tempfile.mkdtemp(prefix="paper-digest-map-"))
        np.save(self._folder / WORKER_INPUT, self._vectors)
        package_parent = str(Path(__file__).resolve().parent.parent)
        path = os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(self._folder)],
                env={**os.environ, "PYTHONPATH": path},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError:  # no worker: ``result`` lays out in this process
            self._process = None

    @property
    def done(self) -> bool:
        return self._layout is not None or (self._process is not None and self._process.poll() is not None)

    def result(self) -> MapLayout:
        if self._layout is None:
            self._layout = self._finish()
        return self._layout

    def _finish(self) -> MapLayout:
        assert self._vectors is not None
        laid_out = None
        if self._process is not None and self._process.wait() == 0 and self._folder is not None:
            laid_out = _read_worker_output(self._folder / WORKER_OUTPUT, len(self._vectors))
        self._remove_folder()
        if laid_out is None:  # the worker failed or died: lay out here instead
            with one_thread():
                laid_out = _fresh_layout(self._vectors)
        positions, method = laid_out
        return MapLayout(positions, method)

    def fresh(self) -> tuple[str, np.ndarray] | None:
        """The finished layout and its key when it is a fresh t-SNE one: worth keeping for the next
        build (PCA is instant, and a layout given in is stored already)."""
        layout = self.result()
        if self.key is None or layout.method != "t-SNE" or layout.from_cache:
            return None
        return self.key, layout.positions

    def cancel(self) -> None:
        """Stop the worker, if any (the build failed or was interrupted)."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            self._process.wait()
        self._remove_folder()

    def _remove_folder(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


def start_map_layout(vectors: np.ndarray, known: Mapping[str, np.ndarray] | None = None) -> MapJob:
    """The layout of ``vectors``: at once when it is instant (a small digest) or ``known`` (earlier
    layouts by ``layout_key``), else started by t-SNE in a worker process; ``MapJob.result`` waits
    for it."""
    count = len(vectors)
    if count < 3:  # nothing to lay out: one point in the middle, or two side by side
        points = np.column_stack([np.arange(count), np.zeros(count)])
        return MapJob(MapLayout(_fit_unit_square(points), "PCA"))
    if count < MIN_PAPERS_FOR_TSNE:
        with one_thread():
            return MapJob(MapLayout(_fit_unit_square(_pca(vectors)), "PCA"))
    key = layout_key(vectors)
    positions = (known or {}).get(key)
    if positions is not None and positions.shape == (count, 2) and np.isfinite(positions).all():
        return MapJob(MapLayout(positions.astype(np.float64), "t-SNE", from_cache=True))
    return MapJob(vectors=np.ascontiguousarray(vectors, dtype=np.float32), key=key)


def _fresh_layout(vectors: np.ndarray) -> tuple[np.ndarray, str]:
    try:
        return _fit_unit_square(_tsne(vectors)), "t-SNE"
    except (ValueError, MemoryError, FloatingPointError):
        return _fit_unit_square(_pca(vectors)), "PCA"


def layout_version(count: int) -> str:
    """The version a stored layout of ``count`` papers is written with: another is not read."""
    return LARGE_LAYOUT_VERSION if count >= FFT_TSNE_FROM else LAYOUT_VERSION


def _tsne(vectors: np.ndarray) -> np.ndarray:
    if len(vectors) >= FFT_TSNE_FROM:
        return _fft_tsne(vectors)
    from sklearn.manifold import TSNE

    perplexity = min(PERPLEXITY, (len(vectors) - 1) / 3)
    model = TSNE(n_components=2, metric="cosine", init="pca", perplexity=perplexity, random_state=0)
    return model.fit_transform(vectors.astype(np.float32))


def _fft_tsne(vectors: np.ndarray) -> np.ndarray:
    from openTSNE import TSNE

    model = TSNE(
        n_components=2,
        perplexity=PERPLEXITY,
        metric="cosine",
        initialization="pca",
        negative_gradient_method="fft",
        neighbors="annoy",
        n_jobs=1,  # the worker has one core; MkDocs has the other
        random_state=0,
        verbose=False,
    )
    return np.asarray(model.fit(vectors.astype(np.float32)))


def _pca(vectors: np.ndarray) -> np.ndarray:
    from sklearn.decomposition import PCA

    data = vectors.astype(np.float32)
    components = min(2, data.shape[1], len(data))
    projected = PCA(n_components=components, random_state=0).fit_transform(data)
    return np.pad(projected, ((0, 0), (0, 2 - components)))


def _fit_unit_square(points: np.ndarray) -> np.ndarray:
    """Shift and scale (one factor for both axes) into [0, 1]², centred along the shorter side."""
    points = np.asarray(points, dtype=np.float64)
    if not len(points):
        return points.reshape(0, 2)
    low, high = points.min(axis=0), points.max(axis=0)
    extent = float((high - low).max())
    if extent <= 0:
        return np.full_like(points, 0.5)
    return (points - low) / extent + (1.0 - (high - low) / extent) / 2


def layout_key(vectors: np.ndarray) -> str:
    """A layout's content key: the matrix laid out."""
    data = np.ascontiguousarray(vectors, dtype=np.float32)
    digest = hashlib.sha256(f"{data.shape}\0".encode())
    digest.update(data.tobytes())
    return digest.hexdigest()


PLACEMENT_NEIGHBOURS = 5


def place_on_map(
    known: dict[str, tuple[float, float]], keys: list[str], vectors: np.ndarray, method: str
) -> MapLayout:
    """Positions from an earlier layout for the papers it knows (by ``keys``); each new or edited
    paper goes where its nearest known papers are (weighted by similarity³, as the query expansion),
    so the map does not reshuffle when one abstract changes. ``vectors`` are L2-normalised rows."""
    positions = np.full((len(keys), 2), 0.5)
    placed = np.array([key in known for key in keys], dtype=bool)
    for row in np.flatnonzero(placed):
        positions[row] = known[keys[row]]
    anchors = np.flatnonzero(placed)
    for row in np.flatnonzero(~placed):
        if not len(anchors):
            break
        similarity = vectors[anchors] @ vectors[row]
        nearest = np.argsort(-similarity, kind="stable")[:PLACEMENT_NEIGHBOURS]
        weights = np.clip(similarity[nearest], 0.0, None) ** 3
        if weights.sum() > 0:
            positions[row] = weights @ positions[anchors[nearest]] / weights.sum()
        else:
            positions[row] = positions[anchors].mean(axis=0)
    return MapLayout(positions, method, from_cache=True)


WORKER_INPUT = "vectors.npy"
WORKER_OUTPUT = "layout.npz"


def _read_worker_output(path: Path, count: int) -> tuple[np.ndarray, str] | None:
    try:
        with np.load(path, allow_pickle=False) as stored:
            positions, method = stored["positions"], str(stored["method"])
    except (OSError, ValueError, KeyError, EOFError):
        return None
    if positions.shape != (count, 2) or not np.isfinite(positions).all() or method not in ("t-SNE", "PCA"):
        return None
    return positions.astype(np.float64), method


def _run_worker(folder: Path) -> None:
    vectors = np.load(folder / WORKER_INPUT, allow_pickle=False)
    with one_thread():
        positions, method = _fresh_layout(vectors)
    # Read only once this process has exited without an error, so no need to write it atomically.
    np.savez(folder / WORKER_OUTPUT, positions=positions, method=np.array(method))


if __name__ == "__main__":  # the worker MapJob starts
    _run_worker(Path(sys.argv[1]))

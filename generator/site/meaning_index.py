"""The files search by meaning reads in the reader's browser (``javascripts/meaning.js``).

The browser embeds the reader's text with the digest's own model (``generator.analysis.onnx_export``)
and ranks papers by the cosine of their build vectors. The vectors ship quantised to int8 with one
float32 scale per vector (a quarter of float32's bytes; cosines move by about 0.002). Past
``SINGLE_CLUSTER_PAPERS`` papers they are partitioned, an inverted file (IVF): k-means centroids and
a vector file per cluster. A query scores the centroids and fetches the vector files of the closest
``probe`` clusters only. What a result shows (id, address, title, authors, opening) is in files of
``RESULTS_PER_FILE`` papers each, in the vector files' order, and a query fetches those of its ten
results only. ``probe`` is chosen at build time: the fewest clusters at which stand-ins for readers'
questions find ≥ ``TARGET_RECALL`` of their exact ten nearest papers (``stand_in_queries``).

Layout, under ``meaning/``: ``index.json`` (settings, cluster sizes, ``probe``), ``centroids.bin``,
``vectors-K.bin`` per cluster, ``papers-K.json`` per ``RESULTS_PER_FILE`` papers, the model and its
vocabulary. A vector file is ``n`` little-endian float32 scales, then ``n × dimensions`` int8 values.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from generator.analysis.onnx_export import OnnxModel

FOLDER = "meaning"
INDEX_FILE = f"{FOLDER}/index.json"
MODEL_FILE = f"{FOLDER}/model.onnx"
VOCABULARY_FILE = f"{FOLDER}/vocab.txt"
FORMAT = 1
SINGLE_CLUSTER_PAPERS = 3500
"""Up to this many papers, one vector file (1.36 MB at 3,500 papers) is fetched whole: exact search."""
RESULTS_PER_FILE = 100
"""Papers per result file (about 33 KB): a query fetches at most ten of them."""
PAPERS_PER_CLUSTER = 100
"""Clusters past the single one: at 50,000 papers, 500 centroids (0.2 MB) and 39 KB per cluster."""
TARGET_RECALL = 0.98
"""Of the stand-in questions' exact ten nearest papers, found by the probed clusters."""
QUERY_COSINE = 0.3
"""How close a stand-in question is to the paper it is drawn near. Readers' questions (track and
session names, author keywords) have a median cosine of 0.48 to their nearest paper and titles 0.84,
but broad questions spread their ten nearest papers over many clusters: at 3,823 papers (CVPR 2019 and
the NLP set, 39 clusters), stand-ins at 0.84 (titles), 0.5, 0.35 and 0.3 chose 12, 14, 17 and 19
clusters, whose recall@10 for 432 real questions was 0.87, 0.89, 0.92 and 0.94
(``benchmarks/meaning_ivf.py``)."""
MAX_PROBE_BYTES = 1_200_000
"""What the probed vector files may add up to (with the centroids, result files and index, one query
stays within 1.5 MB beyond the model)."""
SNIPPET_CHARACTERS = 140


@dataclass(frozen=True)
class MeaningPaper:
    id: str
    url: str
    """From the site's root."""
    title: str
    authors: str
    snippet: str
    """The abstract's opening, plain text: shown under a result that word search did not find."""


def quantised(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row as int8 values and the float32 scale that multiplies them back."""
    vectors = np.asarray(vectors, dtype=np.float32)
    peaks = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, dtype=np.float32)
    scales = np.where(peaks > 0, peaks / 127.0, 1.0).astype(np.float32)
    values = np.clip(np.rint(vectors / scales[:, None]), -127, 127).astype(np.int8)
    return scales, values


def vectors_file(vectors: np.ndarray) -> bytes:
    scales, values = quantised(vectors)
    return scales.astype("<f4").tobytes() + values.tobytes()


def read_vectors_file(data: bytes, dimensions: int) -> np.ndarray:
    """The float32 vectors a vector file holds (as the browser reads it)."""
    count = len(data) // (4 + dimensions)
    scales = np.frombuffer(data[: 4 * count], dtype="<f4")
    values = np.frombuffer(data[4 * count :], dtype=np.int8).reshape(count, dimensions)
    return values.astype(np.float32) * scales[:, None]


@dataclass(frozen=True)
class Partition:
    labels: np.ndarray
    """Each paper's cluster."""
    centroids: np.ndarray
    probe: int
    recall: float
    """Of the titles' exact ten nearest papers, the share the probed clusters hold."""


def cluster_count(papers: int) -> int:
    return 1 if papers <= SINGLE_CLUSTER_PAPERS else math.ceil(papers / PAPERS_PER_CLUSTER)


def stand_in_queries(vectors: np.ndarray, count: int = 500, seed: int = 0) -> np.ndarray:
    """Unit vectors at ``QUERY_COSINE`` from randomly drawn papers, in a random direction."""
    rng = np.random.default_rng(seed)
    base = vectors[rng.integers(0, len(vectors), count)].astype(np.float64)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    noise = rng.normal(size=base.shape)
    noise -= (noise * base).sum(axis=1, keepdims=True) * base
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    return (QUERY_COSINE * base + math.sqrt(1 - QUERY_COSINE**2) * noise).astype(np.float32)


def partition(vectors: np.ndarray, seed: int = 0) -> Partition:
    """The papers' clusters (spherical k-means), and how many a query must probe."""
    count = cluster_count(len(vectors))
    if count == 1:
        return Partition(np.zeros(len(vectors), dtype=np.int32), np.zeros((1, vectors.shape[1])), 1, 1.0)
    import faiss

    kmeans = faiss.Kmeans(vectors.shape[1], count, niter=20, spherical=True, seed=seed, verbose=False)
    kmeans.train(np.ascontiguousarray(vectors, dtype=np.float32))
    centroids = kmeans.centroids
    labels = (vectors @ centroids.T).argmax(axis=1).astype(np.int32)
    # The searched vectors are the quantised ones, as the browser has them.
    stored = read_vectors_file(vectors_file(vectors), vectors.shape[1])
    sizes = np.bincount(labels, minlength=count)
    probe, recall = probe_for(stored, labels, centroids, stand_in_queries(vectors, seed=seed), sizes)
    return Partition(labels, centroids, probe, recall)


def probe_for(
    stored: np.ndarray, labels: np.ndarray, centroids: np.ndarray, queries: np.ndarray, sizes: np.ndarray
) -> tuple[int, float]:
    """The fewest clusters to probe whose recall@10 on ``queries`` reaches ``TARGET_RECALL``, within
    ``MAX_PROBE_BYTES`` of vector files (the largest clusters counted); and that recall."""
    row_bytes = 4 + stored.shape[1]
    largest = np.sort(sizes)[::-1]
    affordable = max(1, int(np.searchsorted(np.cumsum(largest) * row_bytes, MAX_PROBE_BYTES, side="right")))
    rng = np.random.default_rng(0)
    sample = queries[rng.choice(len(queries), size=min(1000, len(queries)), replace=False)]
    exact = np.argsort(-(sample @ stored.T), axis=1)[:, :10]
    order = np.argsort(-(sample @ centroids.T), axis=1)
    found = np.zeros(len(sample))
    for probe in range(1, min(affordable, len(centroids)) + 1):
        found += np.array(
            [np.isin(labels[exact[row]], order[row, probe - 1]).sum() for row in range(len(sample))]
        )
        recall = float(found.sum() / exact.size)
        if recall >= TARGET_RECALL:
            return probe, recall
    return min(affordable, len(centroids)), recall


def meaning_files(
    papers: Sequence[MeaningPaper], vectors: np.ndarray, exported: OnnxModel
) -> dict[str, bytes]:
    """Every file of ``meaning/``; ``vectors`` are the papers' build vectors (one row each, normalised)."""
    if len(papers) != len(vectors):
        raise ValueError(f"{len(papers)} papers but {len(vectors)} vectors")
    split = partition(vectors)
    files: dict[str, bytes] = {}
    sizes = []
    stored_order = []
    for cluster in range(len(split.centroids)):
        members = np.flatnonzero(split.labels == cluster)
        sizes.append(len(members))
        stored_order += members.tolist()
        files[f"{FOLDER}/vectors-{cluster}.bin"] = vectors_file(vectors[members])
    for start in range(0, len(stored_order), RESULTS_PER_FILE):
        rows = [
            [papers[i].id, papers[i].url, papers[i].title, papers[i].authors, papers[i].snippet]
            for i in stored_order[start : start + RESULTS_PER_FILE]
        ]
        text = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
        files[f"{FOLDER}/papers-{start // RESULTS_PER_FILE}.json"] = text.encode("utf-8")
    if len(split.centroids) > 1:
        files[f"{FOLDER}/centroids.bin"] = vectors_file(split.centroids)
    index = {
        "format": FORMAT,
        "dimensions": int(vectors.shape[1]),
        "papers": len(papers),
        "clusters": sizes,
        "probe": split.probe,
        "recall": round(split.recall, 4),
        "results_per_file": RESULTS_PER_FILE,
        "tokenizer": exported.tokenizer_settings(),
    }
    files[INDEX_FILE] = json.dumps(index, separators=(",", ":")).encode("utf-8")
    files[MODEL_FILE] = exported.model_file.read_bytes()
    files[VOCABULARY_FILE] = exported.vocabulary_file.read_bytes()
    return files


def snippet(text: str, limit: int = SNIPPET_CHARACTERS) -> str:
    """The opening of ``text`` (plain), cut at a word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + " …"

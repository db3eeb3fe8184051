"""The files search by meaning reads in the reader's browser (``javascripts/meaning.js``).

The browser embeds the reader's text with the digest's own model (``generator.analysis.onnx_export``)
and ranks papers by the cosine of their build vectors. The vectors ship quantised to int8 with one
float32 scale per vector (a quarter of float32's bytes; cosines move by about 0.002).

Up to ``SINGLE_CLUSTER_PAPERS`` papers, one vector file is fetched whole: exact search. Past that, an
inverted file with product-quantised residuals (IVF-PQ, as FAISS's ``IndexIVFPQ``): k-means centroids,
and per cluster each paper's offset from its centroid coded in ``CODE_BYTES`` bytes (one of 256 learned
sub-vectors for each ``dimensions / CODE_BYTES`` axes). A query scores the centroids, reads the codes of
the closest ``probe`` clusters (as many as ``MAX_CODE_BYTES`` allow: the more, the more of the exact
ten are among them), estimates every probed paper's cosine from the codes (a lookup per byte), then
fetches the int8 vectors of the best ``RERANK`` estimates to rank them exactly. At 50,000 papers a
code is a twelfth of an int8 vector, so a query reads the codes of about half the papers where the
vectors themselves would allow 6 %: broad questions (a track name) have their ten nearest spread over
a third to half of the clusters.

What a result shows (id, address, title, authors, opening) is in files of ``RESULTS_PER_FILE`` papers
each, in the clusters' order, and a query fetches those of its ten results only. The ids alone, in the
same order, are in ``ids.json`` (Explore's order by closeness maps scores to its papers with them).

The quick query encoder (``generator.analysis.query_encoder``), when the digest's model has one:
``encoder-ids-H.bin`` (the kept tokens' vocabulary ids, int32), ``encoder-H.bin`` (their vectors),
``encoder-map-H.bin`` (the map into the papers' space, one row per encoder axis) and the hidden layer
added to the map, ``encoder-hidden-in-H.bin`` (one row per encoder axis) and
``encoder-hidden-out-H.bin`` (one row per hidden unit), in the vector format, ``H`` a hash of the
content: the names change when the bytes do, so a browser may keep them as long as it likes.
``index.json`` names them and holds the map's and the hidden layer's biases, and the full model's
download in bytes (the model, the runtime's WebAssembly and script), which the search box states.

Layout, under ``meaning/``: ``index.json``; ``vectors-0.bin`` (one cluster) or ``centroids.bin``,
``codebook.bin``, ``codes-K.bin`` per cluster and ``rows-F.bin`` per ``ROWS_PER_FILE`` papers;
``papers-F.json``; ``ids.json``; the model and its vocabulary. A vector file is ``n`` little-endian
float32 scales, then ``n × dimensions`` int8 values; the codebook is one, of ``CODE_BYTES × 256``
sub-vectors; a codes file is ``n × CODE_BYTES`` bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from generator.analysis.onnx_export import OnnxModel
from generator.analysis.query_encoder import QueryEncoder

FOLDER = "meaning"
INDEX_FILE = f"{FOLDER}/index.json"
MODEL_FILE = f"{FOLDER}/model.onnx"
VOCABULARY_FILE = f"{FOLDER}/vocab.txt"
FORMAT = 2
SINGLE_CLUSTER_PAPERS = 3500
"""Up to this many papers, one vector file (1.36 MB at 3,500 papers) is fetched whole: exact search."""
PAPERS_PER_CLUSTER = 200
"""Clusters past the single one: at 50,000 papers, 250 centroids (97 KB) and 9.6 KB of codes each."""
CODE_BYTES = 48
"""Bytes of a paper's code (8 axes a byte at 384 dimensions): finer estimates than 32 bytes, so fewer
papers are reranked (fewer requests) for the same recall."""
CODEWORDS = 256
MAX_CODE_BYTES = 1_000_000
"""What the probed codes files may add up to: with the centroids, codebook, reranked rows, result files
and index, one query stays within 1.5 MB beyond the model."""
RERANK = 200
"""Estimates whose int8 vectors are fetched and ranked exactly. At 50,000 papers and readers' queries
(`benchmarks/meaning_ivf.py`), 32-byte codes needed 300 of them for recall@10 0.96 (334 requests a
query); 48-byte codes reach 0.967 with 200 (250 requests)."""
ROWS_PER_FILE = 2
"""Int8 vectors per rows file (0.8 KB): the reranked papers are fetched two at a time (four a file
fetched 0.09 MB more a query for no recall)."""
RESULTS_PER_FILE = 25
"""Papers per result file (about 8 KB): a query fetches at most ten of them."""
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
    codebook: np.ndarray
    """``CODE_BYTES × CODEWORDS`` sub-vectors (fewer codewords below 256 papers), each of
    ``dimensions / CODE_BYTES`` axes."""
    codes: np.ndarray
    """Each paper's offset from its centroid: ``CODE_BYTES`` codeword numbers."""
    probe: int


def cluster_count(papers: int) -> int:
    return 1 if papers <= SINGLE_CLUSTER_PAPERS else math.ceil(papers / PAPERS_PER_CLUSTER)


def code_bytes(dimensions: int) -> int:
    """``CODE_BYTES``, or the largest divisor of ``dimensions`` below it (sub-vectors split the axes)."""
    return max(size for size in range(1, min(CODE_BYTES, dimensions) + 1) if dimensions % size == 0)


def partition(vectors: np.ndarray, seed: int = 0) -> Partition:
    """The papers' clusters (spherical k-means), their offsets' codes, and how many clusters a query
    reads: the most whose codes fit in ``MAX_CODE_BYTES`` (the largest clusters counted)."""
    count = cluster_count(len(vectors))
    dimensions = vectors.shape[1]
    if count == 1:
        empty = np.zeros((0, 1, 1), dtype=np.float32)
        return Partition(
            np.zeros(len(vectors), dtype=np.int32), np.zeros((1, dimensions)), empty, np.zeros((0, 0)), 1
        )
    import faiss

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    kmeans = faiss.Kmeans(dimensions, count, niter=20, spherical=True, seed=seed, verbose=False)
    kmeans.train(vectors)
    centroids = kmeans.centroids
    labels = (vectors @ centroids.T).argmax(axis=1).astype(np.int32)
    offsets = np.ascontiguousarray(vectors - centroids[labels])
    subvectors = code_bytes(dimensions)
    # k-means needs a point per codeword: a digest smaller than CODEWORDS (a test's) learns fewer.
    bits = min(int(math.log2(CODEWORDS)), int(math.log2(len(vectors))))
    quantizer = faiss.ProductQuantizer(dimensions, subvectors, bits)
    quantizer.cp.seed = seed
    quantizer.cp.min_points_per_centroid = 1  # a digest of 3,501 papers trains on what it has
    quantizer.train(offsets)
    codebook = faiss.vector_to_array(quantizer.centroids).reshape(subvectors, 2**bits, -1)
    # One byte per sub-vector whatever ``bits`` (FAISS packs fewer bits tighter): its nearest codeword.
    parts = offsets.reshape(len(offsets), subvectors, -1)
    codes = np.empty((len(offsets), subvectors), dtype=np.uint8)
    for part in range(subvectors):
        words = codebook[part]
        distances = (words**2).sum(axis=1)[None, :] - 2 * parts[:, part] @ words.T
        codes[:, part] = distances.argmin(axis=1)
    sizes = np.sort(np.bincount(labels, minlength=count))[::-1]
    affordable = int(np.searchsorted(np.cumsum(sizes) * subvectors, MAX_CODE_BYTES, side="right"))
    return Partition(labels, centroids, codebook, codes, max(1, min(affordable, count)))


def estimated_scores(
    query: np.ndarray, centroid_score: float, codebook: np.ndarray, codes: np.ndarray
) -> np.ndarray:
    """Each coded paper's cosine to ``query`` as the browser estimates it: the centroid's, plus one
    looked-up dot product per code byte."""
    subvectors, _, width = codebook.shape
    table = np.einsum("sw,scw->sc", query.reshape(subvectors, width), codebook)
    return centroid_score + table[np.arange(subvectors), codes.astype(np.intp)].sum(axis=1)


def hashed_name(stem: str, data: bytes) -> str:
    return f"{stem}-{hashlib.sha256(data).hexdigest()[:12]}.bin"


def encoder_files(encoder: QueryEncoder) -> tuple[dict[str, bytes], dict[str, object]]:
    """The quick encoder's files (by their hashed names, under ``meaning/``) and what ``index.json``
    says of them."""
    parts = {
        "ids": ("encoder-ids", encoder.token_ids.astype("<i4").tobytes()),
        "vectors": ("encoder", vectors_file(encoder.token_vectors)),
        "map": ("encoder-map", vectors_file(encoder.map)),
        "hidden_in": ("encoder-hidden-in", vectors_file(encoder.hidden_in)),
        "hidden_out": ("encoder-hidden-out", vectors_file(encoder.hidden_out)),
    }
    names = {key: hashed_name(stem, data) for key, (stem, data) in parts.items()}
    files = {f"{FOLDER}/{names[key]}": data for key, (_, data) in parts.items()}
    described: dict[str, object] = {
        **names,
        "dimensions": int(encoder.token_vectors.shape[1]),
        "bias": [round(float(value), 7) for value in encoder.bias],
        "hidden": int(encoder.hidden_in.shape[1]),
        "hidden_bias": [round(float(value), 7) for value in encoder.hidden_bias],
    }
    return files, described


def meaning_files(
    papers: Sequence[MeaningPaper],
    vectors: np.ndarray,
    exported: OnnxModel,
    encoder: QueryEncoder | None = None,
    runtime_bytes: int = 0,
) -> dict[str, bytes]:
    """Every file of ``meaning/``; ``vectors`` are the papers' build vectors (one row each, normalised);
    ``runtime_bytes`` what the full model's runtime adds to its download (stated to the reader)."""
    if len(papers) != len(vectors):
        raise ValueError(f"{len(papers)} papers but {len(vectors)} vectors")
    split = partition(vectors)
    clusters = len(split.centroids)
    stored_order = np.argsort(split.labels, kind="stable")
    sizes = np.bincount(split.labels, minlength=clusters)
    files: dict[str, bytes] = {}
    if clusters == 1:
        files[f"{FOLDER}/vectors-0.bin"] = vectors_file(vectors)
    else:
        files[f"{FOLDER}/centroids.bin"] = vectors_file(split.centroids)
        files[f"{FOLDER}/codebook.bin"] = vectors_file(split.codebook.reshape(-1, split.codebook.shape[2]))
        codes = split.codes[stored_order]
        starts = np.concatenate([[0], np.cumsum(sizes)])
        for cluster in range(clusters):
            files[f"{FOLDER}/codes-{cluster}.bin"] = codes[starts[cluster] : starts[cluster + 1]].tobytes()
        stored = vectors[stored_order]
        for start in range(0, len(stored), ROWS_PER_FILE):
            rows = stored[start : start + ROWS_PER_FILE]
            files[f"{FOLDER}/rows-{start // ROWS_PER_FILE}.bin"] = vectors_file(rows)
    for start in range(0, len(stored_order), RESULTS_PER_FILE):
        rows = [
            [papers[i].id, papers[i].url, papers[i].title, papers[i].authors, papers[i].snippet]
            for i in stored_order[start : start + RESULTS_PER_FILE]
        ]
        text = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
        files[f"{FOLDER}/papers-{start // RESULTS_PER_FILE}.json"] = text.encode("utf-8")
    ids = [papers[i].id for i in stored_order]
    files[f"{FOLDER}/ids.json"] = json.dumps(ids, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    index = {
        "format": FORMAT,
        "dimensions": int(vectors.shape[1]),
        "papers": len(papers),
        "clusters": sizes.tolist(),
        "probe": split.probe,
        "code_bytes": int(split.codebook.shape[0]),
        "codewords": int(split.codebook.shape[1]),
        "rerank": RERANK,
        "rows_per_file": ROWS_PER_FILE,
        "results_per_file": RESULTS_PER_FILE,
        "tokenizer": exported.tokenizer_settings(),
        "full_model_bytes": exported.model_file.stat().st_size + runtime_bytes,
    }
    if encoder is not None:
        if encoder.map.shape[1] != vectors.shape[1]:
            raise ValueError(f"the query encoder maps to {encoder.map.shape[1]} axes, not {vectors.shape[1]}")
        encoded, index["encoder"] = encoder_files(encoder)
        files.update(encoded)
    files[INDEX_FILE] = json.dumps(index, separators=(",", ":")).encode("utf-8")
    files[MODEL_FILE] = exported.model_file.read_bytes()
    files[VOCABULARY_FILE] = exported.vocabulary_file.read_bytes()
    return files


def search_files(files: dict[str, bytes], query: np.ndarray, count: int = 10) -> tuple[list[int], set[str]]:
    """The ``count`` best places (in the files' order) for ``query`` and the files fetched for them
    beyond the model and the index: the steps ``javascripts/meaning.js`` takes, for the benchmarks and
    tests to check the files with."""
    index = json.loads(files[INDEX_FILE])
    dimensions = index["dimensions"]
    sizes = index["clusters"]
    if len(sizes) == 1:
        stored = read_vectors_file(files[f"{FOLDER}/vectors-0.bin"], dimensions)
        best = np.argsort(-(stored @ query), kind="stable")[:count].tolist()
        fetched = {f"{FOLDER}/vectors-0.bin"}
    else:
        centroids = read_vectors_file(files[f"{FOLDER}/centroids.bin"], dimensions)
        codebook = read_vectors_file(files[f"{FOLDER}/codebook.bin"], dimensions // index["code_bytes"])
        codebook = codebook.reshape(index["code_bytes"], index["codewords"], -1)
        centroid_scores = centroids @ query
        probed = np.argsort(-centroid_scores, kind="stable")[: index["probe"]]
        starts = np.concatenate([[0], np.cumsum(sizes)])
        fetched = {f"{FOLDER}/centroids.bin", f"{FOLDER}/codebook.bin"}
        places, estimates = [], []
        for cluster in probed:
            name = f"{FOLDER}/codes-{cluster}.bin"
            fetched.add(name)
            codes = np.frombuffer(files[name], dtype=np.uint8).reshape(-1, index["code_bytes"])
            places.append(np.arange(starts[cluster], starts[cluster + 1]))
            estimates.append(estimated_scores(query, centroid_scores[cluster], codebook, codes))
        place = np.concatenate(places)
        shortlist = place[np.argsort(-np.concatenate(estimates), kind="stable")[: index["rerank"]]]
        per_file = index["rows_per_file"]
        exact = []
        for candidate in shortlist:
            name = f"{FOLDER}/rows-{candidate // per_file}.bin"
            fetched.add(name)
            exact.append(read_vectors_file(files[name], dimensions)[candidate % per_file] @ query)
        best = shortlist[np.argsort(-np.array(exact), kind="stable")[:count]].tolist()
    fetched |= {f"{FOLDER}/papers-{place // index['results_per_file']}.json" for place in best}
    return best, fetched


def read_encoder_files(files: dict[str, bytes]) -> QueryEncoder | None:
    """The quick encoder as the browser reads it from the files (int8 values times their scales)."""
    index = json.loads(files[INDEX_FILE])
    described = index.get("encoder")
    if described is None:
        return None
    token_ids = np.frombuffer(files[f"{FOLDER}/{described['ids']}"], dtype="<i4")
    vectors = read_vectors_file(files[f"{FOLDER}/{described['vectors']}"], described["dimensions"])
    mapping = read_vectors_file(files[f"{FOLDER}/{described['map']}"], index["dimensions"])
    hidden_in = read_vectors_file(files[f"{FOLDER}/{described['hidden_in']}"], described["hidden"])
    hidden_out = read_vectors_file(files[f"{FOLDER}/{described['hidden_out']}"], index["dimensions"])
    return QueryEncoder(
        token_ids,
        vectors,
        mapping,
        np.array(described["bias"], dtype=np.float32),
        hidden_in,
        np.array(described["hidden_bias"], dtype=np.float32),
        hidden_out,
    )


def all_stored_vectors(files: dict[str, bytes]) -> np.ndarray:
    index = json.loads(files[INDEX_FILE])
    if len(index["clusters"]) == 1:
        return read_vectors_file(files[f"{FOLDER}/vectors-0.bin"], index["dimensions"])
    count = -(-index["papers"] // index["rows_per_file"])
    return np.concatenate(
        [read_vectors_file(files[f"{FOLDER}/rows-{f}.bin"], index["dimensions"]) for f in range(count)]
    )


def snippet(text: str, limit: int = SNIPPET_CHARACTERS) -> str:
    """The opening of ``text`` (plain), cut at a word."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + " …"

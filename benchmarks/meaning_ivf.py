"""The inverted file of search by meaning at size: recall@10 of the probed clusters against the exact
search over the same int8 vectors, for readers' queries, and the bytes one query fetches beyond the
model (index, centroids, the probed vector files, the result files of the clusters its ten results
are in), from the files ``generator.site.meaning_index.meaning_files`` writes.

    PYTHONPATH=. python benchmarks/meaning_ivf.py PAPER_VECTORS.npy CORPORA_DIR

Queries: the three relevance query sets' texts (``search_relevance.py``) and its questions, embedded
by the exported model as a browser embeds them.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from benchmarks.meaning_search import QUESTIONS
from benchmarks.search_relevance import SETS, query_set
from generator.analysis.onnx_export import OnnxEmbedder, onnx_model
from generator.site.meaning_index import (
    INDEX_FILE,
    RESULTS_PER_FILE,
    MeaningPaper,
    cluster_count,
    meaning_files,
    read_vectors_file,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vectors", type=Path)
    parser.add_argument("corpora", type=Path)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/meaning/cache"))
    args = parser.parse_args()
    vectors = np.load(args.vectors).astype(np.float32)
    texts = list(QUESTIONS)
    for corpus, field, least in SETS.values():
        rows = [json.loads(line) for line in (args.corpora / corpus).read_text(encoding="utf-8").splitlines()]
        texts += list(query_set(rows, field, least))
    exported = onnx_model(args.cache)
    queries = OnnxEmbedder(exported).embed(texts)
    # Result files hold what a result shows; a typical paper's: a 60-character address, an 80-character
    # title, 60 of authors and the 140-character opening.
    papers = [
        MeaningPaper(f"paper:{i}", f"papers/{'x' * 50}-{i}/", "t" * 80, "a" * 60, "s" * 140)
        for i in range(len(vectors))
    ]
    started = time.perf_counter()
    files = meaning_files(papers, vectors, exported)
    seconds = time.perf_counter() - started
    index = json.loads(files[INDEX_FILE])
    sizes = index["clusters"]
    dimensions = vectors.shape[1]
    stored = np.concatenate(
        [read_vectors_file(files[f"meaning/vectors-{c}.bin"], dimensions) for c in range(len(sizes))]
    )
    members = np.concatenate(
        [
            [int(row[0].split(":")[1]) for row in json.loads(files[f"meaning/papers-{c}.json"])]
            for c in range(len(sizes))
        ]
    )
    cluster_of = np.repeat(np.arange(len(sizes)), sizes)
    centroids = (
        read_vectors_file(files["meaning/centroids.bin"], dimensions)
        if len(sizes) > 1
        else np.zeros((1, dimensions))
    )
    exact = np.argsort(-(queries @ stored.T), axis=1)[:, :10]
    probed = np.argsort(-(queries @ centroids.T), axis=1)[:, : index["probe"]]
    recalls, fetched = [], []
    fixed = len(files[INDEX_FILE]) + len(files.get("meaning/centroids.bin", b""))
    for row in range(len(queries)):
        inside = np.isin(cluster_of, probed[row])
        candidates = np.flatnonzero(inside)
        found = candidates[np.argsort(-(stored[candidates] @ queries[row]))[:10]]
        recalls.append(len(set(found) & set(exact[row])) / 10)
        vector_bytes = sum(len(files[f"meaning/vectors-{c}.bin"]) for c in probed[row])
        result_bytes = sum(
            len(files[f"meaning/papers-{f}.json"]) for f in {p // RESULTS_PER_FILE for p in found}
        )
        fetched.append(fixed + vector_bytes + result_bytes)
    print(
        json.dumps(
            {
                "papers": len(vectors),
                "clusters": cluster_count(len(vectors)),
                "probe": index["probe"],
                "stand_in_recall_at_build": index["recall"],
                "queries": len(queries),
                "recall_at_10_mean": round(float(np.mean(recalls)), 4),
                "recall_at_10_min": float(np.min(recalls)),
                "bytes_per_query_median": int(np.median(fetched)),
                "bytes_per_query_max": int(np.max(fetched)),
                "meaning_files_seconds": round(seconds, 1),
                "papers_checked": bool((np.sort(members) == np.arange(len(vectors))).all()),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()

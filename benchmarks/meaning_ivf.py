"""The inverted file of search by meaning at size: recall@10 against the exact search over the same
int8 vectors, for readers' queries, and the bytes one query fetches beyond the model, by the steps
``javascripts/meaning.js`` takes over the files ``generator.site.meaning_index.meaning_files`` writes
(centroids, the probed clusters' codes, the reranked rows, the result files of the ten results).

    PYTHONPATH=. python benchmarks/meaning_ivf.py PAPER_VECTORS.npy CORPORA_DIR [--set NAME=VALUE ...]

``--set`` overrides a setting of ``meaning_index`` (e.g. ``--set RERANK=50``) to compare layouts.
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
from generator.analysis.onnx_export import OnnxEmbedder
from generator.cache.models import onnx_model
from generator.site import meaning_index
from generator.site.meaning_index import (
    INDEX_FILE,
    MeaningPaper,
    all_stored_vectors,
    meaning_files,
    search_files,
)

FOLDER = meaning_index.FOLDER


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vectors", type=Path)
    parser.add_argument("corpora", type=Path)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/meaning/cache"))
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    for setting in args.set:
        name, _, value = setting.partition("=")
        setattr(meaning_index, name, int(value))
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
    stored = all_stored_vectors(files)
    ids = json.loads(files[f"{FOLDER}/ids.json"])
    recalls, fetched_bytes, requests = [], [], []
    for query in queries:
        exact = set(np.argsort(-(stored @ query), kind="stable")[:10].tolist())
        best, fetched = search_files(files, query)
        recalls.append(len(exact & set(best)) / 10)
        fetched_bytes.append(len(files[INDEX_FILE]) + sum(len(files[name]) for name in fetched))
        requests.append(1 + len(fetched))
    print(
        json.dumps(
            {
                "papers": len(vectors),
                "clusters": len(index["clusters"]),
                "probe": index["probe"],
                "settings": args.set,
                "queries": len(queries),
                "recall_at_10_mean": round(float(np.mean(recalls)), 4),
                "recall_at_10_min": float(np.min(recalls)),
                "queries_below_0.8": int(np.sum(np.array(recalls) < 0.8)),
                "bytes_per_query_median": int(np.median(fetched_bytes)),
                "bytes_per_query_max": int(np.max(fetched_bytes)),
                "requests_per_query_median": int(np.median(requests)),
                "requests_per_query_max": int(np.max(requests)),
                "files": len(files),
                "meaning_files_seconds": round(seconds, 1),
                "papers_checked": sorted(int(i.split(":")[1]) for i in ids) == list(range(len(vectors))),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()

"""The approximate neighbour search against the exact one, on a real corpus: recall and time.

    python benchmarks/ann_recall.py [CORPUS.jsonl] [--cache-dir DIR] [--count 5]

(default corpus: ../shared/corpora/scale_50k.jsonl). The papers are read, titled and embedded by the
project's own code through its cached embedder (a ``--cache-dir`` a build of the same corpus filled
embeds nothing), put into the joint space, and both neighbour passes of the related papers run twice:
over every row (exact) and through the HNSW graph ``nearest_neighbours`` uses from
``APPROXIMATE_FROM`` papers. Printed per pass: each search's time and recall@k, the share of a
paper's exact k nearest that the approximate search returns, averaged over all papers. The second
pass is the one readers see: the related papers, searched among the query-expanded vectors.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from related_quality import embedded_corpus  # noqa: E402

from generator.analysis.related import (  # noqa: E402
    EXPANSION_NEIGHBOURS,
    apply_space,
    count_phrases,
    fit_space,
    nearest_neighbours,
    one_thread,
)

DEFAULT_CORPUS = PROJECT_ROOT.parent / "shared" / "corpora" / "scale_50k.jsonl"


def neighbour_table(vectors: np.ndarray, count: int, approximate: bool) -> tuple[np.ndarray, float]:
    start = time.perf_counter()
    with one_thread():
        table = np.vstack([indices for _, indices, _ in nearest_neighbours(vectors, count, approximate)])
    return table, time.perf_counter() - start


def recall(found: np.ndarray, exact: np.ndarray, k: int) -> float:
    hits = [len(set(a[:k]) & set(b[:k])) for a, b in zip(found, exact, strict=True)]
    return sum(hits) / (k * len(exact))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--cache-dir", type=Path, default=PROJECT_ROOT / ".cache" / "benchmarks")
    parser.add_argument("--count", type=int, default=5)
    args = parser.parse_args()
    if not args.corpus.exists():
        raise SystemExit(f"{args.corpus} is not here (the shared corpora are not part of the repository)")
    records = [
        json.loads(line) for line in args.corpus.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    print(f"corpus {args.corpus.name} ({len(records):,} papers)", flush=True)
    texts, embeddings = embedded_corpus(records, args.cache_dir)
    counts = count_phrases(texts)
    space_fit = fit_space(counts, embeddings)
    space = apply_space(space_fit, counts, embeddings)
    rows = []
    for name, vectors, count in (
        (f"expansion pass ({EXPANSION_NEIGHBOURS} nearest)", space.vectors, EXPANSION_NEIGHBOURS),
        (f"related papers ({args.count} nearest)", space.expanded, args.count),
    ):
        exact, exact_seconds = neighbour_table(vectors, count, approximate=False)
        found, approx_seconds = neighbour_table(vectors, count, approximate=True)
        rows.append((name, exact_seconds, approx_seconds, exact, found))

    print(f"\n| pass | exact s | HNSW s | recall@5 | recall@{args.count} (of the pass's own k) |")
    print("|---|---|---|---|---|")
    for name, exact_s, approx_s, exact, found in rows:
        k = exact.shape[1]
        scores = f"{recall(found, exact, 5):.4f} | {recall(found, exact, k):.4f}"
        print(f"| {name} | {exact_s:.1f} | {approx_s:.1f} | {scores} |")
    same = float(np.mean(np.all(rows[-1][3] == rows[-1][4], axis=1)))
    print(f"\npapers whose related list is identical, in order: {same:.4f}")


if __name__ == "__main__":
    main()

"""Related-paper variants tried against the shipped method, per venue, one setting for every corpus.

    python benchmarks/related_variants.py [CORPUS.jsonl ...] [--cache-dir DIR]

(default: both related-paper development sets). Scores P@5 as ``digest_eval.related_precision`` does
(the first five labelled neighbours among ten, labels of the whole corpus), overall and per venue.
Rows: the embeddings alone, the shipped joint space with query expansion, and re-rankings of it
that have a reason to transfer: hubness reduction (CSLS), co-authorship as a tie-breaker, and
diffusion over the k-nearest-neighbour graph (Iscen et al. 2017). None is shipped: on the two
development sets none reaches the embeddings alone + 0.03 on both (see the README).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from related_quality import DEFAULT_EVAL, embedded_corpus, load_eval  # noqa: E402

from generator.analysis.related import PaperSpace, nearest_neighbours, one_thread, paper_space  # noqa: E402
from generator.project.settings import load_settings  # noqa: E402

SHARED = PROJECT_ROOT.parent / "shared"
DEFAULT_CORPORA = [
    SHARED / "corpora" / "nlp_acl2020_emnlp2020_eacl2021.jsonl",
    SHARED / "corpora" / "cvpr2019.jsonl",
]
LISTED = 10


def ranked(similarity: np.ndarray, count: int = LISTED) -> np.ndarray:
    scores = similarity.copy()
    np.fill_diagonal(scores, -np.inf)
    top = np.argpartition(-scores, count, axis=1)[:, :count]
    order = np.argsort(-np.take_along_axis(scores, top, 1), axis=1, kind="stable")
    return np.take_along_axis(top, order, 1)


def csls(similarity: np.ndarray, k: int = 10) -> np.ndarray:
    others = similarity.copy()
    np.fill_diagonal(others, -np.inf)
    local = np.sort(others, axis=1)[:, -k:].mean(axis=1)
    return 2 * similarity - local[:, None] - local[None, :]


def shared_authors(authors: list[tuple[str, ...]]) -> np.ndarray:
    papers_of: dict[str, list[int]] = {}
    for index, names in enumerate(authors):
        for name in names:
            papers_of.setdefault(name.strip().lower(), []).append(index)
    shared = np.zeros((len(authors), len(authors)), dtype=np.float32)
    for members in papers_of.values():
        if 1 < len(members) < 50:
            shared[np.ix_(members, members)] = 1.0
    np.fill_diagonal(shared, 0.0)
    return shared


def diffusion(vectors: np.ndarray, k: int = 20, power: float = 3.0, alpha: float = 0.99) -> np.ndarray:
    """Rows of (I - alpha S)^-1 over the symmetric, normalised k-NN graph of ``vectors``."""
    rows, columns, weights = [], [], []
    for start, indices, scores in nearest_neighbours(vectors, k):
        rows.extend(np.repeat(np.arange(start, start + len(indices)), indices.shape[1]))
        columns.extend(indices.ravel())
        weights.extend((np.clip(scores, 0, None) ** power).ravel())
    graph = sp.csr_matrix((weights, (rows, columns)), shape=(len(vectors),) * 2)
    graph = (graph + graph.T) / 2
    degree = np.asarray(graph.sum(axis=1)).ravel()
    degree[degree == 0] = 1
    scale = sp.diags(1 / np.sqrt(degree))
    return np.linalg.inv(np.eye(len(vectors)) - alpha * (scale @ graph @ scale).toarray())


def zscore(matrix: np.ndarray) -> np.ndarray:
    return (matrix - matrix.mean(axis=1, keepdims=True)) / matrix.std(axis=1, keepdims=True)


def similarities(
    embeddings: np.ndarray, space: PaperSpace, authors: list[tuple[str, ...]]
) -> list[tuple[str, np.ndarray]]:
    shipped = space.expanded @ space.expanded.T
    return [
        ("embeddings alone", embeddings @ embeddings.T),
        ("shipped (joint space + QE)", shipped),
        ("shipped + CSLS (k=10)", csls(shipped)),
        ("shipped + shared authors (+0.1)", shipped + 0.1 * shared_authors(authors)),
        ("joint space + diffusion (k=20, a=0.99)", zscore(diffusion(space.vectors)) + zscore(shipped)),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--cache-dir", type=Path, help="embedding cache (default: the project's cache_dir)")
    arguments = parser.parse_args(argv)
    evaluation = load_eval(DEFAULT_EVAL)
    settings = load_settings(PROJECT_ROOT)
    cache_dir = (arguments.cache_dir or settings.resolve(settings.cache_dir)).absolute()
    for corpus in arguments.corpora:
        records = evaluation.load(str(corpus))
        texts, embeddings = embedded_corpus(records, cache_dir)
        labels = [evaluation.labels_of(record) for record in records]
        venues = [str(record.get("venue") or "") for record in records]
        with one_thread():
            space = paper_space(texts, embeddings)
            authors = [tuple(record.get("authors") or ()) for record in records]
            variants = similarities(embeddings, space, authors)
            names = sorted({v for v, own in zip(venues, labels, strict=True) if v and own})
            print(f"{corpus.name}: P@5 overall" + "".join(f" | {name}" for name in names))
            for name, similarity in variants:
                neighbours = ranked(similarity)
                shares: dict[str, list[float]] = {}
                for index, own in enumerate(labels):
                    near = [j for j in neighbours[index] if labels[j]][:5]
                    if own and near:
                        share = sum(1 for j in near if labels[j] & own) / len(near)
                        shares.setdefault("", []).append(share)
                        shares.setdefault(venues[index], []).append(share)
                row = "".join(f" | {np.mean(shares[v]):.3f}" for v in names) if len(names) > 1 else ""
                print(f"  {name:40s} {np.mean(shares['']):.3f}{row}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

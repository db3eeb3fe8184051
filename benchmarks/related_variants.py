"""Related-paper variants tried against the shipped method, per venue, one setting for every corpus.

    python benchmarks/related_variants.py [CORPUS.jsonl ...] [--cache-dir DIR]

(default: both related-paper development sets). Scores P@5 as ``digest_eval.related_precision`` does
(the first five labelled neighbours among ten, labels of the whole corpus), overall and per venue.
Rows: the embeddings alone, the shipped joint space with query expansion (with its opening and title
views), and re-rankings of it that have a reason to transfer: hubness reduction (CSLS),
co-authorship as a tie-breaker, diffusion over the k-nearest-neighbour graph (Iscen et al. 2017), a
view of the directions on which the embedding and the words agree (CCA of the embedding and a
tf-idf LSA), and an LDA projection learned from the digest's own k-means clusters. None is shipped:
none gained on both development sets over the space without the opening and title views, by more
than noise (see benchmarks/notes/relevance.md).
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

from generator.analysis.embed import normalise_rows  # noqa: E402
from generator.analysis.related import (  # noqa: E402
    PaperSpace,
    _cosine_spread,
    expand_queries,
    nearest_neighbours,
    one_thread,
    paper_space,
)
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


def joint_with(vectors: np.ndarray, extra: np.ndarray) -> np.ndarray:
    """Two views side by side, each scaled to the same cosine spread (as the joint space is built)."""
    parts = [normalise_rows(part) / _cosine_spread(normalise_rows(part)) for part in (vectors, extra)]
    return normalise_rows(np.hstack(parts))


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


def canonical_view(
    embeddings: np.ndarray, texts: list[str], lexical_dimensions: int = 200, keep: int = 50
) -> np.ndarray:
    """Regularised CCA of the centred embedding and an LSA of the papers' tf-idf: the directions on
    which what the model reads and the words used agree, each weighted by its correlation."""
    from sklearn.decomposition import TruncatedSVD

    from generator.analysis.related import _fit_idf, _tfidf, count_phrases

    def inverse_root(covariance: np.ndarray) -> np.ndarray:
        covariance = covariance + 0.5 * np.trace(covariance) / len(covariance) * np.eye(len(covariance))
        values, vectors = np.linalg.eigh(covariance)
        return (vectors / np.sqrt(np.clip(values, 1e-8, None))) @ vectors.T

    _, idf, common = _fit_idf(count_phrases(texts))
    lexical = TruncatedSVD(lexical_dimensions, random_state=0).fit_transform(_tfidf(common, idf))
    semantic = (embeddings - embeddings.mean(axis=0)).astype(np.float64)
    lexical = lexical - lexical.mean(axis=0)
    n = len(texts)
    whiten_s, whiten_l = inverse_root(semantic.T @ semantic / n), inverse_root(lexical.T @ lexical / n)
    left, correlations, right = np.linalg.svd(whiten_s @ (semantic.T @ lexical / n) @ whiten_l)
    weights = correlations[:keep]
    both = normalise_rows(semantic @ whiten_s @ left[:, :keep] * weights)
    both = both + normalise_rows(lexical @ whiten_l @ right.T[:, :keep] * weights)
    return normalise_rows(both).astype(np.float32)


def pseudo_label_view(vectors: np.ndarray) -> np.ndarray:
    """LDA on the joint vectors with k-means clusters (as many as the topics) as the labels."""
    from sklearn.cluster import KMeans
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    clusters = KMeans(min(40, round((len(vectors) / 2) ** 0.5)), n_init=4, random_state=0).fit_predict(
        vectors
    )
    discriminant = LinearDiscriminantAnalysis(solver="eigen", shrinkage="auto").fit(vectors, clusters)
    return expand_queries(normalise_rows(discriminant.transform(vectors)).astype(np.float32))


def zscore(matrix: np.ndarray) -> np.ndarray:
    return (matrix - matrix.mean(axis=1, keepdims=True)) / matrix.std(axis=1, keepdims=True)


def similarities(
    embeddings: np.ndarray, space: PaperSpace, authors: list[tuple[str, ...]], texts: list[str]
) -> list[tuple[str, np.ndarray]]:
    shipped = space.expanded @ space.expanded.T
    canonical = expand_queries(joint_with(space.vectors, canonical_view(embeddings, texts)))
    labelled = pseudo_label_view(space.vectors)
    return [
        ("joint space + CCA view, QE", canonical @ canonical.T),
        ("shipped + LDA on k-means labels (x0.5)", zscore(shipped) + 0.5 * zscore(labelled @ labelled.T)),
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
            variants = similarities(embeddings.text, space, authors, texts)
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

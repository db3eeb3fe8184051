"""P@10 of "Recommended for you" (My list): simulated readers who saved 5 papers of one track or session,
and how many of the first ten recommended papers share that label; side by side with arxiv-sanity's
method and the plain centroid of the saved vectors.

- NLP tracks (ACL 2020, EMNLP 2020, EACL 2021; ``labels``), CVPR 2019 sessions (``labels``);
- a reader: a label with at least ``LEAST`` papers drawn at random, then 5 of its papers (fixed seeds,
  ``READERS`` readers a set); relevant: the label's other papers. As in the corpora's yardstick, only
  labelled papers count in the ranking (18 % of the NLP papers have no track; they are skipped, for
  every method alike).
- vectors: the build's (MiniLM over title + abstract, ``embed_papers``), through the embedding cache
  (``--cache``; embedded on a miss, slowly), then stored as the site stores them (int8, a scale per
  vector) and read back: what the browser ranks with.
- arxiv-sanity(-lite)'s method: ``LinearSVC(C=0.01, class_weight="balanced")`` over its tf-idf
  (1–2-grams, 20,000 features, min_df 5, max_df 0.1, sublinear tf, English stop words, its token pattern)
  of title + abstract, the saved papers against all others.
- the shipped method is run in Chromium (``javascripts/recommend.js``, ``paperRecommend.recommend``)
  over the site's files of these vectors; its Python twin (``generator.site.recommendations``) must
  give the same first ten for every reader, which the script checks and prints.

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/recommend_quality.py ../shared/corpora \\
        --cache /tmp/recommend/cache
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.local_server import serving
from generator.analysis.analyse import embed_papers, settle_titles, text_parts
from generator.analysis.embed import SentenceTransformerEmbedder
from generator.analysis.text import strip_markup
from generator.cache.database import CACHE_DATABASE
from generator.cache.embeddings import CachedEmbedder, EmbeddingCache
from generator.site.meaning_index import quantised
from generator.site.output import ASSETS_DIR
from generator.site.recommendations import (
    DECAY,
    FUSION_OFFSET,
    RATE,
    STEPS,
    logistic_scores,
    ranks,
    recommendation_scores,
)
from generator.sources import read_collection

SETS = {
    "NLP tracks": "nlp_acl2020_emnlp2020_eacl2021.jsonl",
    "CVPR 2019 sessions": "cvpr2019.jsonl",
}
SAVED = 5
LEAST = 15
"""A reader's label has at least this many papers: 5 saved and 10 left to find."""
READERS = 150
SEED = 0
DEPTH = 10
GRID = [(steps, rate) for steps in (1, 3, 10, 20, 40) for rate in (2.0, 8.0, 32.0)]
OFFSETS = (10, 30, 60, 120)
PROBE_SHARE_50K = 67 / 250

Scorer = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""(vectors, saved places) -> a score per paper, higher is closer."""


@dataclass(frozen=True)
class Corpus:
    rows: list[dict]
    """In the build's order (duplicates dropped)."""
    texts: list[str]
    """Title + abstract, plain: what arxiv-sanity's tf-idf reads."""
    vectors: np.ndarray
    """The build's vectors (float32)."""
    shipped: np.ndarray
    """The same as the site ships them (int8 and a scale) and the browser reads them (float64)."""


def read_corpus(corpus: Path, embedder: CachedEmbedder) -> Corpus:
    lines = corpus.read_text(encoding="utf-8").splitlines()
    rows = {row["id"]: row for row in (json.loads(line) for line in lines if line.strip())}
    entries = settle_titles(read_collection([corpus]).papers)
    vectors = embed_papers([text_parts(entry) for entry in entries], embedder).text
    scales, values = quantised(vectors)
    shipped = values.astype(np.float64) * scales.astype(np.float64)[:, None]
    texts = [f"{strip_markup(entry.title)}. {strip_markup(entry.paper.abstract)}" for entry in entries]
    return Corpus([rows[entry.paper.id] for entry in entries], texts, vectors, shipped)


def readers(labels: list[str | None], seed: int = SEED) -> list[tuple[str, np.ndarray]]:
    members: dict[str, list[int]] = {}
    for place, label in enumerate(labels):
        if label is not None:
            members.setdefault(label, []).append(place)
    eligible = sorted(label for label, places in members.items() if len(places) >= LEAST)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(READERS):
        label = eligible[rng.integers(len(eligible))]
        out.append((label, np.sort(rng.choice(members[label], SAVED, replace=False))))
    return out


def precision(scores: np.ndarray, saved: np.ndarray, label: str, labels: list[str | None]) -> float:
    order = np.argsort(-scores, kind="stable")
    chosen = set(saved.tolist())
    ranked = [place for place in order if place not in chosen and labels[place] is not None][:DEPTH]
    return sum(labels[place] == label for place in ranked) / DEPTH


# --- the candidates ---------------------------------------------------------------------------


def centroid_scores(vectors: np.ndarray, saved: np.ndarray) -> np.ndarray:
    return vectors @ vectors[saved].mean(axis=0)


def nearest_saved_scores(vectors: np.ndarray, saved: np.ndarray) -> np.ndarray:
    """Each paper's cosine to its closest saved paper."""
    return (vectors @ vectors[saved].T).max(axis=1)


def rocchio_scores(vectors: np.ndarray, saved: np.ndarray, beta: float) -> np.ndarray:
    """The saved papers' centroid with ``beta`` × the digest's mean vector taken away."""
    return vectors @ (vectors[saved].mean(axis=0) - beta * vectors.mean(axis=0))


def svm_scores(features: object, saved: np.ndarray, count: int) -> np.ndarray:
    from sklearn.svm import LinearSVC

    target = np.zeros(count, dtype=int)
    target[saved] = 1
    model = LinearSVC(C=0.01, class_weight="balanced", max_iter=10_000, tol=1e-6)
    model.fit(features, target)
    return model.decision_function(features)


def tfidf_features(texts: list[str]) -> object:
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(
        input="content",
        strip_accents="unicode",
        lowercase=True,
        analyzer="word",
        stop_words="english",
        token_pattern=r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",
        ngram_range=(1, 2),
        max_features=20_000,
        norm="l2",
        use_idf=True,
        smooth_idf=True,
        sublinear_tf=True,
        max_df=0.1,
        min_df=5,
    ).fit_transform(texts)


def reciprocal_rank_fusion(*scores: np.ndarray, offset: int = 60) -> np.ndarray:
    total = np.zeros(len(scores[0]))
    for score in scores:
        ranks = np.empty(len(score))
        ranks[np.argsort(-score, kind="stable")] = np.arange(len(score))
        total += 1.0 / (offset + ranks)
    return total


# --- the shipped script, in Chromium ----------------------------------------------------------


class _ModelLeftOut:
    """Stands in for the exported model in ``meaning_files``: recommendations read the vectors and ids
    only, so the benchmark's sites hold an empty model file (the model is not exported for them)."""

    def __init__(self, empty: Path) -> None:
        self.model_file = self.vocabulary_file = empty

    def tokenizer_settings(self) -> dict:
        return {}


def write_site(
    site: Path, corpus: Corpus, partitioned: bool = False, probe_share: float | None = None
) -> None:
    """The ``meaning/`` files the build would write for ``corpus`` (partitioned as past 3,500 papers if
    asked, probing ``probe_share`` of the clusters as at 50,000 papers), and a page loading recommend.js."""
    from generator.site import meaning_index

    papers = [
        meaning_index.MeaningPaper(row["id"], f"p/{place}/", row["title"], "", "")
        for place, row in enumerate(corpus.rows)
    ]
    site.mkdir(parents=True, exist_ok=True)
    empty = site / "empty"
    empty.write_bytes(b"")
    single = meaning_index.SINGLE_CLUSTER_PAPERS
    meaning_index.SINGLE_CLUSTER_PAPERS = 0 if partitioned else single
    try:
        files = meaning_index.meaning_files(papers, corpus.vectors, _ModelLeftOut(empty))  # type: ignore[arg-type]
    finally:
        meaning_index.SINGLE_CLUSTER_PAPERS = single
    if probe_share is not None:
        index = json.loads(files[meaning_index.INDEX_FILE])
        index["probe"] = max(1, round(probe_share * len(index["clusters"])))
        files[meaning_index.INDEX_FILE] = json.dumps(index).encode("utf-8")
    for path, data in files.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_bytes(data)
    (site / "javascripts").mkdir(exist_ok=True)
    (site / "javascripts" / "recommend.js").write_bytes(
        (ASSETS_DIR / "javascripts" / "recommend.js").read_bytes()
    )
    (site / "index.html").write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
        '<script src="javascripts/recommend.js"></script></body></html>',
        encoding="utf-8",
    )


ASK = """
async ({lists, count}) => {
  await window.paperRecommend.ready();
  const out = [];
  for (const saved of lists) {
    const started = performance.now();
    const found = await window.paperRecommend.recommend(saved, count);
    const ms = performance.now() - started;
    out.push({ ms, ids: found.map(f => f.id), closest: found.map(f => f.closest) });
  }
  return out;
}
"""


def ask_in_chromium(site: Path, lists: list[list[str]], count: int) -> list[dict]:
    from playwright.sync_api import sync_playwright

    with serving(site) as address, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        tab = browser.new_page()
        tab.goto(address)
        answers = tab.evaluate(ASK, {"lists": lists, "count": count})
        browser.close()
    return answers


def precision_of_ids(ids: list[str], label: str, labels_by_id: dict[str, str | None]) -> float:
    ranked = [paper for paper in ids if labels_by_id.get(paper) is not None][:DEPTH]
    return sum(labels_by_id[paper] == label for paper in ranked) / DEPTH


def scorers(features: object) -> dict[str, Scorer]:
    """The methods compared; ``features`` are the papers' tf-idf rows (arxiv-sanity's)."""
    return {
        "centroid of the saved vectors": centroid_scores,
        "closest saved paper (max cosine)": nearest_saved_scores,
        "RRF(centroid, closest saved)": lambda v, s: reciprocal_rank_fusion(
            centroid_scores(v, s), nearest_saved_scores(v, s)
        ),
        "arxiv-sanity: LinearSVC on tf-idf": lambda v, s: svm_scores(features, s, len(v)),
        "LinearSVC (same settings) on MiniLM": lambda v, s: svm_scores(v, s, len(v)),
        "RRF(centroid, arxiv-sanity) (needs tf-idf: not shippable)": lambda v, s: reciprocal_rank_fusion(
            centroid_scores(v, s), svm_scores(features, s, len(v))
        ),
        f"logistic regression alone ({STEPS} steps, rate {RATE:g})": lambda v, s: logistic_scores(v, s),
        SHIPPED_TWIN: lambda v, s: recommendation_scores(v, s.tolist())[0],
    }


SHIPPED_TWIN = "RRF(logistic regression, closest saved): the Python twin"


def batched_logistic(vectors: np.ndarray, lists: list[np.ndarray], steps: int, rate: float) -> np.ndarray:
    """``logistic_scores`` for many readers at once (one reader a column): for the grid."""
    count, dimensions = vectors.shape
    target = np.zeros((count, len(lists)))
    for reader, saved in enumerate(lists):
        target[saved, reader] = 1.0
    chosen = target.sum(axis=0)
    weight = np.where(target == 1.0, 0.5 / chosen, 0.5 / (count - chosen))
    w = np.zeros((dimensions, len(lists)))
    bias = np.zeros(len(lists))
    for _ in range(steps):
        error = weight * (1.0 / (1.0 + np.exp(-(vectors @ w + bias))) - target)
        w = w - rate * (vectors.T @ error + DECAY * w)
        bias = bias - rate * error.sum(axis=0)
    return (vectors @ w).T


def fused_scores(model: np.ndarray, vectors: np.ndarray, saved: np.ndarray, offset: int) -> np.ndarray:
    """``recommendation_scores``' fusion with another offset."""
    others = np.setdiff1d(np.arange(len(vectors)), saved)
    closeness = (vectors[others] @ vectors[saved].T).max(axis=1)
    fused = np.full(len(vectors), -np.inf)
    fused[others] = 1.0 / (offset + ranks(model[others])) + 1.0 / (offset + ranks(closeness))
    return fused


@dataclass
class SetResult:
    precision: dict[str, float]
    grid: dict[tuple[int, float], tuple[float, float]]
    """(steps, rate): P@10 of the logistic regression alone, and fused as shipped."""
    offsets: dict[int, float]
    """The fusion's offset: P@10 of the shipped ranking with it."""
    agreement: str


def measure_set(name: str, corpus: Corpus, work: Path) -> SetResult:
    labels = [(row.get("labels") or [None])[0] for row in corpus.rows]
    chosen = readers(labels)
    vectors = corpus.shipped
    labelled = sum(label is not None for label in labels)
    chance = np.mean([(labels.count(label) - SAVED) / (labelled - SAVED) for label, _ in chosen])
    result = {"chance": float(chance)}
    twin: list[np.ndarray] = []
    for method, scorer in scorers(tfidf_features(corpus.texts)).items():
        started = time.perf_counter()
        scores = [scorer(vectors, saved) for _, saved in chosen]
        result[method] = float(
            np.mean([precision(sc, s, label, labels) for sc, (label, s) in zip(scores, chosen, strict=True)])
        )
        print(f"{name}: {method} {result[method]:.3f} ({time.perf_counter() - started:.0f} s)", flush=True)
        if method == SHIPPED_TWIN:
            twin = scores
    lists = [saved for _, saved in chosen]

    def mean_precision(scores: np.ndarray | list[np.ndarray]) -> float:
        return float(
            np.mean([precision(sc, s, label, labels) for sc, (label, s) in zip(scores, chosen, strict=True)])
        )

    grid = {}
    for steps, rate in GRID:
        model = batched_logistic(vectors, lists, steps, rate)
        grid[steps, rate] = (
            mean_precision(model),
            mean_precision(
                [fused_scores(m, vectors, s, FUSION_OFFSET) for m, s in zip(model, lists, strict=True)]
            ),
        )
    model = batched_logistic(vectors, lists, STEPS, RATE)
    offsets = {
        offset: mean_precision(
            [fused_scores(m, vectors, s, offset) for m, s in zip(model, lists, strict=True)]
        )
        for offset in OFFSETS
    }
    ids = [row["id"] for row in corpus.rows]
    labels_by_id = dict(zip(ids, labels, strict=True))
    id_lists = [[ids[place] for place in saved] for _, saved in chosen]
    agreement = ""
    for variant, partitioned, share in (
        ("shipped: recommend.js in Chromium", False, None),
        ("the same, partitioned as past 3,500 papers (every cluster probed)", True, None),
        ("the same, partitioned, probing 27 % of the clusters (as at 50,000)", True, PROBE_SHARE_50K),
    ):
        site = work / f"{name.split()[0].lower()}-{'ivf' if partitioned else 'exact'}-{share}"
        write_site(site, corpus, partitioned, share)
        answers = ask_in_chromium(site, id_lists, 3 * DEPTH + 20)
        result[variant] = float(
            np.mean(
                [
                    precision_of_ids(answer["ids"], label, labels_by_id)
                    for answer, (label, _) in zip(answers, chosen, strict=True)
                ]
            )
        )
        print(f"{name}: {variant} {result[variant]:.3f}", flush=True)
        if not partitioned:
            same = 0
            for answer, scores in zip(answers, twin, strict=True):
                order = np.argsort(-scores, kind="stable")[:DEPTH]
                same += answer["ids"][:DEPTH] == [ids[p] for p in order]
            agreement = f"{same} of {len(chosen)}"
    return SetResult(result, grid, offsets, agreement)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", type=Path)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/recommend/cache"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/recommend/sites"))
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=list(SETS))
    args = parser.parse_args()
    embedder = CachedEmbedder(
        SentenceTransformerEmbedder(precision="float32"), EmbeddingCache.open(args.cache / CACHE_DATABASE)
    )
    results = {
        name: measure_set(name, read_corpus(args.corpora / file, embedder), args.work)
        for name, file in SETS.items()
        if name in args.sets
    }
    print(f"\n{READERS} readers a set, {SAVED} saved papers each (seed {SEED})\n")
    print("| P@10 | " + " | ".join(results) + " |")
    print("|---|" + "---|" * len(results))
    for method in next(iter(results.values())).precision:
        print(
            f"| {method} | "
            + " | ".join(f"{result.precision[method]:.3f}" for result in results.values())
            + " |"
        )
    print(
        "\nfirst ten the same in Chromium and in the Python twin:",
        {n: r.agreement for n, r in results.items()},
    )
    print(f"\nlogistic regression (steps, rate; decay {DECAY}): alone / fused (offset {FUSION_OFFSET})\n")
    print("| steps, rate | " + " | ".join(results) + " |\n|---|" + "---|" * len(results))
    for key in GRID:
        cells = " | ".join(f"{r.grid[key][0]:.3f} / {r.grid[key][1]:.3f}" for r in results.values())
        print(f"| {key[0]}, {key[1]:g} | {cells} |")
    print(f"\nthe fusion's offset ({STEPS} steps, rate {RATE:g}):\n")
    print("| offset | " + " | ".join(results) + " |\n|---|" + "---|" * len(results))
    for offset in OFFSETS:
        print(f"| {offset} | " + " | ".join(f"{r.offsets[offset]:.3f}" for r in results.values()) + " |")


if __name__ == "__main__":
    main()

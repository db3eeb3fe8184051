"""Related-paper quality on a labelled corpus: P@k of tf-idf, of the embeddings alone, of the joint
space as shipped before its opening and title views, and of the method Paper Digest ships, scored
with the shared evaluation script's own definition, overall and per venue.

    python benchmarks/related_quality.py [CORPUS.jsonl] [--eval digest_eval.py] [--cache-dir DIR]

P@k (``digest_eval.related_precision``): for each paper with a track label, the share of its first k
related papers (labelled ones) that share a label with it. The corpus's ``labels`` and ``keywords`` are
removed before any analysis sees a paper; the labels are used only for scoring. Papers are read, titled
and turned into analysis texts by the project's own code and embedded through its cached embedder, so
the shipped row is what ``paper-digest build`` would produce. Also printed: how well the topics agree
with the labels (the same P@k idea, over all other labelled papers of the paper's topic).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from generator.analysis.analyse import embed_papers, settle_titles, text_parts  # noqa: E402
from generator.analysis.related import (  # noqa: E402
    PaperEmbeddings,
    find_related,
    paper_space,
    related_papers,
)
from generator.analysis.topics import find_topics  # noqa: E402
from generator.build import open_embedder  # noqa: E402
from generator.project.settings import load_settings  # noqa: E402
from generator.sources import read_collection  # noqa: E402

SHARED = PROJECT_ROOT.parent / "shared"
DEFAULT_CORPUS = SHARED / "corpora" / "nlp_acl2020_emnlp2020_eacl2021.jsonl"
DEFAULT_EVAL = SHARED / "eval" / "digest_eval.py"
HIDDEN_FIELDS = ("labels", "keywords", "site_keywords")
"""What the analysis must not see: the labels are the answer, author keywords a strong hint."""

Neighbours = dict[str, list[str]]


def load_eval(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("digest_eval", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stripped_copy(records: list[dict], folder: Path) -> Path:
    """The corpus without the hidden fields, as a JSON Lines file the project's reader takes."""
    path = folder / "corpus.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            visible = {key: value for key, value in record.items() if key not in HIDDEN_FIELDS}
            out.write(json.dumps(visible, ensure_ascii=False) + "\n")
    return path


def embedded_corpus(records: list[dict], cache_dir: Path) -> tuple[list[str], PaperEmbeddings]:
    """The corpus as the build reads and embeds it (hidden fields stripped, titles settled): each
    paper's analysis text and its embeddings, through the project's cached embedder."""
    with tempfile.TemporaryDirectory() as folder:
        collection = read_collection([stripped_copy(records, Path(folder))])
    entries = settle_titles(collection.papers)
    parts = [text_parts(entry) for entry in entries]
    embedder = open_embedder(replace(load_settings(PROJECT_ROOT), cache_dir=cache_dir))
    try:
        return [text for text, _ in parts], embed_papers(parts, embedder)
    finally:
        embedder.cache.close()


def tfidf_neighbours(texts: list[str], ids: list[str], evaluation: ModuleType, count: int) -> Neighbours:
    """The evaluation script's own tf-idf baseline (its settings and its neighbour search)."""
    vectorizer = TfidfVectorizer(
        ngram_range=(1, 2), max_features=20000, min_df=5, max_df=0.1, sublinear_tf=True, stop_words="english"
    )
    matrix = vectorizer.fit_transform(texts).toarray().astype(np.float32)
    return evaluation.neighbours(matrix, ids, count)


def as_neighbours(related: list, ids: list[str]) -> Neighbours:
    return {ids[i]: [ids[r.index] for r in near] for i, near in enumerate(related)}


def topic_agreement(topics: list, labels: list[set[str]]) -> float:
    """For each labelled paper, the share of the other labelled papers in its topic sharing a label
    (what P@k would be for k random papers of the same topic); macro mean."""
    shares = []
    for topic in topics:
        members = [labels[i] for i in topic.members if labels[i]]
        for position, own in enumerate(members):
            others = members[:position] + members[position + 1 :]
            if others:
                shares.append(sum(1 for other in others if other & own) / len(others))
    return float(np.mean(shares)) if shares else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS, help="labelled JSON Lines")
    parser.add_argument("--eval", type=Path, default=DEFAULT_EVAL, help="path of digest_eval.py")
    parser.add_argument("--k", type=int, default=5, help="related papers scored per paper (default 5)")
    parser.add_argument(
        "--candidates",
        type=int,
        default=10,
        help="neighbours each method lists (default 10, as digest_eval's baselines); the first k "
        "labelled ones are scored",
    )
    parser.add_argument("--cache-dir", type=Path, help="embedding cache (default: the project's cache_dir)")
    arguments = parser.parse_args(argv)

    evaluation = load_eval(arguments.eval)
    records = evaluation.load(str(arguments.corpus))
    settings = load_settings(PROJECT_ROOT)
    cache_dir = (arguments.cache_dir or settings.resolve(settings.cache_dir)).absolute()

    with tempfile.TemporaryDirectory() as folder:
        collection = read_collection([stripped_copy(records, Path(folder))])
    entries = settle_titles(collection.papers)
    parts = [text_parts(entry) for entry in entries]
    texts = [text for text, _ in parts]
    ids = [entry.paper.id for entry in entries]
    # Score against the corpus with ids as the reader keeps them (strings), labels untouched.
    scored = [{**record, "id": paper_id} for record, paper_id in zip(records, ids, strict=True)]
    labels = [evaluation.labels_of(record) for record in records]
    print(
        f"{arguments.corpus.name}: {len(records)} papers, {sum(map(bool, labels))} labelled; "
        f"{', '.join(HIDDEN_FIELDS)} removed before analysis"
    )

    embedder = open_embedder(replace(settings, cache_dir=cache_dir))
    started = time.perf_counter()
    try:
        embeddings = embed_papers(parts, embedder)
    finally:
        embedder.cache.close()
    print(
        f"embeddings (texts, openings, given titles): {embedder.misses} computed, {embedder.hits} from "
        f"{cache_dir} ({time.perf_counter() - started:.1f} s)"
    )

    listed = arguments.candidates
    no_keywords: list[list] = [[] for _ in texts]
    shipped_space = {}

    def tfidf() -> Neighbours:
        return tfidf_neighbours(texts, ids, evaluation, listed)

    def embeddings_alone() -> Neighbours:
        return as_neighbours(find_related(embeddings.text, no_keywords, listed), ids)

    def without_views() -> Neighbours:  # embedding and LSA only (as in 0.2, but cut to 384 axes as now)
        space = paper_space(texts, PaperEmbeddings(embeddings.text))
        return as_neighbours(related_papers(space, no_keywords, listed), ids)

    def shipped() -> Neighbours:  # what analyse() runs, minus the keywords (they only explain matches)
        shipped_space["space"] = space = paper_space(texts, embeddings)
        return as_neighbours(related_papers(space, no_keywords, listed), ids)

    methods: list[tuple[str, Callable[[], Neighbours]]] = [
        ("tf-idf (digest_eval baseline settings)", tfidf),
        ("embeddings alone (cosine)", embeddings_alone),
        ("joint space + QE, without opening/title", without_views),
        ("shipped: + opening and title views", shipped),
    ]
    chance = evaluation.chance_precision(records)
    venues = sorted(
        {str(record.get("venue") or "") for record, own in zip(records, labels, strict=True) if own}
    )
    by_venue = len(venues) > 1
    print(f"related P@{arguments.k} (digest_eval.related_precision; chance {chance:.3f})")
    if by_venue:
        print(f"  {'':44s} {'all':>6s}  " + "  ".join(f"{venue:>10s}" for venue in venues))
    alone = 0.0
    for name, method in methods:
        started = time.perf_counter()
        neighbours = method()
        elapsed = time.perf_counter() - started
        precision, papers_scored = evaluation.related_precision(scored, neighbours, arguments.k)
        if name.startswith("embeddings alone"):
            alone = precision
        gain = f"{precision - alone:+.3f} over the embeddings" if alone and alone != precision else ""
        per_venue = ""
        if by_venue:
            shares = []
            for venue in venues:
                # The venue's papers as queries; their neighbours and labels from the whole digest.
                queries = {record["id"] for record in scored if str(record.get("venue") or "") == venue}
                of_venue = {paper: near for paper, near in neighbours.items() if paper in queries}
                shares.append(evaluation.related_precision(scored, of_venue, arguments.k)[0])
            per_venue = "  " + "  ".join(f"{share:10.3f}" for share in shares)
        print(
            f"  {name:44s} {precision:6.3f}{per_venue}  over {papers_scored} papers  {gain} ({elapsed:.1f} s)"
        )

    started = time.perf_counter()
    topics = find_topics(texts, shipped_space["space"].vectors)
    elapsed = time.perf_counter() - started
    sizes = sorted(len(topic.members) for topic in topics)
    print(
        f"topics: {len(topics)}, sizes min/median/max {sizes[0]}/{sizes[len(sizes) // 2]}/{sizes[-1]}, "
        f"agreement with labels {topic_agreement(topics, labels):.3f} ({elapsed:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

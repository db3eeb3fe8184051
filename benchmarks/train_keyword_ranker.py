"""Train the keyword ranker and its word statistics from the shared corpora, and score it.

    python benchmarks/train_keyword_ranker.py [--shared DIR] [--cache-dir DIR] [--no-write]

1. Word statistics (``generator/analysis/keyphrases/word_stats.json``) from the 50,000 abstracts of
   ``scale_50k.jsonl`` (19 conferences, 1987-2025, without NeurIPS 2023 and ICML 2024): per word,
   the abstracts using it, those whose title uses it too, its uses, its uses that end a noun phrase
   (followed by punctuation or a function word other than an object's determiner, and not right
   after "we", "to", "is", "can" …, where verbs and predicative adjectives stand), and its uses in
   the plural; per keyphrase candidate of two or three words, the abstracts using it and those
   whose title uses it too.
2. The ranker (``keyword_ranker.json``): gradient-boosted trees (scikit-learn's
   ``HistGradientBoostingClassifier``, seed 0) over ``ranker.FEATURES`` of every candidate that
   KeyBERT ranks, trained on the NLP and CVPR sets with their titles hidden (papers embedded from
   the abstract alone), labelled 1 when the phrase is a whole phrase of the paper's real title (a
   candidate of the title as an abstract, tails of longer phrases left out). Four features may only
   push one way (``MONOTONIC``).
3. Scores: keyword F1@5 on NeurIPS 2023 author keywords (the ranker never trained on them; the
   shipped lone-word model did, see 4, so these are in-sample for it), with
   the titles given as the benchmark gives them, for a few title bonuses; and a 2-fold number
   within NeurIPS (trained on half its author keywords, scored on the other half).

4. ``--lone-words-only``: which phrases NeurIPS 2023 authors list (``lone_words.json``): per
   candidate of its abstracts, the papers using it and those listing it; a prior from the word
   statistics. Seconds (no embeddings). Its held-out numbers are 2-fold (notes).

Deterministic: the same corpora give the same files (seed 0, no early stopping, sorted inputs). ICML
2024 is never read. Embeddings go through the project's cache (``--cache-dir``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from keyword_quality import load_eval  # noqa: E402

from generator.analysis.boosted_trees import BoostedTrees  # noqa: E402
from generator.analysis.keyphrases import Candidate  # noqa: E402
from generator.analysis.keyphrases.canonical import canonical_key, lower, singular  # noqa: E402
from generator.analysis.keyphrases.ranker import (  # noqa: E402
    FEATURES,
    LONE_FEATURES,
    LONE_WORDS_FILE,
    MODEL_FILE,
    WORD_STATS_FILE,
    KeywordModel,
    LoneWords,
    WordStats,
    lone_features,
    may_show,
    paper_features,
)
from generator.analysis.keyphrases.wordlists import FUNCTION_WORDS  # noqa: E402
from generator.analysis.text import strip_markup  # noqa: E402

PACKAGE_DATA = PROJECT_ROOT / "generator" / "analysis" / "keyphrases"
TRAINING_SETS = ("nlp_acl2020_emnlp2020_eacl2021.jsonl", "cvpr2019.jsonl")
HELD_OUT = "neurips2023.jsonl"
WORD_CORPUS = "scale_50k.jsonl"
MIN_ABSTRACTS = 5
"""Words used by fewer abstracts are left out of the statistics (they count as unseen)."""
MIN_PHRASE_ABSTRACTS = 3
"""The same for phrases of two or three words (keeps the file small)."""
TITLE_BONUSES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)
SHIPPED_TITLE_BONUS = 2.0
"""Not learnable from titles (they are the labels): a given title's phrase gets e² (7.4) times the
odds. Picked on NeurIPS 2023, the only set with author keywords (the table printed shows every
value; 0 is the number that owes NeurIPS nothing)."""
EVERY_WORD = LoneWords({}, (0.0,) * len(LONE_FEATURES), 0.0, 1.0, 0.0)
"""A lone-word model that lets every word stand alone: counting and the ranker's training rows never
depend on the shipped one."""
LONE_STRENGTH = 2.0
"""Papers' worth of the prior (from the word statistics) mixed into a phrase's own count of being
listed, so a phrase NeurIPS seldom uses is judged mostly by how the 50,000 abstracts use it. Picked
on NeurIPS 2-fold (F1@5, titles given, strength 20 / 5 / 2: 0.2409 / 0.2448 / 0.2467 at weight 1.5)."""
LONE_THRESHOLD = 0.05
"""One word that authors list in fewer than this share of the papers using it is never shown alone
(0.02: F1@5 0.2404 with 24 % lone words shown; 0.05: 0.2390, 18 %; at strength 20, weight 1)."""
LONE_WEIGHT = 1.5
"""The log-odds of being listed, times this, add to a candidate's score (0 / 0.5 / 1 / 1.5 / 2 at
strength 20: F1@5 0.2216 / 0.2341 / 0.2404 / 0.2409 / 0.2417)."""
LEARNING_RATE = 0.05
TREES = 200
LEAVES = 15
MIN_LEAF = 20
MONOTONIC = {"similarity": 1, "early": 1, "uses": 1, "inside_longer": -1, "aside_share": -1}
"""Features whose effect may only go one way, whatever the labels' noise: closer to the paper, used
earlier and more often is never worse; being only a piece of a longer candidate never better."""

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-'’/][A-Za-z0-9]+)*|[^\sA-Za-z0-9]")
_PARTS = re.compile(r"[-/]")
# ruff: noqa: SIM905 (word lists read best as one string)
_BEFORE_VERB = frozenset(
    "we to is are was were be been being can could may might will would should must also not remains "
    "remain becomes become it they".split()
)
_OBJECT_START = frozenset("the a an our its their this these those how what why whether".split())


def key_words(text: str) -> list[str]:
    """A text's words as candidates' keys compare them: lowercase, hyphen parts apart, singular."""
    return [singular(part) for token in _TOKEN.findall(text) for part in _PARTS.split(lower(token)) if part]


def uses_phrase(words: list[str], key: str) -> bool:
    """Whether the word sequence ``words`` (``key_words``) holds the candidate ``key``."""
    return f" {' '.join(singular(w) for w in key.split())} " in f" {' '.join(words)} "


def word_statistics(corpus: Path) -> dict[str, object]:
    """``word_stats.json``'s content from a JSONL corpus of titles and abstracts."""
    from generator.analysis.keyphrases import abstract_candidates

    used: Counter[str] = Counter()
    titled: Counter[str] = Counter()
    uses: Counter[str] = Counter()
    heads: Counter[str] = Counter()
    plurals: Counter[str] = Counter()
    phrase_used: Counter[str] = Counter()
    phrase_titled: Counter[str] = Counter()
    abstracts = 0
    for line in corpus.open(encoding="utf-8"):
        record = json.loads(line)
        abstracts += 1
        words: list[str] = []
        for token in _TOKEN.findall(strip_markup(record["abstract"])):
            # A hyphenated word is its parts, as in a candidate's key: "finite-sample" is "finite sample".
            words.extend(_PARTS.split(lower(token)) if token[0].isalnum() else [token])
        seen: set[str] = set()
        for position, word in enumerate(words):
            if not word or not word[0].isalpha():
                continue
            key = singular(word)
            seen.add(key)
            uses[key] += 1
            plurals[key] += key != word
            before = words[position - 1] if position else "."
            after = words[position + 1] if position + 1 < len(words) and words[position + 1] else "."
            ends_phrase = not after[0].isalnum() or (after in FUNCTION_WORDS and after not in _OBJECT_START)
            if before not in _BEFORE_VERB and ends_phrase:
                heads[key] += 1
        used.update(seen)
        title = key_words(record.get("title") or "")
        titled.update(set(title) & seen)
        for phrase in abstract_candidates(record["abstract"]):
            if " " in phrase:
                phrase_used[phrase] += 1
                phrase_titled[phrase] += uses_phrase(title, phrase)
    kept = sorted(word for word, count in used.items() if count >= MIN_ABSTRACTS)
    phrases = sorted(phrase for phrase, count in phrase_used.items() if count >= MIN_PHRASE_ABSTRACTS)
    return {
        "source": f"{corpus.name}: {abstracts} abstracts; words used by {MIN_ABSTRACTS} or more, "
        f"phrases by {MIN_PHRASE_ABSTRACTS} or more",
        "abstracts": abstracts,
        "prior_title_rate": round(sum(titled.values()) / sum(used.values()), 6),
        "prior_phrase_title_rate": round(sum(phrase_titled.values()) / sum(phrase_used.values()), 6),
        "words": {word: [used[word], titled[word], uses[word], heads[word], plurals[word]] for word in kept},
        "phrases": {phrase: [phrase_used[phrase], phrase_titled[phrase]] for phrase in phrases},
    }


def stats_of(statistics: dict) -> WordStats:
    return WordStats(
        abstracts=statistics["abstracts"],
        prior_title_rate=statistics["prior_title_rate"],
        prior_phrase_title_rate=statistics["prior_phrase_title_rate"],
        counts={word: tuple(values) for word, values in statistics["words"].items()},
        phrases={phrase: tuple(values) for phrase, values in statistics["phrases"].items()},
    )


@dataclass
class RankedCorpus:
    """A corpus as a build sees it: its papers' candidates and their KeyBERT similarities."""

    ids: list[str]
    titles: list[str]
    """The real titles (the labels), hidden from the candidates and similarities or not."""
    candidates: object
    similarities: list[dict[str, float]]


@dataclass
class CorpusRows:
    """Every ranked candidate of every paper of one corpus: its features and labels."""

    corpus: RankedCorpus
    rows: list[np.ndarray]
    keys: list[list[str]]
    title_labels: list[np.ndarray]


def ranked_corpus(path: Path, embedder, hide_titles: bool) -> RankedCorpus:
    """Candidates and KeyBERT similarities of a corpus (keywords and labels removed; titles too when
    ``hide_titles``)."""
    from generator.analysis.analyse import analysis_text, settle_titles
    from generator.analysis.keywords import find_candidates, keyword_similarities
    from generator.sources import read_collection

    records = [json.loads(line) for line in path.open(encoding="utf-8")]
    if "icml2024" in path.name:
        raise SystemExit("ICML 2024 is the unseen test conference: never trained on")
    stripped = Path(os.environ.get("TMPDIR", "/tmp")) / f"keyword-ranker-{os.getpid()}.jsonl"
    hidden = {"keywords", "labels", *(("title",) if hide_titles else ())}
    with stripped.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps({k: v for k, v in record.items() if k not in hidden}) + "\n")
    try:
        papers = read_collection([stripped], name="training").papers
    finally:
        stripped.unlink()
    entries = settle_titles(papers)
    vectors = embedder.embed([analysis_text(entry) for entry in entries])
    abstracts = [entry.paper.abstract for entry in entries]
    titles = [None if entry.title_was_derived else entry.title for entry in entries]
    candidates = find_candidates(abstracts, titles, 5, lone=EVERY_WORD)  # the ranker's rows as before
    real_titles = {record["id"]: record.get("title") or "" for record in records}
    return RankedCorpus(
        ids=[entry.paper.id for entry in entries],
        titles=[real_titles[entry.paper.id] for entry in entries],
        candidates=candidates,
        similarities=keyword_similarities(candidates, vectors, embedder).per_paper,
    )


def corpus_rows(corpus: RankedCorpus, stats: WordStats) -> CorpusRows:
    """The features of every candidate the ranker sees (``may_show``), labelled by the real titles: 1 for
    a whole phrase of the title ("multi-agent reinforcement learning", not its tail)."""
    from generator.analysis.keyphrases import abstract_candidates

    candidates = corpus.candidates
    rows, keys, labels = [], [], []
    papers = len(corpus.ids)
    for title, paper_candidates, similarity in zip(
        corpus.titles, candidates.per_paper, corpus.similarities, strict=True
    ):
        ranked = [key for key in similarity if may_show(paper_candidates[key], stats)]
        cosines = [similarity[key] for key in ranked]
        rows.append(paper_features(ranked, cosines, paper_candidates, candidates.papers_using, papers, stats))
        keys.append(ranked)
        named = set(abstract_candidates(title, tails=False))
        labels.append(np.array([key in named for key in ranked], dtype=bool))
    return CorpusRows(corpus, rows, keys, labels)


def fit(rows: list[np.ndarray], labels: list[np.ndarray], title_bonus: float) -> KeywordModel:
    """Boosted trees (logistic loss) on every candidate's features; fixed seed, no early stopping
    (which would hold out a random part), so the same rows give the same trees."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    boosting = HistGradientBoostingClassifier(
        learning_rate=LEARNING_RATE,
        max_iter=TREES,
        max_leaf_nodes=LEAVES,
        min_samples_leaf=MIN_LEAF,
        monotonic_cst=[MONOTONIC.get(name, 0) for name in FEATURES],
        early_stopping=False,
        random_state=0,
    ).fit(np.vstack(rows), np.concatenate(labels))
    return KeywordModel(
        features=FEATURES,
        trees=BoostedTrees.from_histogram_boosting(boosting),
        title_bonus=title_bonus,
    )


def f1_at_5(corpus: CorpusRows, model: KeywordModel, stats: WordStats, evaluation, gold, only=None) -> float:
    from generator.analysis.keywords import choose_keywords

    found = choose_keywords(
        corpus.corpus.candidates, corpus.corpus.similarities, 5, model, stats, strays=None
    )
    ours = {
        paper_id: [k.text for k in keywords]
        for paper_id, keywords in zip(corpus.corpus.ids, found, strict=True)
    }
    scored = gold if only is None else [record for record in gold if record["id"] in only]
    return evaluation.keyword_f1(scored, ours, 5)[0]


def lone_word_counts(
    per_paper: list[dict[str, Candidate]], author_keywords: list[list[str]]
) -> dict[str, tuple[int, int]]:
    """Per candidate: the papers whose abstract uses it, and those of them whose authors list it among
    their keywords (same key: "Transformers" is "transformer")."""
    used: Counter[str] = Counter()
    alone: Counter[str] = Counter()
    for candidates, keywords in zip(per_paper, author_keywords, strict=True):
        listed = {canonical_key(keyword) for keyword in keywords}
        for key, candidate in candidates.items():
            if candidate.count:
                used[key] += 1
                alone[key] += key in listed
    return {key: (used[key], alone[key]) for key in sorted(used)}


def fit_lone_words(
    counts: dict[str, tuple[int, int]],
    stats: WordStats,
    strength: float,
    threshold: float,
    forms: Mapping[str, str],
    weight: float,
) -> LoneWords:
    """``LoneWords`` from ``lone_word_counts``: the prior is a logistic regression of "listed alone"
    on ``lone_features``, one weighted row per word and outcome."""
    from sklearn.linear_model import LogisticRegression

    keys = sorted(counts)
    features = np.array([lone_features(key, forms.get(key, key), stats) for key in keys])
    listed = np.array([counts[key][1] for key in keys], dtype=float)
    not_listed = np.array([counts[key][0] for key in keys], dtype=float) - listed
    rows = np.vstack([features, features])
    labels = np.r_[np.ones(len(keys)), np.zeros(len(keys))]
    weights = np.r_[listed, not_listed]
    kept = weights > 0
    regression = LogisticRegression(max_iter=5000).fit(rows[kept], labels[kept], sample_weight=weights[kept])
    return LoneWords(
        counts=counts,
        coefficients=tuple(float(c) for c in regression.coef_[0]),
        intercept=float(regression.intercept_[0]),
        strength=strength,
        threshold=threshold,
        weight=weight,
    )


def author_keyword_corpus(path: Path) -> tuple[list[str], list[dict[str, Candidate]], list[list[str]]]:
    """Ids, abstract candidates (as a build finds them from the abstract alone) and author keywords."""
    from generator.analysis.keywords import find_candidates

    records = [json.loads(line) for line in path.open(encoding="utf-8")]
    candidates = find_candidates([r["abstract"] for r in records], [None] * len(records), 5, lone=EVERY_WORD)
    return [r["id"] for r in records], candidates.per_paper, [r.get("keywords") or [] for r in records]


def lone_words_of(path: Path, stats: WordStats, ids: set[str] | None = None) -> LoneWords:
    """``LoneWords`` learned from the author keywords of the papers of ``path`` (those of ``ids``)."""
    paper_ids, per_paper, keywords = author_keyword_corpus(path)
    chosen = [i for i, paper_id in enumerate(paper_ids) if ids is None or paper_id in ids]
    counts = lone_word_counts([per_paper[i] for i in chosen], [keywords[i] for i in chosen])
    forms = {key: candidate.form for i in chosen for key, candidate in per_paper[i].items()}
    return fit_lone_words(counts, stats, LONE_STRENGTH, LONE_THRESHOLD, forms, LONE_WEIGHT)


def write_lone_words(path: Path, stats: WordStats) -> None:
    lone = lone_words_of(path, stats)
    (PACKAGE_DATA / LONE_WORDS_FILE).write_text(
        json.dumps(lone.to_json(), sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8"
    )
    shown = sorted((k for k in lone.counts if " " not in k), key=lambda key: -lone.counts[key][0])[:40]
    coefficients = dict(zip(LONE_FEATURES, lone.coefficients, strict=True))
    print(f"{len(lone.counts)} phrases; prior coefficients {coefficients}")
    print("most used: " + ", ".join(f"{key} {lone.rate(key, key, stats):.3f}" for key in shown))
    print(f"wrote {PACKAGE_DATA / LONE_WORDS_FILE}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shared", type=Path, default=PROJECT_ROOT.parent / "shared")
    parser.add_argument("--cache-dir", type=Path, default=PROJECT_ROOT / ".cache" / "paper-digest")
    parser.add_argument("--no-write", action="store_true", help="score only; leave the package data as it is")
    parser.add_argument(
        "--word-stats",
        type=Path,
        help="reuse these word statistics (e.g. the shipped file) instead of counting them again (15 min)",
    )
    parser.add_argument(
        "--lone-words-only",
        action="store_true",
        help="only learn which words authors list alone (lone_words.json, seconds: no embeddings)",
    )
    arguments = parser.parse_args()
    corpora = arguments.shared / "corpora"
    evaluation = load_eval(arguments.shared / "eval" / "digest_eval.py")
    if arguments.lone_words_only:
        write_lone_words(
            corpora / HELD_OUT, stats_of(json.loads((PACKAGE_DATA / WORD_STATS_FILE).read_text()))
        )
        return

    started = time.perf_counter()
    if arguments.word_stats:
        statistics = json.loads(arguments.word_stats.read_text(encoding="utf-8"))
    else:
        statistics = word_statistics(corpora / WORD_CORPUS)
    stats = stats_of(statistics)
    print(
        f"word statistics: {len(stats.counts)} words, {len(stats.phrases)} phrases "
        f"({time.perf_counter() - started:.0f} s)",
        flush=True,
    )

    from generator.analysis.embed import SentenceTransformerEmbedder
    from generator.cache.embeddings import CachedEmbedder, EmbeddingCache

    embedder = CachedEmbedder(
        SentenceTransformerEmbedder(), EmbeddingCache.open(arguments.cache_dir / "cache.sqlite3")
    )
    training = [corpus_rows(ranked_corpus(corpora / name, embedder, True), stats) for name in TRAINING_SETS]
    for name, corpus in zip(TRAINING_SETS, training, strict=True):
        count = sum(len(r) for r in corpus.rows)
        positive = int(sum(label.sum() for label in corpus.title_labels))
        print(
            f"{name}: {len(corpus.corpus.ids)} papers, {count} ranked candidates, {positive} in the title",
            flush=True,
        )
    model = fit(
        [r for c in training for r in c.rows],
        [lab for c in training for lab in c.title_labels],
        SHIPPED_TITLE_BONUS,
    )
    print(f"    {len(model.trees.roots)} trees, {int(model.trees.leaf.sum())} leaves", flush=True)

    held_out = corpus_rows(ranked_corpus(corpora / HELD_OUT, embedder, False), stats)
    gold = evaluation.load(str(corpora / HELD_OUT))
    print(f"\n{HELD_OUT} author keywords, F1@5 (titles given, as a build has them):")
    for bonus in TITLE_BONUSES:
        trial = replace(model, title_bonus=bonus)
        mark = "  <- shipped" if bonus == SHIPPED_TITLE_BONUS else ""
        score = f1_at_5(held_out, trial, stats, evaluation, gold)
        print(f"    trained on NLP + CVPR titles, title bonus {bonus:.1f}: {score:.4f}{mark}")

    # Within NeurIPS: two halves by id, each scored by a model trained on the other's author keywords.
    normalised = {r["id"]: {evaluation.norm_phrase(k) for k in r.get("keywords") or []} for r in gold}
    spellings = held_out.corpus.candidates.spellings
    author_labels = [
        np.array([evaluation.norm_phrase(spellings[key]) in normalised[paper_id] for key in keys], dtype=bool)
        for paper_id, keys in zip(held_out.corpus.ids, held_out.keys, strict=True)
    ]
    halves = [sorted(held_out.corpus.ids)[half::2] for half in (0, 1)]
    scores = []
    for half in (0, 1):
        train_ids = set(halves[1 - half])
        chosen = [i for i, paper_id in enumerate(held_out.corpus.ids) if paper_id in train_ids]
        within = fit(
            [held_out.rows[i] for i in chosen], [author_labels[i] for i in chosen], SHIPPED_TITLE_BONUS
        )
        scores.append(f1_at_5(held_out, within, stats, evaluation, gold, only=set(halves[half])))
    print(f"    within NeurIPS, 2-fold on author keywords (title bonus {SHIPPED_TITLE_BONUS}): "
          f"{np.mean(scores):.4f} ({scores[0]:.4f}, {scores[1]:.4f})")  # fmt: skip

    if not arguments.no_write:
        (PACKAGE_DATA / WORD_STATS_FILE).write_text(
            json.dumps(statistics, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8"
        )
        (PACKAGE_DATA / MODEL_FILE).write_text(
            json.dumps(model.to_json(), separators=(",", ":")) + "\n", encoding="utf-8"
        )
        print(f"wrote {PACKAGE_DATA / WORD_STATS_FILE} and {PACKAGE_DATA / MODEL_FILE}")
    print(f"{time.perf_counter() - started:.0f} s in all; {embedder.misses} texts newly embedded")


if __name__ == "__main__":
    main()

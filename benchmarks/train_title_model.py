"""Train the title scorer on real (abstract, title) pairs, evaluate it leave-one-corpus-out, ship it.

    python benchmarks/train_title_model.py [--corpora A.jsonl B.jsonl C.jsonl] [--cache /tmp/titles]
                                           [--scale SCALE.jsonl] [--scale-sample N] [--held-out NAME]
                                           [--no-ship] [--no-loco] [--out MODEL.npz] [--show N]
                                           [--verdicts]

Every candidate title of every abstract (``generator.analysis.titles.title_candidates``) is a training
row; its target is its ROUGE-1 against the paper's real title (the measure of
``benchmarks/title_quality.py``) above the mean of its abstract's candidates. Gradient-boosted
regression trees (scikit-learn's HistGradientBoostingRegressor, fixed seed) learn it; a
HistGradientBoostingClassifier learns which name candidate a real title leads with ("Name: …"), and
its threshold is the lowest whose ROUGE-1 is within NAME_TOLERANCE of the best on papers it did not
see and at which no more derived titles lead with a name than real titles do (NAME_LEAD_RATIO). The
detector reads the words around each use of a name, rated by how often real titles lead with a name
used among them (``ContextCounts``). Printed: for each corpus held out (trained on the other two and
the scale sample), the ROUGE-1 of the chosen titles, of the extractive oracle (the best candidate), of
the first twelve words; the names kept
(of the real titles "Name: …" whose name the abstract uses, the share of derived titles carrying
it); background titles (derived, and the detector's false alarms on the real ones); what other name
thresholds would give. Then the model trained on all three corpora (and the scale sample, below) is
written to ``generator/analysis/title_model.npz`` (package data). Same corpora, same code: same model
(fixed seeds).

Extra training rows: a fixed-seed sample of ``--scale-sample`` papers (default SCALE_SAMPLE) of
``--scale`` (default ``../shared/corpora/scale_50k.jsonl``: real titles and abstracts of 19 conferences,
sharing no venue-year and no title with the development corpora), added to the training papers of
every held-out fold and of the shipped model; it is never scored. ``--scale-sample 0`` trains on the
development corpora alone. Every statistic over training titles (title rates, name usage) leaves a
training paper's own title out, so the scale papers see no answer of their own either.

ICML 2024 is refused: the bundled abstracts come from it. Candidates and targets are cached under
``--cache`` (keyed by the candidate code's source), so retraining after a model change is quick.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import pickle
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from sklearn.base import clone  # noqa: E402
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor  # noqa: E402
from sklearn.model_selection import GroupKFold, cross_val_predict  # noqa: E402
from title_quality import (  # noqa: E402
    HELD_BACK,
    content_stems,
    description_stops_short,
    leading_name,
    method_name,
    name_led,
    rouge1,
    share,
)

from generator.analysis import text as text_module  # noqa: E402
from generator.analysis import titles  # noqa: E402
from generator.analysis.boosted_trees import BoostedTrees  # noqa: E402
from generator.analysis.keyphrases.wordlists import VERBS  # noqa: E402
from generator.analysis.title_usage import USAGE_FILE  # noqa: E402
from generator.analysis.titles import (  # noqa: E402
    NameCandidate,
    NameContextRates,
    TitleCandidate,
    TitleModel,
    abstract_facts,
    best_candidate,
    candidate_features,
    content_words,
    hide_math,
    is_background,
    lead_with_name,
    name_candidates,
    name_contexts,
    name_features,
    name_marks,
    restore_math,
    title_candidates,
    word_features,
)

SHARED = PROJECT_ROOT.parent / "shared" / "corpora"
SCALE_CORPUS = SHARED / "scale_50k.jsonl"
SCALE_SAMPLE = 10_000
"""Scale papers added to the training rows: a fixed-seed sample, as candidates cost time to make."""
DEFAULT_CORPORA = [
    SHARED / "neurips2023.jsonl",
    SHARED / "nlp_acl2020_emnlp2020_eacl2021.jsonl",
    SHARED / "cvpr2019.jsonl",
]
MODEL_PATH = PROJECT_ROOT / "generator" / "analysis" / titles.MODEL_FILE
SEED = 0
RATE_SMOOTHING = 5.0
"""Pseudo-counts of the average rate added to each word's title rate."""
NAME_TOLERANCE = 0.002
"""Mean ROUGE-1 per paper the name threshold may give up to lead more titles with their name."""
NAME_LEAD_RATIO = 1.0
"""At most this many derived titles lead with a name for each real title of the training papers that
does (measured on papers the detector did not see)."""
MIN_ABSTRACTS = 3
"""A word's title rate is kept when at least this many training abstracts use it."""


@dataclass
class Paper:
    corpus: str
    abstract: str
    title: str
    plain: str
    formulas: list[str]
    candidates: list[TitleCandidate]
    rules_name: str | None
    targets: np.ndarray
    """Each candidate's ROUGE-1 against the real title."""
    names: list[NameCandidate]
    name_labels: np.ndarray
    """Whether each name candidate is the name the real title leads with."""
    real_name: str | None
    """The name the real title leads with ("Name: …"), when the abstract uses it."""
    abstract_words: set[str]
    title_words: set[str]


def load(corpus: Path) -> list[dict]:
    if corpus.name in HELD_BACK:
        raise SystemExit(f"{corpus.name} is held back from title work (the bundled abstracts come from it)")
    with corpus.open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return [r for r in records if r.get("title") and r.get("abstract")]


def candidate_code() -> bytes:
    """The source that decides the candidates and their targets (the features are made afresh)."""
    makers = (
        title_candidates,
        titles._variants,
        titles._phrase_runs,
        name_candidates,
        name_marks,
        titles._long_form,
        titles._gerund_phrases,
        titles.acted_on,
        titles._ing_base,
        titles.object_phrases,
        titles.names_the_work,
        titles.gerund,
        titles.typeface_word,
        hide_math,
        restore_math,
    )
    patterns = (titles._PIECE_BREAK, titles._SUBJECT_VERB, titles._CONNECTORS, titles.MAX_SENTENCES)
    patterns += (titles._NAME_TOKEN, titles._CAPITALISED_RUN, titles._INTRODUCING, titles.NAME_FEATURES)
    patterns += (titles._TYPEFACE_MACRO, titles._MARKDOWN_STRONG, titles._QUOTED, titles._REPOSITORY)
    patterns += (titles._DASH, titles._EN_DASH, titles._PREDICATE)
    patterns += (titles._VERB_AND_OBJECT, titles._OBJECT_START, titles._NOT_A_START, VERBS)
    patterns += (titles._DETERMINERS, titles._PARTICIPLES)
    # repr of a frozenset follows the string hashes of the run (PYTHONHASHSEED): sorted, the key is stable
    stable = [sorted(p) if isinstance(p, frozenset | set) else p for p in patterns]
    source = "".join(inspect.getsource(f) for f in makers) + repr(stable)
    # the learned openings and verbs decide gerund candidates
    usage = (PROJECT_ROOT / "generator" / "analysis" / USAGE_FILE).read_bytes()
    grammar_source = Path(text_module.__file__).read_bytes()
    return source.encode() + grammar_source + inspect.getsource(prepare).encode() + usage


def prepare(corpus: Path, cache: Path, sample: int | None = None) -> list[Paper]:
    """Each paper of the corpus, or of a fixed-seed sample of ``sample`` of its papers."""
    named = f"{corpus.name}:{sample}" if sample else corpus.name
    key = hashlib.sha256(candidate_code() + named.encode()).hexdigest()[:16]
    path = cache / f"{corpus.stem}{f'-{sample}' if sample else ''}-{key}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes())
    started = time.time()
    records = load(corpus)
    if sample and sample < len(records):
        records = random.Random(SEED).sample(records, sample)
    papers = []
    for record in records:
        plain, formulas = hide_math(record["abstract"])
        candidates, rules_name = title_candidates(plain)
        real = content_stems(record["title"])
        targets = [rouge1(restore_math(c.text, formulas), real) for c in candidates]
        names = name_candidates(plain, name_marks(record["abstract"]))
        real_name = method_name(record["title"], record["abstract"])
        papers.append(
            Paper(
                corpus=corpus.stem,
                abstract=record["abstract"],
                title=record["title"],
                plain=plain,
                formulas=formulas,
                candidates=candidates,
                rules_name=rules_name,
                targets=np.array(targets, dtype=np.float32),
                names=names,
                # "Rank-N-Contrast (RNC)" carries the name whichever of its forms the title uses
                name_labels=np.array([real_name in n.forms for n in names], dtype=bool),
                real_name=real_name,
                abstract_words=set(content_words(plain)),
                title_words=set(content_words(record["title"])),
            )
        )
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(papers))
    print(f"{named}: {len(papers)} papers, candidates made in {time.time() - started:.0f} s", flush=True)
    return papers


@dataclass
class WordCounts:
    in_abstract: Counter[str]
    in_both: Counter[str]

    @classmethod
    def of(cls, papers: list[Paper]) -> WordCounts:
        in_abstract, in_both = Counter(), Counter()
        for paper in papers:
            in_abstract.update(paper.abstract_words)
            in_both.update(paper.abstract_words & paper.title_words)
        return cls(in_abstract, in_both)

    @property
    def base_rate(self) -> float:
        return sum(self.in_both.values()) / max(1, sum(self.in_abstract.values()))

    def rates(self) -> dict[str, float]:
        """Each word's smoothed share of abstracts using it whose title uses it too."""
        return {
            word: self.rate(seen, self.in_both[word])
            for word, seen in self.in_abstract.items()
            if seen >= MIN_ABSTRACTS
        }

    def rate(self, seen: int, both: int) -> float:
        return smoothed_rate(both, seen, self.base_rate)


def smoothed_rate(hits: int, seen: int, base: float) -> float:
    """A share of ``hits`` in ``seen`` pulled towards ``base`` by ``RATE_SMOOTHING`` pseudo-counts."""
    return (hits + RATE_SMOOTHING * base) / (seen + RATE_SMOOTHING)


def own_rates(paper: Paper, counts: WordCounts, shared: dict[str, float]) -> dict[str, float]:
    """The title rates a training paper sees: its own title left out (a row must not see its answer)."""
    rates = dict(shared)
    for word in paper.abstract_words:
        seen = counts.in_abstract[word] - 1
        if seen >= MIN_ABSTRACTS:
            rates[word] = counts.rate(seen, counts.in_both[word] - (word in paper.title_words))
        else:
            rates.pop(word, None)
    return rates


def fit_words(
    papers: list[Paper], counts: WordCounts
) -> tuple[HistGradientBoostingClassifier, list[dict[str, float]]]:
    """The word model (is a content word of the abstract in the title?) and, for each training paper,
    its words' chances as predicted by a model that did not see that paper (three folds): the title
    scorer must learn from chances as good as those it will get."""
    shared = counts.rates()
    made = [
        word_features(p.plain, p.rules_name, own_rates(p, counts, shared), counts.base_rate) for p in papers
    ]
    x = np.concatenate([rows for _, rows in made])
    y = np.concatenate(
        [
            np.array([w in p.title_words for w in words], dtype=bool)
            for p, (words, _) in zip(papers, made, strict=True)
        ]
    )
    groups = np.concatenate([np.full(len(words), i) for i, (words, _) in enumerate(made)])
    odds = cross_val_predict(
        word_classifier(), x, y, groups=groups, cv=GroupKFold(n_splits=3), method="decision_function"
    )
    chances = 1 / (1 + np.exp(-odds))
    starts = np.cumsum([0] + [len(words) for words, _ in made])
    held_out = [
        dict(zip(words, chances[starts[i] : starts[i + 1]].tolist(), strict=True))
        for i, (words, _) in enumerate(made)
    ]
    return word_classifier().fit(x, y), held_out


def word_classifier() -> HistGradientBoostingClassifier:
    return HistGradientBoostingClassifier(
        max_iter=100, learning_rate=0.1, max_leaf_nodes=15, min_samples_leaf=40, random_state=SEED
    )


def features_of(papers: list[Paper], counts: WordCounts, chances: list[dict[str, float]]) -> list[np.ndarray]:
    """Training rows: each paper's title rates leave its own title out (a row must not see its answer)."""
    shared = counts.rates()
    out = []
    for paper, chance in zip(papers, chances, strict=True):
        facts = abstract_facts(paper.plain, paper.rules_name, chance)
        out.append(
            candidate_features(paper.candidates, facts, own_rates(paper, counts, shared), counts.base_rate)
        )
    return out


def fit_titles(
    papers: list[Paper], counts: WordCounts, chances: list[dict[str, float]]
) -> tuple[HistGradientBoostingRegressor, list[str]]:
    """The candidate scorer, and the candidate it picks for each training paper."""
    rows = features_of(papers, counts, chances)
    model = HistGradientBoostingRegressor(
        max_iter=300, learning_rate=0.05, max_leaf_nodes=31, min_samples_leaf=40, random_state=SEED
    )
    # Only the order within an abstract matters: each candidate's target is its ROUGE-1 above the
    # abstract's mean (0.4068 against 0.4036 for the plain ROUGE-1, NeurIPS held out, names aside).
    relative = [p.targets - p.targets.mean() if len(p.targets) else p.targets for p in papers]
    x, y = np.concatenate(rows), np.concatenate(relative)
    groups = np.concatenate([np.full(len(r), i) for i, r in enumerate(rows)])
    # The name threshold is judged with the descriptions of papers the scorer did not see, as at build
    # time: its picks for the papers it learned from are better than any it makes, so that a name
    # seems to add less than it does.
    held_out = cross_val_predict(clone(model), x, y, groups=groups, cv=GroupKFold(n_splits=3))
    starts = np.cumsum([0] + [len(r) for r in rows])
    picked = [
        best_candidate(paper.candidates, r, held_out[starts[i] : starts[i + 1]], paper.plain)
        if len(r)
        else ""
        for i, (paper, r) in enumerate(zip(papers, rows, strict=True))
    ]
    return model.fit(x, y), picked


def name_usage(papers: list[Paper]) -> Counter[str]:
    """How many abstracts use each name candidate (lower-cased)."""
    usage: Counter[str] = Counter()
    for paper in papers:
        usage.update({n.name.lower() for n in paper.names})
    return usage


def contexts_of(papers: list[Paper]) -> list[list[frozenset[str]]]:
    return [[name_contexts(p.plain, n) for n in p.names] for p in papers]


def _count(paper: Paper, found: list[frozenset[str]], seen: Counter[str], led: Counter[str]) -> None:
    """Add a paper's name candidates' context words to ``seen``, and to ``led`` those of the name its
    real title leads with."""
    for context, label in zip(found, paper.name_labels, strict=True):
        seen.update(context)
        if label:
            led.update(context)


@dataclass
class ContextCounts:
    """Over the training papers' name candidates: how many have each context word, and how many of
    those their real title leads with."""

    seen: Counter[str]
    led: Counter[str]
    base: float

    @classmethod
    def of(cls, papers: list[Paper], contexts: list[list[frozenset[str]]]) -> ContextCounts:
        seen, led = Counter(), Counter()
        for paper, found in zip(papers, contexts, strict=True):
            _count(paper, found, seen, led)
        labels = np.concatenate([p.name_labels for p in papers]) if papers else np.zeros(0)
        return cls(seen, led, float(labels.mean()) if len(labels) else 0.5)

    def rate(self, seen: int, led: int) -> float:
        return smoothed_rate(led, seen, self.base)

    def rates(self) -> NameContextRates:
        return NameContextRates(
            {w: round(self.rate(n, self.led[w]), 4) for w, n in self.seen.items() if n >= MIN_ABSTRACTS},
            self.base,
        )

    def left_out(self, paper: Paper, found: list[frozenset[str]]) -> NameContextRates:
        """The rates a training paper sees: its own candidates left out (a row must not see its answer)."""
        seen, led = Counter(), Counter()
        _count(paper, found, seen, led)
        return NameContextRates(
            {
                w: self.rate(self.seen[w] - n, self.led[w] - led[w])
                for w, n in seen.items()
                if self.seen[w] - n >= MIN_ABSTRACTS
            },
            self.base,
        )


def name_rows(
    papers: list[Paper],
    usage: Counter[str],
    chances: list[dict[str, float]],
    contexts: list[list[frozenset[str]]],
    context_counts: ContextCounts,
) -> tuple[np.ndarray, np.ndarray]:
    """Name candidates' features; a training paper's own use of a name, and its own candidates'
    contexts, are not counted."""
    rows = [
        name_features(
            p.names,
            {n.name.lower(): float(np.log1p(usage[n.name.lower()] - 1)) for n in p.names},
            chance,
            found,
            context_counts.left_out(p, found),
        )
        for p, chance, found in zip(papers, chances, contexts, strict=True)
    ]
    groups = np.concatenate([np.full(len(p.names), i) for i, p in enumerate(papers)])
    return np.concatenate(rows), groups


def name_classifier() -> HistGradientBoostingClassifier:
    return HistGradientBoostingClassifier(
        max_iter=150, learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=20, random_state=SEED
    )


def fit_names(
    papers: list[Paper],
    usage: Counter[str],
    descriptions: list[str],
    chances: list[dict[str, float]],
    contexts: list[list[frozenset[str]]],
    context_counts: ContextCounts,
) -> tuple[HistGradientBoostingClassifier, float]:
    """The name detector and its threshold: about the log-odds above which leading the title with the
    best name candidate raises the titles' ROUGE-1 most (a right name gains a word, a wrong one costs
    precision), judged on predictions for papers the detector did not see (three folds of the
    training papers) and the description the title scorer picked for each."""
    x, groups = name_rows(papers, usage, chances, contexts, context_counts)
    y = np.concatenate([p.name_labels for p in papers])
    held_out = cross_val_predict(
        name_classifier(), x, y, groups=groups, cv=GroupKFold(n_splits=3), method="decision_function"
    )
    scores, gains, more_led = [], [], []
    led_anyway = 0  # titles leading with a name whatever the threshold ("SkimNet, a reader …")
    starts = np.searchsorted(groups, np.arange(len(papers)))
    for i, (paper, description) in enumerate(zip(papers, descriptions, strict=True)):
        plain = restore_math(lead_with_name(description, None), paper.formulas)
        unled = leading_name(plain) is not None
        led_anyway += unled
        if not paper.names or not description:
            continue
        mine = held_out[starts[i] : starts[i] + len(paper.names)]
        name, score = titles.likeliest_name(paper.plain, [n.name for n in paper.names], mine)
        if name is None:
            continue
        led = restore_math(lead_with_name(description, name), paper.formulas)
        scores.append(score)
        gains.append(rouge1(led, paper.title) - rouge1(plain, paper.title))
        more_led.append((leading_name(led) is not None) - unled)
    order = np.argsort(scores)[::-1]
    # leading with every name scored at least scores[order[k]]: the gain summed over them
    cumulative = np.cumsum(np.array(gains)[order])
    # ROUGE-1 barely moves over a wide range of thresholds (NeurIPS held out: 0.410 at the best, 0.409
    # two log-odds lower, with 87 % of names kept instead of 71 %): the lowest threshold that costs at
    # most NAME_TOLERANCE of mean ROUGE-1 keeps the most names the data does not object to.
    tolerable = np.flatnonzero(cumulative >= cumulative.max() - NAME_TOLERANCE * len(papers))
    lowest = int(tolerable.max())
    # ... but the digest claims a name for a paper no more often than authors do: leading titles with
    # names where the evidence is weak is what makes a baseline or a dataset lead
    real_led = sum(leading_name(p.title) is not None for p in papers)
    titles_led = led_anyway + np.cumsum(np.array(more_led)[order])
    within = np.flatnonzero(titles_led <= NAME_LEAD_RATIO * real_led)
    lowest = min(lowest, int(within.max())) if len(within) else -1
    sorted_scores = np.array(scores)[order]
    threshold = float(sorted_scores[lowest]) if cumulative.max() > 0 and lowest >= 0 else float("inf")
    return name_classifier().fit(x, y), threshold


def train(papers: list[Paper]) -> TitleModel:
    counts = WordCounts.of(papers)
    usage = name_usage(papers)
    words, chances = fit_words(papers, counts)
    scorer, picked = fit_titles(papers, counts, chances)
    contexts = contexts_of(papers)
    context_counts = ContextCounts.of(papers, contexts)
    names, threshold = fit_names(papers, usage, picked, chances, contexts, context_counts)
    return TitleModel(
        titles=BoostedTrees.from_histogram_boosting(scorer),
        names=BoostedTrees.from_histogram_boosting(names),
        name_threshold=threshold,
        title_rate={w: round(r, 4) for w, r in counts.rates().items()},
        base_rate=counts.base_rate,
        abstracts_using={name: round(float(np.log1p(n)), 3) for name, n in usage.items() if n >= 2},
        words=BoostedTrees.from_histogram_boosting(words),
        name_context=context_counts.rates(),
    )


def first_words(abstract: str) -> str:
    return " ".join(abstract.split()[:12])


NAME_THRESHOLD_SHIFTS = (-1.0, 0.0, 1.0, 2.0)
"""Name thresholds tried beside the chosen one, to show what keeping more names costs."""


def evaluate(
    papers: list[Paper], model: TitleModel, show: int = 0, verdicts: titles.VerdictModel | None = None
) -> dict[str, float]:
    marks = [name_marks(p.abstract) for p in papers]
    scored = titles.score_titles([p.plain for p in papers], model, marks, verdicts)
    chosen, oracle, first12, names, kept, background, real_background, led = [], [], [], 0, 0, 0, 0, 0
    led_real, leads, short = 0, Counter(), 0
    trade_off = {shift: ([], []) for shift in NAME_THRESHOLD_SHIFTS}
    for position, (paper, scores) in enumerate(zip(papers, scored, strict=True)):
        title = restore_math(scores.title(model.name_threshold), paper.formulas)
        chosen.append(rouge1(title, paper.title))
        oracle.append(float(paper.targets.max()) if len(paper.targets) else chosen[-1])
        first12.append(rouge1(first_words(paper.abstract), paper.title))
        background += is_background(title)
        real_background += is_background(paper.title)
        led += leading_name(title) is not None
        short += description_stops_short(title, paper.abstract)
        led_real += leading_name(paper.title) is not None
        if paper.real_name:
            names += 1
            kept += paper.real_name in title
            leads[name_led(title, paper.real_name)] += 1
        for shift, (rouges, kept_names) in trade_off.items():
            other = restore_math(scores.title(model.name_threshold + shift), paper.formulas)
            rouges.append(rouge1(other, paper.title))
            if paper.real_name:
                kept_names.append(paper.real_name in other)
        if position < show:
            print(f"  {chosen[-1]:.2f} {title!r}\n       real: {paper.title!r}")
    n = len(papers)
    return {
        "papers": n,
        "rouge": float(np.mean(chosen)),
        "oracle": float(np.mean(oracle)),
        "first12": float(np.mean(first12)),
        "names": names,
        "kept": kept / names if names else float("nan"),
        "background": background / n,
        "real_background": real_background / n,
        "led": led / n,
        "led_real": led_real / n,
        "leads": "/".join(share(leads, k) for k in ("right", "wrong", "none")),
        "short": short / n,
        "trade_off": "; ".join(
            f"{shift:+.0f}: {np.mean(r):.3f} / {np.mean(k):.0%}" for shift, (r, k) in trade_off.items()
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", nargs="+", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/titles"))
    parser.add_argument(
        "--scale", type=Path, default=SCALE_CORPUS, help="extra training papers, never scored"
    )
    parser.add_argument(
        "--scale-sample", type=int, default=SCALE_SAMPLE, help="how many scale papers (0: none)"
    )
    parser.add_argument("--held-out", help="score only this corpus held out (its file's stem)")
    parser.add_argument(
        "--save-folds", type=Path, help="also write each fold's model as DIR/<held-out stem>.npz"
    )
    parser.add_argument("--no-ship", action="store_true", help="evaluate only; leave the shipped model")
    parser.add_argument(
        "--out", type=Path, default=MODEL_PATH, help="where the model goes (default: shipped)"
    )
    parser.add_argument("--no-loco", action="store_true", help="skip the leave-one-corpus-out table")
    parser.add_argument("--show", type=int, default=0, help="print the first N titles of each held-out set")
    parser.add_argument(
        "--verdicts",
        action="store_true",
        help="score each held-out set twice: as the model chooses, and with the shipped readers' verdicts",
    )
    arguments = parser.parse_args(argv)

    corpora = {c.stem: prepare(c, arguments.cache) for c in arguments.corpora}
    extra = (
        prepare(arguments.scale, arguments.cache, arguments.scale_sample) if arguments.scale_sample else []
    )
    print(f"training papers added from {arguments.scale.name}: {len(extra)}", flush=True)
    for name, papers in corpora.items():
        sizes = [len(p.candidates) for p in papers]
        print(f"{name}: {np.mean(sizes):.1f} candidates an abstract (max {max(sizes)})", flush=True)
    print(
        f"\n{'held out':38s} {'papers':>6s} {'chosen':>6s} {'oracle':>6s} {'first12':>7s} "
        f"{'names kept':>14s} {'Name: …':>7s} {'background':>10s} {'(real)':>6s}"
    )
    folds = [] if arguments.no_loco else corpora.items()
    for held_out, test in [(n, t) for n, t in folds if arguments.held_out in (None, n)]:
        started = time.time()
        model = train([p for name, papers in corpora.items() if name != held_out for p in papers] + extra)
        if arguments.save_folds:  # held-out models for benchmarks that read them (own_name_floor.py)
            arguments.save_folds.mkdir(parents=True, exist_ok=True)
            model.save(arguments.save_folds / f"{held_out}.npz")
        ways = [("", None)]
        if arguments.verdicts:
            ways.append(("  with readers' verdicts", titles.shipped_verdicts()))
        for way, verdicts in ways:
            result = evaluate(test, model, arguments.show, verdicts)
            print(
                f"{held_out + way:38s} {result['papers']:6d} {result['rouge']:6.3f} {result['oracle']:6.3f} "
                f"{result['first12']:7.3f} {result['kept']:6.1%} of {result['names']:4d} "
                f"{result['led']:7.1%} "
                f"{result['background']:10.1%} {result['real_background']:6.1%}  "
                f"(name threshold {model.name_threshold:+.1f}; {time.time() - started:.0f} s)\n"
                f"{'':38s} names led right/wrong/none {result['leads']}; titles leading with a name "
                f"{result['led']:.1%} (real {result['led_real']:.1%}); descriptions stopping short "
                f"{result['short']:.1%}\n"
                f"{'':38s} name threshold shifted: ROUGE-1 / names kept  {result['trade_off']}",
                flush=True,
            )
    if not arguments.no_ship:
        model = train([p for papers in corpora.values() for p in papers] + extra)
        model.save(arguments.out)
        print(f"\nwrote {arguments.out} ({arguments.out.stat().st_size / 1e3:.0f} kB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

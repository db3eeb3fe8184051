"""What makes a candidate a keyword, learned from real papers: word statistics and a ranking model.

Both ship as package data and are made by ``benchmarks/train_keyword_ranker.py`` from the shared
corpora (never from ICML 2024, nor from the NeurIPS 2023 author keywords the ranker is scored on):

- ``word_stats.json``: for each word of 50,000 abstracts of 19 conferences (``scale_50k``), how many
  abstracts use it, how many of those have it in their title too, how often it ends a noun phrase
  ("the size of", "of robustness.") and how often it is plural; for each phrase of two or three
  words, how many abstracts use it and how many of those titles. A word many abstracts use but seldom
  put in their title is *common* (a filler such as "addition", "size", "research", "order"); a word
  that seldom ends a noun phrase and has no plural is *not a noun* ("linear", "finite",
  "challenging", "discuss"). Neither is ever a keyword on its own.
- ``keyword_ranker.json``: gradient-boosted trees over each candidate's features (``FEATURES``),
  trained on the NLP and CVPR sets with the phrases of each paper's real title as weak labels of
  its key phrases (a title names what the paper is about), the titles hidden from the features.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import numpy as np

from generator.analysis.boosted_trees import BoostedTrees
from generator.analysis.keyphrases.candidates import Candidate
from generator.analysis.keyphrases.canonical import is_acronym, singular
from generator.analysis.keyphrases.wordlists import FUNCTION_WORDS, GENERIC_ALONE, GENERIC_EDGE, NO_END, VERBS
from generator.analysis.logistic import StandardisedLogistic

WORD_STATS_FILE = "word_stats.json"
MODEL_FILE = "keyword_ranker.json"
LONE_WORDS_FILE = "lone_words.json"

TITLE_RATE_PRIOR_WEIGHT = 20.0
"""Abstracts' worth of the average title rate mixed into each word's own, so a rare word is judged
by the average rather than by a handful of papers."""
COMMON_TITLE_RATE = 0.05
"""A word that at most this share of the abstracts using it have in their title is a filler: the
average word is in 8 % of its abstracts' titles; "addition", "research", "size", "order" in 0-3 %."""
COMMON_SHARE = 0.005
"""... and that at least this share of all abstracts use (250 of 50,000)."""
NOUN_HEAD_SHARE = 0.25
"""A word that ends a noun phrase in fewer than this share of its uses is no noun on its own:
"linear" 7 %, "finite" 5 %, "challenging" 15 %, "language" 31 %, "size" 85 % ...,"""
NOUN_PLURAL_SHARE = 0.1
"""... unless this share of its uses are plural: a noun mostly used as a modifier ("backdoor
attacks", "protein structure") still has a plural; an adjective has none."""
MIN_USES = 10
"""Uses below which a word's grammar is not judged (a name, a rare term: a noun)."""

FEATURES = (
    "similarity",
    "similarity_gap",
    "shared",
    "only_here",
    "uses",
    "early",
    "acronym_defined",
    "acronym",
    "one_word",
    "two_words",
    "head_title_logit",
    "mean_title_logit",
    "head_noun",
    "head_rarity",
    "phrase_title_logit",
    "phrase_rarity",
    "one_word_title_logit",
    "one_word_noun",
    "inside_longer",
    "holds_shorter",
    "aside_share",
)


@dataclass(frozen=True)
class WordStats:
    """How 50,000 abstracts use each word (lowercase, singular) and each phrase of two or three words
    (a candidate's key), learned by the training script."""

    abstracts: int
    prior_title_rate: float
    prior_phrase_title_rate: float
    counts: Mapping[str, tuple[int, ...]]
    """Per word: abstracts using it, those with it in their title, uses, uses ending a noun phrase,
    uses in the plural."""
    phrases: Mapping[str, tuple[int, ...]]
    """Per phrase: abstracts using it, those whose title uses it."""

    def _word(self, word: str) -> tuple[int, ...]:
        return self.counts.get(word, (0, 0, 0, 0, 0))

    def title_rate(self, word: str) -> float:
        used, titled = self._word(word)[:2]
        return (titled + TITLE_RATE_PRIOR_WEIGHT * self.prior_title_rate) / (used + TITLE_RATE_PRIOR_WEIGHT)

    def phrase_title_rate(self, key: str) -> float:
        """A phrase's title rate; one word's for one word."""
        if " " not in key:
            return self.title_rate(key)
        used, titled = self.phrases.get(key, (0, 0))
        prior = self.prior_phrase_title_rate
        return (titled + TITLE_RATE_PRIOR_WEIGHT * prior) / (used + TITLE_RATE_PRIOR_WEIGHT)

    def head_share(self, word: str) -> float:
        """How often the word ends a noun phrase; 1 for a word too rare to say (a name, a term)."""
        uses, heads = self._word(word)[2:4]
        return heads / uses if uses >= MIN_USES else 1.0

    def plural_share(self, word: str) -> float:
        uses, plurals = self._word(word)[2], self._word(word)[4]
        return plurals / uses if uses >= MIN_USES else 1.0

    def rarity(self, key: str) -> float:
        """-log of the share of abstracts using the word or phrase (one never seen counts as seen once)."""
        used = (self.phrases.get(key, (0,)) if " " in key else self._word(key))[0]
        return math.log(self.abstracts / max(used, 1))

    def common(self, word: str) -> bool:
        """Used by many abstracts (``COMMON_SHARE``), which seldom put it in their title."""
        return (
            self._word(word)[0] >= COMMON_SHARE * self.abstracts
            and self.title_rate(word) <= COMMON_TITLE_RATE
        )

    def noun(self, word: str) -> bool:
        """Ends noun phrases often enough, or has a plural ("backdoor", "protein": mostly modifiers)."""
        return self.head_share(word) >= NOUN_HEAD_SHARE or self.plural_share(word) >= NOUN_PLURAL_SHARE

    def filler(self, key: str, form: str) -> bool:
        """Whether a candidate (``canonical_key`` and display form) is one word that is common or not a
        noun. An acronym ("GAN", "LLM") is a name, never a filler; a hyphenated word ("early-exit")
        is two words in its key, so never a filler."""
        if " " in key or is_acronym(form):
            return False
        return self.common(key) or not self.noun(key)


def may_show(candidate: Candidate, stats: WordStats) -> bool:
    """Whether a candidate may be a keyword at all: no filler word alone (``WordStats.filler``) and no
    phrase cut inside a longer one (``cut``)."""
    return not (stats.filler(candidate.key, candidate.form) or cut(candidate, stats))


def cut(candidate: Candidate, stats: WordStats) -> bool:
    """Whether the abstract always continues the candidate with the same word, which makes a longer
    term of it: "multi-agent" of "multi-agent reinforcement learning", "topological data" of
    "topological data analysis". A generic word, a verb or an -ed/-ing form after it makes no term
    ("classification task", "language model based"), unless the 50,000 abstracts' titles use the
    longer phrase as often as the average phrase (a term of the field)."""
    following = candidate.followed_by
    if not following or is_acronym(candidate.form):
        return False
    if not _generic(following):
        return True
    longer = f"{candidate.key} {following}"
    return longer in stats.phrases and stats.phrase_title_rate(longer) >= stats.prior_phrase_title_rate


CUT_HEAD_SHARE = 0.5
"""A phrase that at least this share of the digest's papers using it always write after the same word
is that longer name's tail, in the papers that do so too ("gradient langevin dynamics" of "stochastic
gradient langevin dynamics"); one most of them use alone is a term of its own ("reinforcement
learning", whatever "multi-agent" comes before it in one paper)."""


def _generic(word: str) -> bool:
    return (
        word in GENERIC_EDGE
        or word in GENERIC_ALONE
        or word in VERBS
        or word in FUNCTION_WORDS
        or word.endswith(("ed", "ing", "ly"))
    )


def cut_head(candidate: Candidate, share: float, stats: WordStats) -> bool:
    """Whether a candidate is the tail of a longer name: the abstract always writes the same word before
    it, and so do ``share`` of the digest's papers that use it (``CUT_HEAD_SHARE``). A generic word, a
    verb or an adverb before it ("proposed", "novel", "differentially"), or an adjective that never
    ends a phrase ("deep", "large"), makes a name only when the 50,000 abstracts' titles use the
    longer phrase as often as the average phrase ("large language model")."""
    before = candidate.preceded_by
    if not before or is_acronym(candidate.form) or share < CUT_HEAD_SHARE:
        return False
    if not _generic(before.rsplit(" ", 1)[-1]) and before not in NO_END:
        return True
    longer = f"{before} {candidate.key}"
    return longer in stats.phrases and stats.phrase_title_rate(longer) >= stats.prior_phrase_title_rate


def modifier(form: str, heads: int, uses: int) -> bool:
    """Whether one word or hyphenated compound ("zero-shot", "text-to-image", "model-free") is a modifier:
    of its ``uses`` in the digest's abstracts, fewer than ``NOUN_HEAD_SHARE`` end their noun phrase
    (the rest come before a noun: "zero-shot classification"). Acronyms are names, never modifiers."""
    return " " not in form and not is_acronym(form) and uses > 0 and heads < NOUN_HEAD_SHARE * uses


LONE_FEATURES = (
    "words",
    "hyphenated",
    "head_title_logit",
    "head_noun",
    "head_plural",
    "head_rarity",
    "rarity",
    "title_logit",
    "head_common",
    "head_is_noun",
)


def lone_features(key: str, form: str, stats: WordStats) -> list[float]:
    """What the word statistics say of a candidate (``key`` and display ``form``: "first price",
    "first-price"): the features of ``LoneWords``' prior."""
    parts = key.split()
    head = parts[-1]
    return [
        float(len(parts)),
        float(len(parts) > 1 and "-" in form),
        _logit(stats.title_rate(head)),
        stats.head_share(head),
        stats.plural_share(head),
        stats.rarity(head),
        stats.rarity(key),
        _logit(stats.phrase_title_rate(key)),
        float(stats.common(head)),
        float(stats.noun(head)),
    ]


@dataclass(frozen=True)
class LoneWords:
    """How often authors list one word ("transformer", "fine-tuning") alone among their keywords when
    their abstract uses it, learned from the author keywords of NeurIPS 2023 by the training script:
    per word seen there, the papers whose abstract uses it and those whose authors list it alone;
    for any word, a prior from the word statistics (a logistic regression over ``LONE_FEATURES``),
    worth ``strength`` papers. A word whose rate is below ``threshold`` is never shown alone: authors
    do not file a paper under "weight", "environment", "shift", "december" or "post-hoc"."""

    counts: Mapping[str, tuple[int, int]]
    coefficients: tuple[float, ...]
    intercept: float
    strength: float
    threshold: float
    _rates: dict[str, float] = field(default_factory=dict, compare=False, repr=False)
    """Rates computed so far (a digest asks about the same words again and again)."""

    weight: float = 0.0
    """Log-odds of being listed, times this, are added to a candidate's score."""

    def prior(self, key: str, form: str, stats: WordStats) -> float:
        logit = self.intercept + sum(
            c * f for c, f in zip(self.coefficients, lone_features(key, form, stats), strict=True)
        )
        return 1.0 / (1.0 + math.exp(-logit))

    def rate(self, key: str, form: str, stats: WordStats) -> float:
        if key not in self._rates:
            used, alone = self.counts.get(key, (0, 0))
            self._rates[key] = (alone + self.strength * self.prior(key, form, stats)) / (used + self.strength)
        return self._rates[key]

    def bonus(self, candidate: Candidate, stats: WordStats) -> float:
        """``weight`` times the log-odds that authors list the candidate. (Only the counts' shift from
        the prior, none for a phrase never seen: NeurIPS 2-fold F1@5 0.2365 against 0.2467.)"""
        return self.weight * _logit(self.rate(candidate.key, candidate.form, stats)) if self.weight else 0.0

    def stands_alone(self, candidate: Candidate, stats: WordStats) -> bool:
        """Whether a candidate may be shown: a phrase of two or more words or an acronym (a name)
        always; one word when authors list it alone often enough."""
        if " " in candidate.form or is_acronym(candidate.form):
            return True
        return self.rate(candidate.key, candidate.form, stats) >= self.threshold

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(LONE_FEATURES),
            "coefficients": [round(c, 6) for c in self.coefficients],
            "intercept": round(self.intercept, 6),
            "strength": self.strength,
            "threshold": self.threshold,
            "weight": self.weight,
            "counts": {key: list(value) for key, value in sorted(self.counts.items())},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> LoneWords:
        features = tuple(data["features"])  # type: ignore[arg-type]
        if features != LONE_FEATURES:
            raise ValueError(f"lone-word model has features {features}, this code computes {LONE_FEATURES}")
        return cls(
            counts={key: (int(v[0]), int(v[1])) for key, v in data["counts"].items()},  # type: ignore[attr-defined]
            coefficients=tuple(float(c) for c in data["coefficients"]),  # type: ignore[attr-defined]
            intercept=float(data["intercept"]),  # type: ignore[arg-type]
            strength=float(data["strength"]),  # type: ignore[arg-type]
            threshold=float(data["threshold"]),  # type: ignore[arg-type]
            weight=float(data["weight"]),  # type: ignore[arg-type]
        )


@dataclass(frozen=True)
class KeywordModel:
    """Gradient-boosted regression trees over ``FEATURES`` (scikit-learn's histogram gradient boosting,
    logistic loss): a candidate's score is the trees' baseline plus each tree's leaf value, a log-odds."""

    features: tuple[str, ...]
    trees: BoostedTrees
    title_bonus: float
    """Added to the score of a candidate that a given title uses (see the training script)."""

    def scores(self, rows: np.ndarray) -> np.ndarray:
        return self.trees.predict(rows)

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(self.features),
            "baseline": float(self.trees.baseline),
            "title_bonus": round(float(self.title_bonus), 6),
            "trees": self.trees.node_lists(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> KeywordModel:
        features = tuple(data["features"])  # type: ignore[arg-type]
        if features != FEATURES:
            raise ValueError(f"keyword model has features {features}, this code computes {FEATURES}")
        return cls(
            features=features,
            trees=BoostedTrees.from_node_lists(
                data["trees"],  # type: ignore[arg-type]
                float(data["baseline"]),  # type: ignore[arg-type]
            ),
            title_bonus=float(data["title_bonus"]),  # type: ignore[arg-type]
        )


STRAYS_FILE = "keyword_strays.json"
STRAY_FEATURES = (*FEATURES, "score", "position")
"""What the stray model reads of a keyword: the ranker's features, its score (with the title and
listing bonuses) and its place among the paper's keywords that repeat none before them."""
STRAY_DEPTH = 7
"""How many of a paper's best keywords (none repeating another) the stray model chooses among: the
judges saw seven."""


@dataclass(frozen=True)
class StrayModel(StandardisedLogistic):
    """What ``benchmarks/train_keyword_strays.py`` learns from readers' verdicts on keywords: a
    logistic regression of the log-odds that a reader calls a keyword STRAY (a generic noun, an
    adjective alone, a cut phrase, an umbrella term, a tool the paper only uses), on standardised
    ``STRAY_FEATURES`` (``odds``; its vectors are tuples, as read from ``STRAYS_FILE``). A keyword
    at or above ``threshold`` is not shown."""

    threshold: float

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(STRAY_FEATURES),
            "mean": [round(v, 8) for v in self.mean],
            "scale": [round(v, 8) for v in self.scale],
            "weights": [round(v, 8) for v in self.weights],
            "intercept": round(self.intercept, 8),
            "threshold": self.threshold,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> StrayModel:
        features = tuple(data["features"])  # type: ignore[arg-type]
        if features != STRAY_FEATURES:
            raise ValueError(f"stray model has features {features}, this code computes {STRAY_FEATURES}")
        return cls(
            mean=tuple(float(v) for v in data["mean"]),  # type: ignore[attr-defined]
            scale=tuple(float(v) for v in data["scale"]),  # type: ignore[attr-defined]
            weights=tuple(float(v) for v in data["weights"]),  # type: ignore[attr-defined]
            intercept=float(data["intercept"]),  # type: ignore[arg-type]
            threshold=float(data["threshold"]),  # type: ignore[arg-type]
        )


def _package_json(name: str) -> dict:
    return json.loads(resources.files("generator.analysis.keyphrases").joinpath(name).read_text("utf-8"))


@cache
def word_stats() -> WordStats:
    data = _package_json(WORD_STATS_FILE)
    return WordStats(
        abstracts=int(data["abstracts"]),
        prior_title_rate=float(data["prior_title_rate"]),
        prior_phrase_title_rate=float(data["prior_phrase_title_rate"]),
        counts={word: tuple(values) for word, values in data["words"].items()},
        phrases={phrase: tuple(values) for phrase, values in data["phrases"].items()},
    )


@cache
def keyword_model() -> KeywordModel:
    return KeywordModel.from_json(_package_json(MODEL_FILE))


@cache
def lone_words() -> LoneWords:
    return LoneWords.from_json(_package_json(LONE_WORDS_FILE))


@cache
def keyword_strays() -> StrayModel | None:
    """The shipped stray model, if one ships."""
    source = resources.files("generator.analysis.keyphrases").joinpath(STRAYS_FILE)
    return StrayModel.from_json(json.loads(source.read_text("utf-8"))) if source.is_file() else None


def _logit(rate: float) -> float:
    return math.log(rate / (1.0 - rate))


def _inside(shorter: list[str], longer: list[str]) -> bool:
    size = len(shorter)
    return any(longer[start : start + size] == shorter for start in range(len(longer) - size + 1))


def paper_features(
    keys: Sequence[str],
    similarities: Sequence[float],
    candidates: Mapping[str, Candidate],
    papers_using: Mapping[str, int],
    papers: int,
    stats: WordStats,
) -> np.ndarray:
    """One row of ``FEATURES`` per key of one paper's ranked candidates (``keys``, with KeyBERT's
    ``similarities``); ``candidates`` are all the paper's, ``papers_using`` counts the digest's
    papers using each key, ``papers`` is the digest's size."""
    log_papers = math.log(max(papers, 2))
    # A phrase only the title uses (count 0) is no part of the abstract's phrase structure, which is
    # what the ranker learned from (training hides titles).
    words_of = {key: [singular(word) for word in key.split()] for key, c in candidates.items() if c.count}
    rows = np.zeros((len(keys), len(FEATURES)), dtype=np.float64)
    closest = max(similarities, default=0.0)
    for row, (key, similarity) in enumerate(zip(keys, similarities, strict=True)):
        candidate = candidates[key]
        words = words_of.get(key) or [singular(word) for word in key.split()]
        one_word = len(words) == 1
        head = words[-1]
        head_title_logit = _logit(stats.title_rate(head))
        head_noun = stats.head_share(head)
        longer_uses = max(
            (
                candidates[other].count
                for other, other_words in words_of.items()
                if len(other_words) > len(words) and _inside(words, other_words)
            ),
            default=0,
        )
        holds_shorter = any(
            len(other_words) < len(words) and _inside(other_words, words)
            for other, other_words in words_of.items()
        )
        rows[row] = (
            similarity,
            similarity - closest,
            math.log(max(papers_using.get(key, 1), 1)) / log_papers,
            float(papers_using.get(key, 1) <= 1),
            math.log1p(candidate.count),
            1.0 - candidate.first_position,
            float(candidate.defined_by_acronym),
            float(any(is_acronym(token) for token in candidate.form.split())),
            float(one_word),
            float(len(words) == 2),
            head_title_logit,
            sum(_logit(stats.title_rate(word)) for word in words) / len(words),
            head_noun,
            stats.rarity(head),
            _logit(stats.phrase_title_rate(key)),
            stats.rarity(key),
            head_title_logit if one_word else 0.0,
            head_noun if one_word else 0.0,
            min(1.0, longer_uses / max(candidate.count, 1)),
            float(holds_shorter),
            # in the background or an example ("such as X"): what the paper uses or contrasts, not its topic
            candidate.aside / max(candidate.count, 1),
        )
    return rows

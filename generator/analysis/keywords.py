"""Keywords: clean keyphrase candidates ranked by a model learned from real papers.

KeyBERT scores each candidate by the cosine similarity between the phrase's embedding and the
paper's own embedding (computed once, for related papers too). Gradient-boosted trees
(``keyphrases.ranker``, trained by ``benchmarks/train_keyword_ranker.py`` on the NLP and CVPR sets
with their titles' phrases as labels) weighs that similarity with how many papers of the digest use
the phrase, how often and how early the abstract uses it, whether it defines an acronym for it, its
length, how its words are used across 50,000 abstracts (titled, ending a noun phrase) and whether it
is only a piece of a longer candidate. One word that those abstracts show to be a filler (common or
not a noun), or that NeurIPS 2023 authors seldom list alone (``ranker.LoneWords``), is never a
keyword, and how often authors list a phrase adds to its score. How the digest uses a phrase hides
the tail of a longer name and a modifier alone (``digest_hidden``). No keyword is inside another of
its paper after Porter stemming, and past ``MIN_KEYWORDS`` a weak one is not shown at all. Measured
on NeurIPS 2023 author keywords (2-fold for what is learned from them), see
benchmarks/notes/keywords-topics.md.

Only phrases that two papers share, that one abstract uses twice or that its given title uses (the
title's phrases are candidates even where the abstract never uses them) are embedded (with all of an
abstract's phrases when that leaves it too few): that keeps the embedding work, the bulk of
KeyBERT's cost, to a few thousand phrases per thousand papers. All distinct phrases of the digest
are embedded in one batched call through the embedder.

Nothing here reads or writes the cache: each step is given what earlier builds found (``known``,
by the content keys ``candidate_key`` and ``similarity_key``) and returns what it found anew
(``NewEntries``), which the build stores.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from typing import Generic, Literal, TypeVar

import numpy as np
import snowballstemmer
from sklearn.feature_extraction.text import CountVectorizer

from generator.analysis.embed import Embedder
from generator.analysis.keyphrases import Candidate, abstract_candidates, corpus_spellings
from generator.analysis.keyphrases.canonical import canonical, canonical_key, is_acronym
from generator.analysis.keyphrases.ranker import (
    MIN_USES,
    STRAY_DEPTH,
    KeywordModel,
    LoneWords,
    StrayModel,
    WordStats,
    cut_head,
    keyword_model,
    keyword_strays,
    lone_words,
    may_show,
    modifier,
    paper_features,
    word_stats,
)
from generator.analysis.titles import TitleModel, own_name_odds
from generator.model import Keyword
from generator.progress import Advance

MIN_SUPPORT = 2
"""A phrase is embedded when this many papers share it or one abstract uses it this often."""
FIELD_DEFINITIONS = 3
"""An acronym an abstract uses without defining it is spelled out only when at least this many of the
digest's abstracts define it (the way most of them do): a convention of the field ("LLM"), not one
other paper's name ("HP" was "hierarchical planning" in a paper about hyperparameters). NeurIPS 2023
2-fold F1@5: 1 (any one definition, before) 0.2270, 3 0.2276, never 0.2266."""
MIN_SCORE = -5.5
"""A keyword scoring below this (the ranker's log-odds with the title and listing bonuses) is not
shown once ``MIN_KEYWORDS`` are: a paper whose phrases run out shows fewer keywords rather than
"deep learning", "uncertainty" or "lower bound". Picked by NeurIPS 2023 2-fold F1@5 (-6.5 0.2574,
-6 0.2598, -5.5 0.2606, -5 0.2596); see benchmarks/notes/keywords-topics.md, fifth round."""
MIN_KEYWORDS = 1
"""Keywords a paper shows whatever their score (when it has that many and a reader would not likely call
them STRAY, ``ranker.StrayModel``). NeurIPS 2023 2-fold F1@5 at
-6: 1 0.2596, 2 0.2598, 3 0.2524: a second keyword shown whatever its score adds nothing authors
list, and is where the reader's strays sat (ICML 2024, blind rubric: 9 of the 26 STRAY were second
keywords below ``MIN_SCORE``: "machine learning", "lower bound", "gradient descent"); one, then only
what the evidence carries."""

OWN_NAME_FLOOR = -4.5
"""A name the title name detector rates below this log-odds is not the paper's own (unless a given
title names it): it is never shown past the stray model as one (``_own_name``). The highest floor
below which the real titles of each development set name at most 2 % of the names, each set rated
by a detector that never saw it (NeurIPS 2023 0.5 %, NLP 1.4 %, CVPR 2019 1.3 %; at -4: 0.5 / 1.6 /
2.2 %; at or above -4.5 the titles name 32–41 %): ``benchmarks/own_name_floor.py``."""


Value = TypeVar("Value")


@dataclass(frozen=True)
class NewEntries(Generic[Value]):
    """What a step computed that it was not given, by content key, for the build to store."""

    new: dict[str, Value] = field(default_factory=dict)
    keys: tuple[str, ...] = ()
    """Every key the step asked for: the entries worth keeping for the next build."""


def candidate_key(abstract: str, title: str | None) -> str:
    """An abstract's candidates' content key: the abstract and its given title."""
    return hashlib.sha256(f"{abstract}\0{title or ''}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Candidates:
    per_paper: list[dict[str, Candidate]]
    spellings: dict[str, str]
    papers_using: Counter[str]
    to_embed: list[str]
    """Keys of the phrases worth embedding, in a fixed order."""
    extracted: NewEntries[dict[str, Candidate]] = field(default_factory=NewEntries)
    """Each abstract's candidates that were not ``known`` (as ``abstract_candidates`` gave them, with
    the name detector's odds, ``with_own_odds``)."""
    hidden: list[frozenset[str]] = field(default_factory=list)
    """Per paper, the keys that how the digest uses them shows to be no keyword (``digest_hidden``)."""


def find_candidates(
    abstracts: Sequence[str],
    titles: Sequence[str | None],
    top_n: int,
    known: Mapping[str, dict[str, Candidate]] | None = None,
    lone: LoneWords | None = None,
    title_model: TitleModel | None = None,
) -> Candidates:
    """Candidates of every paper and the digest-wide statistics; no embedding, but the title name
    detector (``title_model``, the shipped one by default) reads the abstracts that have a name.
    ``known`` holds abstracts' candidates found before (by ``candidate_key``): those abstracts are
    not read again."""
    keys = [candidate_key(abstract, title) for abstract, title in zip(abstracts, titles, strict=True)]
    known = known if known is not None else {}
    stats = word_stats()
    have = [known.get(key) for key in keys]
    extracted: dict[str, dict[str, Candidate]] = {}
    abstract_of: dict[str, str] = {}
    for key, abstract, title, candidates in zip(keys, abstracts, titles, have, strict=True):
        if candidates is None and key not in extracted:
            extracted[key] = abstract_candidates(abstract, title)
            abstract_of[key] = abstract
    extracted = with_own_odds(extracted, abstract_of, stats, title_model)
    per_paper = [had if had is not None else extracted[key] for key, had in zip(keys, have, strict=True)]
    found = NewEntries(extracted, tuple(keys))
    per_paper = resolve_acronyms(per_paper)
    papers_using: Counter[str] = Counter()
    for candidates in per_paper:
        # Abstracts only, as the ranker learned it (training hides titles): a phrase only a title
        # uses is no phrase the digest's papers share.
        papers_using.update(key for key, candidate in candidates.items() if candidate.count)
    lone = lone or lone_words()
    hidden = digest_hidden(per_paper, papers_using, stats)
    to_embed: set[str] = set()
    for candidates, hide in zip(per_paper, hidden, strict=True):
        # A filler, a word authors never list alone or a cut phrase is never shown, so never
        # embedded, nor counted towards top_n.
        showable = [key for key, c in candidates.items() if key not in hide and shows(c, stats, lone)]
        supported = [
            key
            for key in showable
            if papers_using[key] >= MIN_SUPPORT
            or candidates[key].count >= MIN_SUPPORT
            or candidates[key].defined_by_acronym
            # A given title's phrase: the title bonus makes it a likely keyword, so it is always ranked.
            or candidates[key].in_title
        ]
        # Keywords that repeat one another are never shown together: count the distinct ones.
        to_embed.update(supported if _distinct(supported, candidates, top_n) >= top_n else showable)
    return Candidates(per_paper, corpus_spellings(per_paper), papers_using, sorted(to_embed), found, hidden)


_SHORT_FORM = re.compile(r"\(([^()]+)\)$")


def may_be_own_name(candidate: Candidate, stats: WordStats) -> bool:
    """A name of one word ("EmotionAttack", "QuIP", "CARTE", "EU") that the field's 50,000 abstracts
    hardly know (fewer than ``MIN_USES``): not "AI", "ML" or "CLIP". Whether it is the paper's own,
    or a dataset, baseline or place it only mentions, the name detector says (``_own_name``)."""
    form, uses = candidate.form, stats.counts.get(candidate.key, (0,))[0]
    return " " not in form and is_acronym(form) and uses < MIN_USES


def odds_by_key(by_name: Mapping[str, float]) -> dict[str, float]:
    """The detector's odds by the key of the keyword each name is (the best where two names are one):
    "IntCEMs" is the keyword "IntCEM"; "Masked Image Residual Learning (MIRL)" rates "MIRL" too."""
    by_key: dict[str, float] = {}
    for name, odds in by_name.items():
        for form in (name, *_SHORT_FORM.findall(name)):
            name_key = canonical_key(form)
            by_key[name_key] = max(odds, by_key.get(name_key, -np.inf))
    return by_key


def with_own_odds(
    found: dict[str, dict[str, Candidate]],
    abstracts: Mapping[str, str],
    stats: WordStats,
    model: TitleModel | None = None,
) -> dict[str, dict[str, Candidate]]:
    """``found`` (candidates by abstract key) with the title name detector's odds on each name
    (``Candidate.own_odds``; ``model``: the shipped title model by default), for the abstracts that
    have one; read once per abstract, cached with its candidates."""
    named = [key for key, here in found.items() if any(may_be_own_name(c, stats) for c in here.values())]
    rated = dict(found)
    for key, by_name in zip(named, own_name_odds([abstracts[key] for key in named], model), strict=True):
        by_key = odds_by_key(by_name)
        rated[key] = {
            k: replace(c, own_odds=by_key.get(k)) if may_be_own_name(c, stats) else c
            for k, c in found[key].items()
        }
    return rated


def digest_hidden(
    per_paper: Sequence[dict[str, Candidate]], papers_using: Mapping[str, int], stats: WordStats
) -> list[frozenset[str]]:
    """Per paper, the candidates that how the whole digest uses them shows to be no keyword: the tail
    of a longer name (``ranker.cut_head``: "gradient langevin dynamics" where the paper and most
    others write "stochastic" before it) and a modifier alone (``ranker.modifier``: "zero-shot",
    "text-to-image", used before a noun in most of the digest's abstracts)."""
    preceded: Counter[tuple[str, str]] = Counter()
    heads: Counter[str] = Counter()
    uses: Counter[str] = Counter()
    for candidates in per_paper:
        for key, candidate in candidates.items():
            if candidate.count:
                preceded[key, candidate.preceded_by] += 1
                heads[key] += candidate.heads
                uses[key] += candidate.count

    def share_preceded(key: str, before: str) -> float:
        """The share of the papers using ``key`` that always write ``before`` before it."""
        return preceded[key, before] / max(papers_using.get(key, 0), 1)

    return [
        frozenset(
            key
            for key, candidate in candidates.items()
            if modifier(candidate.form, heads[key], uses[key])
            or (candidate.count and cut_head(candidate, share_preceded(key, candidate.preceded_by), stats))
        )
        for candidates in per_paper
    ]


def _distinct(keys: Sequence[str], candidates: dict[str, Candidate], enough: int) -> int:
    """How many of ``keys`` none of which repeats another could be shown (counted up to ``enough``)."""
    kept: list[str] = []
    for key in keys:
        form = candidates[key].form
        if not any(repeats(form, other) for other in kept):
            kept.append(form)
            if len(kept) == enough:
                break
    return len(kept)


def shows(candidate: Candidate, stats: WordStats, lone: LoneWords) -> bool:
    """Whether a candidate may be a keyword: ``ranker.may_show`` and, one word, one that authors
    list alone (``LoneWords``)."""
    return may_show(candidate, stats) and lone.stands_alone(candidate, stats)


def _initials(key: str) -> str:
    return "".join(word[0] for word in key.split())


def _acronym_letters(form: str) -> str | None:
    """``LLM`` -> ``llm``, ``EE-LLM`` -> ``eellm``; ``None`` for a phrase that is not one acronym."""
    letters = form.replace("-", "")
    return letters.lower() if " " not in form and letters.isalnum() and is_acronym(letters) else None


def resolve_acronyms(per_paper: Sequence[dict[str, Candidate]]) -> list[dict[str, Candidate]]:
    """An acronym an abstract uses without defining it ("LLMs") becomes the phrase another abstract
    of the digest defined it as ("large language models (LLMs)"), so one digest never shows both
    "LLM" and "large language model"; so does an acronym inside a phrase ("preference-based RL" is
    "preference-based reinforcement learning"). Only a definition seen in the digest counts, and its
    initials must spell the acronym; when several phrases qualify, the one most abstracts defined
    wins (ties: alphabetical)."""
    definitions: dict[str, Counter[str]] = {}
    forms: dict[str, str] = {}
    for candidates in per_paper:
        for key, candidate in candidates.items():
            if candidate.defined_by_acronym and candidate.words >= 2:
                definitions.setdefault(_initials(key), Counter())[key] += 1
                forms.setdefault(key, candidate.form)
    best = {
        letters: min(counts.items(), key=lambda item: (-item[1], item[0]))
        for letters, counts in definitions.items()
    }
    expansion_of = {
        letters: forms[phrase] for letters, (phrase, count) in best.items() if count >= FIELD_DEFINITIONS
    }
    if not expansion_of:
        return list(per_paper)

    def expanded(token: str) -> str:
        letters = _acronym_letters(token)
        if not letters or len(letters) < 2:
            return token
        if letters not in expansion_of and letters.endswith("s"):  # "LLMs agent"
            letters = letters[:-1]
        return expansion_of.get(letters, token)

    def target(candidate: Candidate) -> str | None:
        tokens = candidate.form.split()
        spelled = [expanded(token) for token in tokens]
        return canonical(" ".join(spelled)) if spelled != tokens else None

    return [_renamed(candidates, target) for candidates in per_paper]


def _renamed(
    candidates: dict[str, Candidate], target_form: Callable[[Candidate], str | None]
) -> dict[str, Candidate]:
    """``candidates`` with each one that ``target_form`` gives a form moved to that form's key,
    merged with the abstract's candidate of that key if it has one (counts added)."""
    merged: dict[str, Candidate] = {}
    moved: list[tuple[str, str, Candidate]] = []
    for key, candidate in candidates.items():
        form = target_form(candidate)
        new_key = canonical_key(form) if form is not None else key
        if form is None or new_key == key:
            merged[key] = candidate  # never changed in place: no copy
        else:
            moved.append((new_key, form, candidate))
    for new_key, form, candidate in moved:
        found = merged.get(new_key)
        merged[new_key] = (
            replace(candidate, key=new_key, form=form, words=len(form.split()))
            if found is None
            else replace(
                found,
                count=found.count + candidate.count,
                first_position=min(found.first_position, candidate.first_position),
                in_title=found.in_title or candidate.in_title,
                preceded_by=found.preceded_by if found.preceded_by == candidate.preceded_by else "",
                heads=found.heads + candidate.heads,
            )
        )
    return merged


def _contains(longer: Sequence[str], shorter: Sequence[str]) -> bool:
    size = len(shorter)
    return any(longer[start : start + size] == shorter for start in range(len(longer) - size + 1))


@cache
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("porter")


def stemmed(keyword: str) -> list[str]:
    """A keyword's words, Porter-stemmed as the yardstick stems them ("Transformers" -> "transform")."""
    return _stemmer().stemWords(re.findall(r"[a-z0-9]+", keyword.lower()))


def repeats(keyword: str, other: str) -> bool:
    """Whether two keywords say the same twice, Porter-stemmed: one is inside the other ("language
    model" in "Large Language Models"), or the two share a phrase of two words that is not the head
    both end with ("sentiment analysis task" beside "sentiment analysis model", "language model
    actor" beside "large language model"; but "hybrid reinforcement learning" and "inverse
    reinforcement learning" are two kinds of one thing, and "out-of-distribution detection" and
    "out-of-distribution generalization" share one word). Readers' verdicts
    (``benchmarks/data/keyword_verdicts.tsv``) call the second of such a pair REDUNDANT or STRAY 11
    times in 15."""
    (parts, words), (other_parts, other_words) = _stems(keyword), _stems(other)
    if not parts or not other_parts:
        return False  # no word ("—"): nothing said twice
    shorter, longer = sorted((parts, other_parts), key=len)
    if _contains(longer, shorter):
        return True
    shared = set(itertools.pairwise(words)) & set(itertools.pairwise(other_words))
    return any(not (pair == words[-2:] == other_words[-2:]) for pair in shared)


@lru_cache(maxsize=65536)
def _stems(keyword: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A keyword's stemmed parts (``stemmed``: "out-of-distribution" is three) and its stemmed words
    (a hyphenated word is one: "out-of-distribution")."""
    words = tuple("-".join(stemmed(word)) for word in keyword.split())
    return tuple(stemmed(keyword)), tuple(word for word in words if word)


def rank_keywords(
    candidates: Candidates,
    paper_vectors: np.ndarray,
    embedder: Embedder,
    top_n: int,
    progress: Advance | None = None,
    model: KeywordModel | None = None,
    lone: LoneWords | None = None,
    strays: StrayModel | Literal["shipped"] | None = "shipped",
) -> list[list[Keyword]]:
    """``top_n`` keywords per paper, best first, in the digest-wide spelling: KeyBERT's similarities
    (``keyword_similarities``) ranked with the other features by the learned model (``strays``: see
    ``choose_keywords``)."""
    similarities = keyword_similarities(candidates, paper_vectors, embedder, progress)
    return choose_keywords(candidates, similarities.per_paper, top_n, model, lone=lone, strays=strays)


def similarity_key(model_name: str, paper_vector: np.ndarray, spellings: Sequence[str]) -> str:
    """The content key of a paper's similarities: the model, the paper's embedding and the
    spellings of its embedded candidates, so a change to any of them is another key."""
    digest = hashlib.sha256(model_name.encode() + b"\0")
    digest.update(np.ascontiguousarray(paper_vector, dtype=np.float32).tobytes())
    digest.update("\x1f".join(spellings).encode())
    return digest.hexdigest()[:32]


@dataclass(frozen=True)
class KeywordSimilarities:
    per_paper: list[dict[str, float]]
    """Each paper's embedded candidates' similarities to it, by key."""
    found: NewEntries[np.ndarray] = field(default_factory=NewEntries)
    """The papers ranked anew: one float64 per embedded candidate (``NaN``: KeyBERT gave none), in
    the order of their spellings, by ``similarity_key``."""


def keyword_similarities(
    candidates: Candidates,
    paper_vectors: np.ndarray,
    embedder: Embedder,
    progress: Advance | None = None,
    known: Mapping[str, np.ndarray] | None = None,
) -> KeywordSimilarities:
    """KeyBERT's similarity of each embedded candidate to its paper, by key. ``known`` holds papers'
    similarities found before (by ``similarity_key``), so only papers whose embedding or candidates
    changed are ranked by KeyBERT again (and only their phrases embedded)."""
    if not candidates.per_paper:
        return KeywordSimilarities([])
    embedded = set(candidates.to_embed)
    per_paper_spellings = [
        [candidates.spellings[key] for key in paper if key in embedded] for paper in candidates.per_paper
    ]
    model_name = getattr(embedder, "name", type(embedder).__name__)
    keys = [
        similarity_key(model_name, vector, spellings)
        for vector, spellings in zip(paper_vectors, per_paper_spellings, strict=True)
    ]
    known = known if known is not None else {}
    stored: list[np.ndarray | None] = []
    for key, spellings in zip(keys, per_paper_spellings, strict=True):
        values = known.get(key)
        stored.append(values if values is not None and len(values) == len(spellings) else None)
    missing = [index for index, values in enumerate(stored) if values is None]
    needed = sorted({spelling for index in missing for spelling in per_paper_spellings[index]})
    phrase_vectors = (
        embedder.embed(needed, progress)
        if needed
        else np.zeros((0, paper_vectors.shape[1]), dtype=np.float32)
    )
    if progress is not None and len(needed) < len(candidates.to_embed):
        progress(len(candidates.to_embed) - len(needed))  # the phrases of papers ranked before
    found = _keybert_similarities(
        [per_paper_spellings[index] for index in missing], needed, paper_vectors[missing], phrase_vectors
    )
    key_of = {spelling: key for key, spelling in candidates.spellings.items()}
    similarities: list[dict[str, float]] = []
    new: dict[str, np.ndarray] = {}
    ranked = iter(found)
    for key, spellings, values in zip(keys, per_paper_spellings, stored, strict=True):
        if values is None:
            similarity = next(ranked)
            new[key] = np.array([similarity.get(s, np.nan) for s in spellings], dtype=np.float64)
        else:
            similarity = {s: float(v) for s, v in zip(spellings, values, strict=True) if not np.isnan(v)}
        similarities.append({key_of[spelling]: cosine for spelling, cosine in similarity.items()})
    return KeywordSimilarities(similarities, NewEntries(new, tuple(keys)))


def choose_keywords(
    candidates: Candidates,
    similarities: Sequence[dict[str, float]],
    top_n: int,
    model: KeywordModel | None = None,
    stats: WordStats | None = None,
    lone: LoneWords | None = None,
    strays: StrayModel | Literal["shipped"] | None = "shipped",
) -> list[list[Keyword]]:
    """Each paper's ``top_n`` keywords: its candidates with a similarity, scored by the learned
    ``model`` (the shipped one by default), a given title's phrases raised by the model's title
    bonus, no filler word alone and no phrase cut from a longer one (``ranker.may_show``); then
    ``_pick`` keeps one of two keywords that say the same. With ``strays`` (the shipped model by
    default), only the first ``STRAY_DEPTH`` that repeat none before them are considered, and those
    a reader would likely call STRAY are not shown."""
    model = model or keyword_model()
    stats = stats or word_stats()
    lone = lone or lone_words()
    stray_model = keyword_strays() if strays == "shipped" else strays
    papers = len(candidates.per_paper)
    hidden = candidates.hidden or [frozenset()] * papers
    keys_of, rows = [], []
    for paper_candidates, similarity, hide in zip(candidates.per_paper, similarities, hidden, strict=True):
        keys = [key for key in similarity if key not in hide and shows(paper_candidates[key], stats, lone)]
        keys_of.append(keys)
        cosines = [similarity[key] for key in keys]
        rows.append(paper_features(keys, cosines, paper_candidates, candidates.papers_using, papers, stats))
    # Scored at once: the trees walk every candidate of the digest together.
    all_scores = model.scores(np.vstack(rows)) if rows else np.zeros(0)
    ends = np.cumsum([len(keys) for keys in keys_of])
    keywords: list[list[Keyword]] = []
    for paper_candidates, keys, end, paper_rows in zip(
        candidates.per_paper, keys_of, ends, rows, strict=True
    ):
        scores = all_scores[end - len(keys) : end]
        scored = sorted(
            (
                (
                    float(score)
                    + model.title_bonus * paper_candidates[key].in_title
                    + lone.bonus(paper_candidates[key], stats),
                    candidates.spellings[key],
                    index,
                )
                for index, (key, score) in enumerate(zip(keys, scores, strict=True))
            ),
            key=lambda item: (-item[0], item[1]),
        )
        own = {
            spelling
            for key in keys
            if _own_name(
                spelling := candidates.spellings[key],
                paper_candidates[key],
                candidates.papers_using[key],
                stats,
            )
        }
        if stray_model is not None:
            scored = _shown_by_readers(scored, paper_rows, stray_model, own)
        picked = _pick([(score, spelling) for score, spelling, _ in scored], top_n, own)
        keywords.append([Keyword(text=spelling, score=round(score, 4)) for score, spelling in picked])
    return keywords


def _shown_by_readers(
    scored: list[tuple[float, str, int]], rows: np.ndarray, strays: StrayModel, own: Set[str]
) -> list[tuple[float, str, int]]:
    """The first ``STRAY_DEPTH`` of ``scored`` (best first) that repeat none before them, and the
    paper's ``own`` names after them, less those a reader would likely call STRAY (not an own name)."""
    distinct: list[tuple[float, str, int]] = []
    for item in scored:
        if len(distinct) >= STRAY_DEPTH and item[1] not in own:
            continue  # past the depth only the paper's own names, which are always shown
        if any(repeats(item[1], other) for _, other, _ in distinct):
            continue
        distinct.append(item)
    if not distinct:
        return distinct
    features = np.column_stack(
        [
            rows[[index for _, _, index in distinct]],
            [score for score, _, _ in distinct],
            np.arange(len(distinct)),
        ]
    )
    odds = strays.odds(features)
    return [item for item, o in zip(distinct, odds, strict=True) if o < strays.threshold or item[1] in own]


def _own_name(spelling: str, candidate: Candidate, papers_using: int, stats: WordStats) -> bool:
    """A name of one word that no other paper of the digest uses (``may_be_own_name``) and that the
    paper's given title names, or the title name detector rates as the paper's own at least at
    ``OWN_NAME_FLOOR``: "EmotionAttack", "QuIP#", not "EU" of "institutions in the EU, US, and
    China" nor a baseline it compares with."""
    rated_own = candidate.own_odds is not None and candidate.own_odds >= OWN_NAME_FLOOR
    return (
        " " not in spelling
        and is_acronym(spelling)
        and papers_using <= 1
        and may_be_own_name(candidate, stats)
        and (candidate.in_title or rated_own)
    )


def _pick(
    scored: list[tuple[float, str]], top_n: int, own: Set[str] = frozenset()
) -> list[tuple[float, str]]:
    """The first ``top_n`` of ``scored`` (best first) that repeat none picked before them, those after
    the first ``MIN_KEYWORDS`` only while they score ``MIN_SCORE`` or more, or are the paper's ``own``
    names (authors seldom list them; a reader looks for them)."""
    picked: list[tuple[float, str]] = []
    for score, spelling in scored:
        if len(picked) == top_n:
            break
        if len(picked) >= MIN_KEYWORDS and score < MIN_SCORE and spelling not in own:
            continue
        if any(repeats(spelling, other) for _, other in picked):
            continue
        picked.append((score, spelling))
    return picked


def _keybert_similarities(
    per_paper_spellings: list[list[str]],
    spellings: list[str],
    paper_vectors: np.ndarray,
    phrase_vectors: np.ndarray,
) -> list[dict[str, float]]:
    """KeyBERT's ranking, run in its batched form over the given papers at once: for each paper, the
    cosine similarity of each of its candidates (``spellings``, embedded as ``phrase_vectors``) to
    the paper's embedding."""
    # KeyBERT takes documents and a vectorizer; here each document is its paper's position, and the
    # vectorizer hands KeyBERT the candidates already found, in the order of ``phrase_vectors``.
    documents = [str(position) for position in range(len(per_paper_spellings))]
    vectorizer = CountVectorizer(
        analyzer=lambda document: per_paper_spellings[int(document)],
        vocabulary=spellings or ["-"],
        lowercase=False,
    )
    most = max((len(s) for s in per_paper_spellings), default=0)
    if not spellings or most == 0:
        return [{} for _ in documents]
    # Imported here: KeyBERT imports sentence-transformers and torch (~4 s), which a rebuild that
    # reuses its last analysis never needs.
    from keybert import KeyBERT
    from keybert.backend import BaseEmbedder

    class NoModel(BaseEmbedder):
        """KeyBERT needs a backend; every embedding it needs is passed in, so it never calls this."""

        def embed(self, documents: Sequence[str], verbose: bool = False) -> np.ndarray:
            raise AssertionError("KeyBERT was expected to use the embeddings passed to it")

    results = KeyBERT(model=NoModel()).extract_keywords(
        documents,
        vectorizer=vectorizer,
        doc_embeddings=paper_vectors,
        word_embeddings=phrase_vectors,
        top_n=most,
    )
    if len(documents) == 1:  # KeyBERT unwraps the list for a single document
        results = [results]
    return [dict(found) for found in results]

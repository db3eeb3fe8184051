"""Why two papers are related, in words and on a scale a reader knows.

Words: the keyphrases both papers use, taken from the digest's keyword vocabulary (every phrase that
is some paper's keyword, in the digest's one spelling per concept) and matched against each paper's
*whole* list of keyphrase candidates, not only its own top keywords. The phrases closest to both
papers (KeyBERT's cosine, summed over the two) come first; a phrase inside a longer shared one gives
way to it ("wormhole" to "wasserstein wormhole"); a generic or crowded single word is never used.

Scale: the similarity of a link is placed among the similarities of all pairs of papers in the
digest, so it reads "among the closest 1% of pairs in this digest"; a cosine such as 0.10 means
nothing to a reader.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from generator.model import Keyword, RelatedPaper

SHARED_PHRASES_PER_LINK = 3
VAGUE_SHARE = 0.1
"""A phrase more than a tenth of the papers mention tells two papers apart from nothing."""
VAGUE_MIN_PAPERS = 5
MIN_COSINE = 0.15
"""A shared phrase must be at least this close to each paper (KeyBERT's cosine; a quarter of the
papers' own candidates are below it): "dimension" in two bandit papers is not why they match."""
PAIRS_SAMPLED = 200_000
"""Pairs whose similarity sets the scale; a digest with fewer pairs uses all of them."""


@dataclass(frozen=True)
class KeyphraseVocabulary:
    """The digest's keyword vocabulary and what each paper mentions of it."""

    spelling: Mapping[str, str]
    """Canonical key -> the digest's spelling, for every phrase that is some paper's keyword."""
    mentions: Sequence[Mapping[str, float]]
    """Per paper, the vocabulary keys its title and abstract use, each with how close the phrase's
    embedding is to the paper's (cosine)."""


def keyphrase_vocabulary(
    keywords: Sequence[Sequence[Keyword]],
    candidate_keys: Sequence[Collection[str]],
    spellings: Mapping[str, str],
    embed: Callable[[list[str]], np.ndarray],
    paper_vectors: np.ndarray,
) -> KeyphraseVocabulary:
    """The vocabulary from the papers' keywords (in the digest's spelling, as ``rank_keywords``
    gives them) and each paper's candidate keys (``Candidates.per_paper``). ``embed`` gives the
    phrases' vectors (the keyword ranking embedded them already: the cached embedder answers from
    its cache).

    A paper mentions a phrase when one of its candidates ends with it ("linear contextual bandit"
    mentions "contextual bandit": the head noun comes last in English, and the candidates drop a
    span that is always extended the same way). Left out as too vague to explain anything: a single
    generic word, and a phrase that more than ``max(VAGUE_MIN_PAPERS, VAGUE_SHARE × papers)`` papers
    mention."""
    from generator.analysis.keyphrases.wordlists import GENERIC_ALONE, GENERIC_EDGE

    key_of = {spelling: key for key, spelling in spellings.items()}
    mentioned = [{tail for key in keys for tail in _tails(key)} for keys in candidate_keys]
    papers_mentioning = Counter(key for keys in mentioned for key in keys)
    crowded = max(VAGUE_MIN_PAPERS, VAGUE_SHARE * len(candidate_keys))
    vocabulary = {
        key_of[k.text]: k.text
        for found in keywords
        for k in found
        if k.text in key_of
        and not (" " not in k.text and k.text.lower() in GENERIC_ALONE | GENERIC_EDGE)
        and papers_mentioning[key_of[k.text]] <= crowded
    }
    # "large language" where the digest nearly always says "large language model": a fragment.
    extended: Counter[str] = Counter()
    for key, count in papers_mentioning.items():
        if " " in key:
            prefix = key.rsplit(" ", 1)[0]
            extended[prefix] = max(extended[prefix], count)
    vocabulary = {
        key: spelling for key, spelling in vocabulary.items() if extended[key] < papers_mentioning[key] / 2
    }
    keys = sorted(vocabulary)
    if not keys:
        return KeyphraseVocabulary({}, [{} for _ in candidate_keys])
    phrase_vectors = np.asarray(embed([vocabulary[key] for key in keys]), dtype=np.float32)
    column = {key: position for position, key in enumerate(keys)}
    mentions = []
    for index, paper_keys in enumerate(mentioned):
        used = sorted(key for key in paper_keys if key in column)
        cosines = phrase_vectors[[column[key] for key in used]] @ paper_vectors[index] if used else []
        mentions.append(dict(zip(used, map(float, cosines), strict=True)))
    return KeyphraseVocabulary(vocabulary, mentions)


def _tails(key: str) -> list[str]:
    """The phrase and its shorter endings: "linear contextual bandit", "contextual bandit", "bandit"."""
    words = key.split()
    return [" ".join(words[start:]) for start in range(len(words))]


def shared_keyphrases(
    vocabulary: KeyphraseVocabulary, first: int, second: int, limit: int = SHARED_PHRASES_PER_LINK
) -> tuple[str, ...]:
    """Up to ``limit`` vocabulary phrases both papers use, those closest to both papers first."""
    one, other = vocabulary.mentions[first], vocabulary.mentions[second]
    common = [key for key in one.keys() & other.keys() if min(one[key], other[key]) >= MIN_COSINE]
    ranked = sorted(common, key=lambda key: (-(one[key] + other[key]), key))
    picked: list[str] = []
    for key in ranked:
        words = set(key.split())
        if any(words <= set(chosen.split()) for chosen in picked):
            continue  # "wormhole" after "wasserstein wormhole"
        inside = [chosen for chosen in picked if set(chosen.split()) < words]
        if inside:  # a longer phrase takes the place of the shorter ones it contains
            position = picked.index(inside[0])
            picked = [chosen for chosen in picked if chosen not in inside]
            picked.insert(position, key)
        elif len(picked) < limit:
            picked.append(key)
    return tuple(vocabulary.spelling[key] for key in picked[:limit])


@dataclass(frozen=True)
class SimilarityScale:
    """The similarities of (a large sample of) all pairs of papers, ascending."""

    similarities: np.ndarray

    def closeness(self, similarity: float) -> float:
        """The share of pairs at least this similar, in (0, 1]."""
        return self.closeness_of([similarity])[0]

    def closeness_of(self, similarities: Sequence[float]) -> list[float]:
        """``closeness`` of each, in one search: searching the float32 scale for one Python float
        converted the whole scale to float64 each time (two thirds of explaining 50,000 papers)."""
        total = len(self.similarities)
        if not total:
            return [1.0] * len(similarities)
        scale = np.asarray(self.similarities, dtype=np.float64)
        at_least = total - np.searchsorted(scale, np.asarray(similarities, dtype=np.float64), side="left")
        return [max(int(count), 1) / total for count in at_least]


def similarity_scale(vectors: np.ndarray, pairs: int = PAIRS_SAMPLED, seed: int = 0) -> SimilarityScale:
    """The scale of a digest's (L2-normalised) vectors: every pair when there are at most ``pairs``
    of them, else ``pairs`` of the pairs among rows drawn at random (fixed seed, so builds agree).

    Pairs among a random set of rows come from one small matrix product; drawing the pairs one by
    one gathered two (pairs x dimensions) arrays, 700 MB and ~1.5 s at ICML 2024 on every build."""
    count = len(vectors)
    total = count * (count - 1) // 2
    if total == 0:
        return SimilarityScale(np.zeros(0, dtype=np.float32))
    if total <= pairs:
        rows = np.arange(count)
    else:
        needed = math.ceil((1 + math.sqrt(1 + 8 * pairs)) / 2)  # rows whose pairs number at least ``pairs``
        rows = np.random.default_rng(seed).choice(count, needed, replace=False)
    sample = np.asarray(vectors[rows], dtype=np.float32)
    first, second = np.triu_indices(len(rows), k=1)
    similarities = (sample @ sample.T)[first, second][:pairs]
    return SimilarityScale(np.sort(similarities))


def explain_related(
    related: Sequence[Sequence[RelatedPaper]],
    vocabulary: KeyphraseVocabulary,
    scale: SimilarityScale,
) -> list[list[RelatedPaper]]:
    """The same links with their shared keyphrases and their place on the digest's scale."""
    closeness = iter(scale.closeness_of([link.score for links in related for link in links]))
    return [
        [
            replace(
                link,
                shared_keywords=shared_keyphrases(vocabulary, index, link.index),
                closeness=next(closeness),
            )
            for link in links
        ]
        for index, links in enumerate(related)
    ]


def closeness_text(closeness: float) -> str:
    """ "closest 1% of pairs": the share rounded up, to one decimal below 1% and two below 0.1%
    (a paper's five related papers are mostly among a digest's closest 0.5% of pairs, so a coarser
    scale would read the same for all of them)."""
    percent = 100 * closeness
    # rounded to 1e-6 first, so 0.4% computed as 0.40000000001 does not read 0.5%
    if percent < 0.1:
        hundredths = max(math.ceil(round(percent * 100, 6)), 1)
        shown = f"{hundredths / 100:.2f}" if hundredths < 10 else "0.1"
    elif percent < 1:
        tenths = math.ceil(round(percent * 10, 6))
        shown = f"{tenths / 10:.1f}" if tenths < 10 else "1"
    else:
        shown = str(math.ceil(round(percent, 6)))
    return f"closest {shown}% of pairs"

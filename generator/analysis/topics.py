"""Topics: the papers grouped by k-means on the joint vectors, each group labelled by its own phrases.

The clustering runs on the same joint vectors as the related papers (``generator.analysis.related``), which
agree better with the NLP dev set's tracks than the embeddings alone. About sqrt(N/2) topics, at most
40 (36 for ICML 2024's 2,634, so the topic list stays a few dozen), but only as many as the data
supports: fewer, or none, when k-means finds clusters no tighter than in shuffled vectors (the 57
bundled abstracts, a sample across all of ICML, get none).

Labels use class-based tf-idf (c-TF-IDF, as in BERTopic): a topic's papers are read as one document
and a phrase scores by how much more that document uses it than the digest as a whole does. Three
phrases make a label; each phrase labels only the topic that uses it most, so two topics never read
alike, and a label never says the same word twice ("graph" and "graphs", "rl" and "reinforcement
learning").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.metrics import silhouette_score

from generator.analysis.keyphrases.canonical import as_authors_write, singular
from generator.analysis.keyphrases.ranker import word_stats
from generator.analysis.related import PhraseCounts, count_phrases, one_thread, same_word
from generator.model import Topic

MAX_TOPICS = 40
MIN_SILHOUETTE_GAP = 0.03
"""How much tighter than in structureless data the clusters must be (see ``structured_topic_count``)."""
SILHOUETTE_SAMPLE = 1000
MIN_PAPERS_FOR_STRUCTURE_TEST = 20
PHRASES_PER_LABEL = 3
CANDIDATES_PER_TOPIC = 60
FRAGMENT_SHARE = 0.8
K_MEANS_RUNS = 4
MIN_TOPIC_SHARE = 0.25
"""A label phrase is used by at least this share of its topic's papers ..."""
MIN_CONTRAST = 3.0
"""... and by at least this many times the share of the other papers that use it."""

# Too vague to stand alone in a label (they still count inside phrases: "neural networks").
_VAGUE_WORDS = frozenset(
    """model models modeling modelling learning data training algorithm algorithms network networks
    neural deep system systems analysis information techniques technique theory results setting
    settings approach method methods function functions problem problems f1 bleu points accuracy score
    scores""".split()  # noqa: SIM905
)


# The names of whole fields: every paper of an ML digest is "ml" or "ai".
_FIELD_NAMES = frozenset({"ml", "ai", "nlp", "cv", "machine", "artificial", "intelligence"})


def topic_count(paper_count: int) -> int:
    """About sqrt(N/2) topics, between 1 and ``MAX_TOPICS``, never more than there are papers."""
    if paper_count <= 0:
        return 0
    return int(min(MAX_TOPICS, paper_count, max(1, round(math.sqrt(paper_count / 2)))))


@dataclass(frozen=True)
class TopicFit:
    """What the clustering learned: one centre per topic (largest topic first) and its label.

    Reused while the digest changes little, so an edited abstract moves at most its own paper to
    another topic, and topic pages keep their names and addresses."""

    centres: np.ndarray
    labels: tuple[tuple[str, ...], ...]


def structured_topic_count(vectors: np.ndarray, most: int, seed: int = 0) -> int:
    """How many topics the data supports, at most ``most``: the largest of ``most``, ``most // 2``,
    … 2 whose k-means clusters are clearly tighter (silhouette, cosine) than those k-means finds in
    the same vectors with each column shuffled on its own (same values, no structure: the reference
    of the gap statistic). 0 when none is: the digest has no groups worth naming.

    On the development sets the silhouette at sqrt(N/2) clusters is 0.12-0.15 against 0.00-0.01
    for the shuffled vectors; on the 57 bundled abstracts it is below the shuffled one at every k."""
    rows = np.asarray(vectors, dtype=np.float64)
    rng = np.random.default_rng(seed)
    shuffled = np.column_stack([rng.permutation(rows[:, j]) for j in range(rows.shape[1])])
    count = most
    while count >= 2:
        if _silhouette(rows, count, seed) - _silhouette(shuffled, count, seed) >= MIN_SILHOUETTE_GAP:
            return count
        count = count // 2 if count > 2 else 0
    return 0


def _silhouette(rows: np.ndarray, count: int, seed: int) -> float:
    assigned = KMeans(n_clusters=count, n_init=1, random_state=seed).fit(rows).labels_
    if len(set(assigned.tolist())) < 2:
        return -1.0
    sample = min(SILHOUETTE_SAMPLE, len(rows))
    return float(silhouette_score(rows, assigned, metric="cosine", sample_size=sample, random_state=seed))


def fit_topics(counts: PhraseCounts, vectors: np.ndarray, seed: int = 0) -> TopicFit:
    """k-means with about sqrt(N/2) centres, fewer or none when the data has no such structure
    (``structured_topic_count``), ordered largest topic first, each labelled."""
    count = topic_count(len(vectors))
    with one_thread():
        if count >= 2 and len(vectors) >= MIN_PAPERS_FOR_STRUCTURE_TEST:
            count = structured_topic_count(vectors, count, seed)
        if count == 0:
            return TopicFit(centres=np.zeros((0, np.shape(vectors)[1])), labels=())
        if count <= 1 or len(vectors) <= 1:
            centres = np.asarray(vectors, dtype=np.float64).mean(axis=0, keepdims=True)[: min(count, 1)]
        else:
            centres = (
                KMeans(n_clusters=count, n_init=K_MEANS_RUNS, random_state=seed).fit(vectors).cluster_centers_
            )
        nearest = nearest_centre(centres, vectors)
        # k-means leaves a centre without papers when rows coincide; those are dropped.
        groups = [(c, np.flatnonzero(nearest == c).tolist()) for c in range(len(centres))]
        groups = sorted((g for g in groups if g[1]), key=lambda g: (-len(g[1]), g[1][0]))
        labels = label_topics(counts, [members for _, members in groups])
    return TopicFit(centres=centres[[c for c, _ in groups]], labels=tuple(labels))


def nearest_centre(centres: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Each row's closest centre (Euclidean, as k-means), lowest index on a tie."""
    if not len(centres):
        return np.zeros(len(vectors), dtype=np.intp)
    centres = np.asarray(centres, dtype=np.float64)
    distances = (centres**2).sum(axis=1) - 2.0 * (np.asarray(vectors, dtype=np.float64) @ centres.T)
    return distances.argmin(axis=1)


def assign_topics(fit: TopicFit, vectors: np.ndarray, texts: Sequence[str] | None = None) -> list[Topic]:
    """Every paper in the topic of its nearest centre; topics in the fit's order, empty ones left out.
    With the papers' ``texts``, each label phrase is spelled as its topic's papers write it."""
    with one_thread():
        nearest = nearest_centre(fit.centres, vectors) if len(vectors) else np.zeros(0, dtype=np.intp)
        groups = [(np.flatnonzero(nearest == c).tolist(), fit.labels[c]) for c in range(len(fit.centres))]
        groups = [(_central_first(vectors, members), label) for members, label in groups if members]
    if texts is not None:
        groups = [(members, as_written(label, [texts[m] for m in members])) for members, label in groups]
    return [
        Topic(
            label=" · ".join(phrases_) if phrases_ else f"Topic {number}",
            phrases=phrases_,
            members=tuple(members),
        )
        for number, (members, phrases_) in enumerate(groups, start=1)
    ]


def _central_first(vectors: np.ndarray, members: list[int]) -> list[int]:
    """Members by similarity to their mean, so a topic page opens with its most typical papers."""
    centre = vectors[members].mean(axis=0)
    closeness = vectors[members] @ centre
    return [members[i] for i in np.lexsort((members, -closeness))]


def _overlap(a: str, b: str) -> bool:
    """Whether two phrases say a word in common."""
    return any(same_word(x, y) for x in a.split() for y in b.split())


def _within(short: str, long: str) -> bool:
    """Whether every word of ``short`` is in the longer phrase ``long`` ("neural" in "neural networks")."""
    words, inner = long.split(), short.split()
    return len(inner) < len(words) and all(any(same_word(x, y) for y in words) for x in inner)


def _is_acronym_of(short: str, long: str) -> bool:
    """ "llms" and "llm" abbreviate "large language models"; "rl" abbreviates "reinforcement learning",
    "vlms" "vision-language models" (every part of the hyphenated word), and "rc" the end of "machine
    reading comprehension"; "mt" is not "multi-task learning"."""
    words = long.split()
    if " " in short or len(words) < 2:
        return False
    short = short.rstrip("s")
    windows = (words[i:j] for i in range(len(words)) for j in range(i + 2, len(words) + 1))
    for window in windows:
        by_word = "".join(w[0] for w in window)
        by_part = "".join(part[0] for w in window for part in w.split("-") if part)
        if short in (by_word.rstrip("s"), by_part.rstrip("s")):
            return True
    return False


def topic_phrase_weights(
    counts: PhraseCounts, groups: Sequence[Sequence[int]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """c-TF-IDF: ``(weights, support, phrases)`` with one row per topic and one column per phrase.

    weight = tf(phrase, topic) / words(topic) * log(1 + mean words per topic / tf(phrase, digest));
    support = how many of the topic's papers use the phrase.
    """
    papers = counts.matrix.shape[0]
    if not counts.terms.size:  # not one phrase in the whole digest
        return np.zeros((len(groups), 0)), np.zeros((len(groups), 0)), counts.terms
    phrase_counts = counts.matrix.astype(np.float64)  # papers x phrases
    membership = sp.csr_matrix(
        (
            np.ones(sum(len(g) for g in groups)),
            ([t for t, g in enumerate(groups) for _ in g], [i for g in groups for i in g]),
        ),
        shape=(len(groups), papers),
    )
    topic_counts = (membership @ phrase_counts).toarray()
    support = (membership @ (phrase_counts > 0).astype(np.float64)).toarray()
    words_per_topic = np.maximum(topic_counts.sum(axis=1, keepdims=True), 1.0)
    digest_counts = np.maximum(topic_counts.sum(axis=0, keepdims=True), 1.0)
    weights = topic_counts / words_per_topic * np.log1p(words_per_topic.mean() / digest_counts)
    return weights, support, counts.terms


def fragments(vocabulary: Sequence[str], counts: np.ndarray) -> np.ndarray:
    """Which phrases are mostly a piece of one longer phrase: "large language" is nearly always in
    "large language models", so it is no label of its own; "neural networks" is in many longer ones
    and stays. ``counts`` are the phrases' uses over the digest."""
    index = {phrase: i for i, phrase in enumerate(vocabulary)}
    longest_extension = np.zeros(len(vocabulary))
    for phrase, i in index.items():
        words = phrase.split()
        for part in (" ".join(words[:-1]), " ".join(words[1:])) if len(words) > 1 else ():
            j = index.get(part)
            if j is not None:
                longest_extension[j] = max(longest_extension[j], counts[i])
    return longest_extension >= FRAGMENT_SHARE * counts


def _min_support(topic_size: int) -> int:
    """A label phrase must be used by several of the topic's papers (3 in a topic of 20 or more),
    not be one paper's idiosyncrasy."""
    return max(1, min(3, math.ceil(topic_size / 10)))


def carried(support: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Which phrases (columns) each topic (row of ``support``: its papers using the phrase) carries:
    used by at least ``MIN_TOPIC_SHARE`` of its papers and ``MIN_CONTRAST`` times as often (as a
    share of papers) inside the topic as outside it."""
    sizes = np.asarray(sizes, dtype=np.float64)[:, None]
    papers = sizes.sum()
    share_inside = support / np.maximum(sizes, 1.0)
    share_outside = (support.sum(axis=0, keepdims=True) - support) / np.maximum(papers - sizes, 1.0)
    return (share_inside >= MIN_TOPIC_SHARE) & (share_inside >= MIN_CONTRAST * share_outside)


def label_topics(counts: PhraseCounts, groups: Sequence[Sequence[int]]) -> list[tuple[str, ...]]:
    """Up to three phrases per topic, best first, each carried by the topic (``carried``); a topic
    no phrase is carried by is named by its best phrases all the same."""
    weights, support, vocabulary = topic_phrase_weights(counts, groups)
    if not vocabulary.size:
        return [() for _ in groups]
    owner = weights.argmax(axis=0)  # each phrase labels only the topic that uses it most
    whole = ~fragments(vocabulary, support.sum(axis=0))
    sizes = np.array([len(group) for group in groups])
    topic_carries = carried(support, sizes)
    labels = []
    for topic, group in enumerate(groups):
        named = (support[topic] >= _min_support(len(group))) & (weights[topic] > 0) & whole
        chosen: list[str] = []
        for usable in (np.flatnonzero(named & topic_carries[topic]), np.flatnonzero(named)):
            ranked = usable[np.lexsort((usable, -weights[topic, usable]))][:CANDIDATES_PER_TOPIC]
            chosen = pick_label(
                [(str(vocabulary[j]), float(weights[topic, j])) for j in ranked if owner[j] == topic]
            )
            if not chosen:  # every good phrase belongs to a topic that uses it more: share one
                chosen = pick_label([(str(vocabulary[j]), float(weights[topic, j])) for j in ranked])
            if chosen:
                break
        labels.append(tuple(chosen))
    return labels


ACRONYM_LENGTH = 4
"""Counted phrases are lowercase, so an acronym ("rl", "gnn") is not told from a word, and titles spell
acronyms out (the statistics find "RL" in 4 % of its abstracts' titles): a word this short is not
judged by the word statistics."""


def _filler(word: str) -> bool:
    """A filler of the learned word statistics (``WordStats.filler``) as one word of a label."""
    return len(word) > ACRONYM_LENGTH and word_stats().filler(singular(word), word)


def label_worthy(phrase: str) -> bool:
    """Whether a phrase can name a topic: no single word that could head any topic ("model",
    "insights", "ml", "local"), and no phrase that starts or ends on a word a keyphrase cannot
    start or end on (a verb, an adjective such as "large" or "empirical", a generic word)."""
    from generator.analysis.keyphrases.wordlists import (
        ADJECTIVE_ENDING,
        ADJECTIVE_ENDING_NOUNS,
        FUNCTION_WORDS,
        GENERIC_ALONE,
        GENERIC_EDGE,
        NO_END,
        VERBS,
    )

    words = phrase.split()
    if not words:
        return False

    def weak(word: str) -> bool:
        return (
            word in FUNCTION_WORDS
            or word in VERBS
            or word in GENERIC_EDGE
            or not any(c.isalpha() for c in word)
        )

    def adjective(word: str) -> bool:
        return word in NO_END or (
            bool(ADJECTIVE_ENDING.search(word)) and word not in ADJECTIVE_ENDING_NOUNS and len(word) > 3
        )

    last = words[-1]
    if len(words) == 1:
        return not (
            _filler(phrase)
            or phrase in _VAGUE_WORDS
            or phrase in GENERIC_ALONE
            or phrase in _FIELD_NAMES
            or weak(last)
            or adjective(last)
        )
    return not (weak(words[0]) or weak(last) or adjective(last))


def pick_label(candidates: Sequence[tuple[str, float]], size: int = PHRASES_PER_LABEL) -> list[str]:
    """The best ``size`` phrases (``candidates`` are best first) that repeat no word.

    A longer phrase replaces the shorter ones it contains when it scores at least a third as well
    ("neural", "networks" -> "neural networks"), and a spelled-out phrase replaces its acronym.
    """
    chosen: list[tuple[str, float]] = []
    for phrase, weight in candidates:
        if not label_worthy(phrase) or any(p == phrase for p, _ in chosen):
            continue
        if any(_is_acronym_of(phrase, p) for p, _ in chosen):
            continue
        abbreviated = [c for c in chosen if _is_acronym_of(c[0], phrase)]
        if abbreviated:
            chosen[chosen.index(abbreviated[0])] = (phrase, abbreviated[0][1])
            chosen = _without_contained(chosen)
            continue
        clashing = [c for c in chosen if _overlap(phrase, c[0])]
        if not clashing:
            if len(chosen) < size:
                chosen.append((phrase, weight))
            continue
        best = max(w for _, w in clashing)
        if all(_within(c[0], phrase) for c in clashing) and weight >= best / 3:
            first = chosen.index(clashing[0])
            kept = [c for c in chosen if c not in clashing]
            kept.insert(min(first, len(kept)), (phrase, best))
            chosen = kept
    return [phrase for phrase, _ in chosen]


def _without_contained(chosen: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Drops a phrase whose words all appear in a longer chosen phrase."""
    return [c for c in chosen if not any(o is not c and _within(c[0], o[0]) for o in chosen)]


def find_topics(texts: Sequence[str], vectors: np.ndarray) -> list[Topic]:
    """Topics of the digest, largest first; every paper is in exactly one."""
    return assign_topics(fit_topics(count_phrases(texts), vectors), vectors, texts)


PROPER_NOUN_SHARE = 0.8
"""A phrase its texts capitalise this often is a name ("Bayesian", "Wasserstein"), not a word that
happened to start a sentence."""


def as_written(phrases: Sequence[str], texts: Sequence[str]) -> tuple[str, ...]:
    """Label ``phrases`` (lowercase, as counted) as ``texts`` write them: an acronym or a mixed-case
    word in its usual form ("llm" is "LLM", "dp-sgd" "DP-SGD"), a one-word name its texts capitalise
    nearly always with its capital ("Bayesian"); every other word as it is."""
    if not phrases:
        return tuple(phrases)
    longest_first = sorted(phrases, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, longest_first)) + r")(?![\w-])", re.I)
    seen: dict[str, Counter[str]] = {phrase: Counter() for phrase in phrases}
    for text in texts:
        for match in pattern.finditer(text):
            written = match.group(1)
            seen.setdefault(written.lower(), Counter())[written] += 1
    spelled = []
    for phrase in phrases:
        forms = seen.get(phrase)
        if not forms:
            spelled.append(phrase)
            continue
        usual = forms.most_common(1)[0][0].split()
        words = []
        for position, word in enumerate(phrase.split()):
            # "DP-SGD", "LoRA", "GPT-4"; not the Title Case of "Vision-Language"
            mixed_case = any(c.isupper() for part in usual[position].split("-") for c in part[1:])
            # a capital inside a longer phrase is more often Title Case than a name
            name = " " not in phrase and (
                sum(n for form, n in forms.items() if form[:1].isupper()) >= PROPER_NOUN_SHARE * forms.total()
            )
            words.append(usual[position] if mixed_case or name else word)
        spelled.append(as_authors_write(" ".join(words)))  # "Gaussian process", as keywords show it
    return tuple(spelled)

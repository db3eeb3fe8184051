"""Keyphrase candidates: noun-phrase-like runs of words, with acronyms resolved, no POS tagger.

An abstract is stripped of markup (math, URLs and tags become phrase breaks), an acronym defined in
the text ("large language models (LLMs)") is replaced by its expansion, and the text is cut into
maximal runs of content words at punctuation, function words, verbs and adverbs, and after a
possessive ("the model's outputs"). Every 1-3-word span of a run that neither starts nor ends with a
generic word, nor ends with an adjective-like word, is a candidate. A span always followed by the
same word is cut from a longer phrase and dropped: when the longer one is a candidate ("large
language" of "large language model"), and when it is too long to be one but could end there
("early-exit large language" of "early-exit large language models", whose end "large language
model" stays). A span always preceded by the same word stays: it is the longer phrase's head
("reinforcement learning" of "multi-agent reinforcement learning"), which authors list as a keyword
(NeurIPS 2023 author keywords found among the candidates: 36.6 % with such heads dropped, 41.6 %
kept); the ranker and ``keywords._pick`` decide between the two.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from generator.analysis.keyphrases.canonical import (
    TOKEN_CACHE,
    as_authors_write,
    canonical,
    canonical_key,
    is_acronym,
    key_parts,
    lower,
    singular,
    singular_token,
)
from generator.analysis.keyphrases.wordlists import (
    ADJECTIVE_ENDING,
    ADJECTIVE_ENDING_NOUNS,
    FUNCTION_WORDS,
    GENERIC_ALONE,
    GENERIC_EDGE,
    LY_NOUNS,
    NO_END,
    VERBS,
)
from generator.analysis.text import strip_markup
from generator.analysis.title_usage import title_usage

MAX_WORDS = 3
PHRASE_BREAK = " ; "

# "44.1kHz", "0.5x" are one token (a measurement, never in a keyphrase), not "44", ".", "1kHz"; a word
# is letters of any script ("Schrödinger", "Rényi"), not "Schr", "ö", "dinger"
_TOKEN = re.compile(r"\d+(?:\.\d+)+[^\W\d_]*|[^\W_]+#(?![\w#])|[^\W_]+(?:[-'’/][^\W_]+)*|[^\s\w]|_")
_DECIMAL = re.compile(r"\d+\.\d")
_ASIDE = re.compile(r"\s*\([^()]*\)")
_LOOK_BACK = 400
"""Characters before a definition's bracket read for its long form (more than its longest window)."""
_ACRONYM_DEFINITION = re.compile(r"\(\s*([A-Za-z0-9][A-Za-z0-9\-]{1,11})\s*[;,)]")
_BREAKING_SYMBOLS = re.compile(r"[{}\\^~|<>=]")
_POSSESSIVE = ("'s", "’s")


@dataclass
class Candidate:
    key: str
    """``canonical_key``: the identity shared by all spellings."""
    form: str
    """``canonical`` of the first spelling seen in this abstract."""
    count: int = 0
    """Occurrences in the abstract (uses of a defined acronym count for its expansion)."""
    first_position: float = 1.0
    """Where it first occurs, as a share of the abstract's words, in [0, 1)."""
    words: int = 1
    defined_by_acronym: bool = False
    in_title: bool = False
    followed_by: str = ""
    """The word (a key part) that follows every use in the abstract, if one always does."""
    preceded_by: str = ""
    """The word (a key part) that comes before every use in the abstract, if one always does."""
    heads: int = 0
    """Uses that end their noun phrase (no word of the phrase follows): "zero-shot" in "is zero-shot."
    but not in "zero-shot classification"."""
    aside: int = 0
    """Uses in what the paper does not claim as its own (``_aside_runs``): the background before the
    abstract first speaks of its own work, or an example or a contrast ("such as X", "unlike X")."""
    own_odds: float | None = None
    """For a name (``keywords.may_be_own_name``): the title name detector's log-odds that it is the
    paper's own (``titles.own_name_odds``), None when the detector finds no such name."""


@lru_cache(maxsize=TOKEN_CACHE)
def _weak(token: str) -> bool:
    """A token that is never inside a keyphrase."""
    word = lower(token)
    return (
        word in FUNCTION_WORDS
        or word in VERBS
        or not any(c.isalpha() for c in word)
        or _DECIMAL.match(word) is not None
        or (len(word) == 1 and not token.isupper())
        or (word.endswith("ly") and word not in LY_NOUNS and len(word) > 4 and not is_acronym(token))
        # "optimize", "regularizes": English makes verbs with -ize; its nouns so spelled are short
        or (word.endswith(("ize", "izes")) and len(word) >= 7)
    )


@lru_cache(maxsize=TOKEN_CACHE)
def _bad_edge(token: str, last: bool) -> bool:
    """A token that may be inside a phrase but not at its start (or end, when ``last``)."""
    word = lower(token)
    if word in GENERIC_EDGE:
        return True
    if last and word in NO_END:
        return True
    if last and not is_acronym(token):
        head = word.split("-")[-1]
        if ADJECTIVE_ENDING.search(head) and head not in ADJECTIVE_ENDING_NOUNS and len(head) > 3:
            return True  # "graph neural", "adversarial"
        if word.endswith("ed") and not word.endswith("eed") and len(word) > 4:
            return True  # "model trained"
    return False


@lru_cache(maxsize=TOKEN_CACHE)
def _may_stand_alone(token: str) -> bool:
    """A one-word candidate: three letters or an acronym, not too generic alone, and not the gerund
    of an -ize verb ("optimizing", "minimizing": alone it reads as the verb; the noun is -ization)."""
    word = lower(token)
    return (
        (len(token) >= 3 or is_acronym(token))
        and singular(word) not in GENERIC_ALONE
        and not (word.endswith(("izing", "yzing")) and len(word) >= 8)  # not "denoising", "Ising"
    )


def find_acronyms(text: str) -> dict[str, str]:
    """Acronyms defined in the text, by the Schwartz-Hearst rule: ``large language models (LLMs)``
    gives ``{"LLM": "large language models"}``."""
    found: dict[str, str] = {}
    for match in _ACRONYM_DEFINITION.finditer(text):
        short = match.group(1)
        if not is_acronym(short):
            continue
        before = text[max(0, match.start() - _LOOK_BACK) : match.start()]
        expansion = _long_form(short, before)
        if expansion is None and _ASIDE.search(before):
            # An aside inside the long form is no part of it: "out-of-domain (OOD) generalization
            # (OODG)". Read over an aside, a long form joins no two phrases ("federated learning (FL)
            # and analytics (FA)" defines no FA), and each of its words opens with a letter of the
            # acronym ("graph neural networks (GNNs) with attention (GA)" defines no GA).
            expansion = _long_form(short, _ASIDE.sub(" ", before), initials_only=True)
            if expansion is not None and (
                any(lower(w) in _JOINING for w in expansion) or len(expansion) > len(short)
            ):
                expansion = None
        if expansion is not None:
            found.setdefault(singular_token(short), " ".join(expansion))
    return found


_JOINING = frozenset({"and", "or", "nor", "but"})


def _long_form(short: str, before: str, initials_only: bool = False) -> list[str] | None:
    """The words just before a bracketed ``short`` that spell it out (with ``initials_only``, each
    letter opening a word or a hyphenated part), or None."""
    window = min(len(short) + 5, 2 * len(short)) + 1
    words = _tokens(before)[-window:]
    for position in range(len(words) - 1, -1, -1):
        if not words[position][0].isalnum():
            words = words[position + 1 :]
            break
    spelled = _spelled_by(short, words, initials_only) if words else None
    if not spelled or spelled > len(words):
        return None
    expansion = words[-spelled:]
    if len(expansion) < 2 and "-" not in expansion[0]:
        return None
    if lower(expansion[0]) in FUNCTION_WORDS or lower(expansion[0]) in VERBS:
        return None
    return expansion


def _spelled_by(short: str, words: list[str], initials_only: bool = False) -> int | None:
    """How many trailing ``words`` spell the acronym ``short`` (Schwartz & Hearst, 2003), or None."""
    letters = short.lower()
    if letters.endswith("s") and len(short) > 2 and (short[-2].isupper() or short[-2].isdigit()):
        letters = letters[:-1]  # "LLMs", "GS2s"
    letters = letters.replace("-", "")
    long_form = " ".join(words).lower()
    spelled = _spelled_from_end(letters, long_form, initials_only)
    if spelled is not None or not any(c.isdigit() for c in letters):
        return spelled
    # Read with a digit as a word or a count, the letters must open the long form's words or their
    # hyphenated parts: loosely, "M2" would be "modules among the same languages".
    for spelling in _digit_spellings(letters):
        spelled = _spelled_from_end(spelling, long_form, initials_only=True)
        if spelled is not None:
            return spelled
    return None


_WORD_DIGITS = re.compile(r"^\d+|(?<=[a-z])[24](?=[a-z])")
_REPEATED_LETTER = re.compile(r"([a-z])([2-9])")


def _digit_spellings(letters: str) -> Iterator[str]:
    """Other letters an acronym with digits may spell: a leading number, or a "2" ("to") or "4"
    ("for") between letters, as a word that spells no letter ("2MLR": two-component mixed linear
    regression, "EP2T": event-points-to-tensor, "B4B": bucks for buckets); then a digit after a
    letter as that letter repeated ("GS2": generative subgame solving, "D3TW": discriminative
    differentiable dynamic time warping)."""
    unspelled = _WORD_DIGITS.sub("", letters)
    if unspelled != letters and sum(c.isalpha() for c in unspelled) >= 2:
        yield unspelled
    repeated = _REPEATED_LETTER.sub(lambda m: m.group(1) * int(m.group(2)), letters)
    repeated = "".join(c for c in repeated if not c.isdigit())
    if repeated != letters and sum(c.isalpha() for c in repeated) >= 2:
        yield repeated


def _spelled_from_end(letters: str, long_form: str, initials_only: bool) -> int | None:
    """How many trailing words of ``long_form`` spell ``letters`` in order (the first letter opening
    a word; with ``initials_only``, every letter opening a word or a hyphenated part), or None."""
    s, position = len(letters) - 1, len(long_form) - 1
    while s >= 0:
        letter = letters[s]
        if not letter.isalnum():
            s -= 1
            continue
        while position >= 0 and (
            long_form[position] != letter
            or ((s == 0 or initials_only) and position > 0 and long_form[position - 1].isalnum())
        ):
            position -= 1
        if position < 0:
            return None
        position -= 1
        s -= 1
    return long_form[position + 1 :].count(" ") + 1


def _tokens(text: str) -> list[str]:
    """The tokens of ``text``: a name of two capitals or more keeps its sharp ("QuIP#" is the paper's
    method, "QuIP" the one it improves on); any other word does not ("the#")."""
    tokens = []
    # one code point per letter: "o" and a combining diaeresis are "ö", as in the composed form
    for token in _TOKEN.findall(unicodedata.normalize("NFC", text)):
        if token.endswith("#") and len(token) > 1 and sum(c.isupper() for c in token) < 2:
            tokens += [token[:-1], "#"]
        else:
            tokens.append(token)
    return tokens


def _runs(text: str) -> list[tuple[str | None, list[str]]]:
    """The runs of content words, each with the word just before it (a function word or verb that broke
    the run: "named" of "named entity recognition"), or None after punctuation or a possessive."""
    runs: list[tuple[str | None, list[str]]] = [(None, [])]
    usage = title_usage()
    for token in _tokens(text):
        owner = len(token) > 2 and token.endswith(_POSSESSIVE)
        word = token[:-2] if owner else token
        # "bipartite matching", "circuit design": a word that reads as a verb stays in the phrase when
        # titles use the pair as one noun phrase (``title_usage``)
        joined = bool(runs[-1][1]) and token[0].isalnum() and usage.is_compound(runs[-1][1][-1], word)
        if not token[0].isalnum() or (_weak(word) and not joined):
            runs.append((key_parts(word)[0] if token[0].isalnum() else None, []))
            continue
        runs[-1][1].append(word)
        if owner:  # "the model's outputs": the owner ends a phrase, what it owns starts the next
            runs.append((None, []))
    return [(before, run) for before, run in runs if run]


# Where an abstract starts speaking of its own work ("we", "our", "this paper", "here").
_OWN_WORK = re.compile(r"\b(?:we|our|here|this (?:paper|work|study|article|note))\b", re.I)
# Words that make what follows an example or a contrast: "such as X", "unlike X", "than X".
_ASIDE_OPENERS = frozenset({"as", "unlike", "than", "like", "including", "versus", "vs"})


def _aside_runs(body: str) -> list[tuple[bool, tuple[str | None, list[str]]]]:
    """``_runs`` of the text, each marked when it is an aside: in a sentence before the first that
    speaks of the paper's own work, or an example or contrast ("such as X, Y or Z", "unlike X") up
    to the next word that is no list's "and"/"or"."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(\"“])", body) if s.strip()]
    own_from = next((i for i, s in enumerate(sentences) if _OWN_WORK.search(s)), 0)
    marked = []
    for index, sentence in enumerate(sentences):
        aside = False
        for before, run in _runs(sentence):
            if before in _ASIDE_OPENERS:
                aside = True
            elif before not in (None, "and", "or"):
                aside = False
            marked.append((index < own_from or aside, (before, run)))
    return marked


def _span_key(parts: list[tuple[str, str]], start: int, end: int) -> str:
    """``canonical_key`` of the words ``start:end`` of a run, from the words' ``key_parts``."""
    if end - start == 1:
        return parts[start][1]
    return " ".join([part[0] for part in parts[start : end - 1]]) + " " + parts[end - 1][1]


def abstract_candidates(abstract: str, title: str | None = None, tails: bool = True) -> dict[str, Candidate]:
    """The candidates of one abstract, by key. ``title`` (a given one) marks ``in_title`` and adds its
    phrases the abstract never uses (count 0). Without ``tails``, only whole phrases: a span always
    preceded by the same word is dropped too."""
    clean = _BREAKING_SYMBOLS.sub(PHRASE_BREAK, strip_markup(abstract, gap=PHRASE_BREAK))
    acronyms = {short: canonical(expansion) for short, expansion in find_acronyms(clean).items()}
    # An expansion longer than a keyword can be leaves only its pieces ("constrained preference
    # optimization" of "Contextualized Critiques with Constrained Preference Optimization (C3PO)"):
    # such an acronym stays beside them, the one handle a reader has on the name.
    standing = frozenset(short for short, expansion in acronyms.items() if len(expansion.split()) > MAX_WORDS)
    body = _ACRONYM_DEFINITION.sub(
        lambda m: PHRASE_BREAK if singular_token(m.group(1)) in acronyms else m.group(0), clean
    )
    body = _spelled_out(body, acronyms, standing)
    runs = _aside_runs(body)
    usage = title_usage()
    total = max(1, sum(len(run) for _, (_, run) in runs))
    candidates: dict[str, Candidate] = {}
    neighbours: dict[str, tuple[set[str | None], set[str | None]]] = defaultdict(lambda: (set(), set()))
    # Spans of MAX_WORDS seen at least once not followed by a word that could end a longer phrase.
    whole_at_limit: set[str] = set()
    offset = 0
    for aside, (before, run) in runs:
        length = len(run)
        may_end = [not _bad_edge(token, last=True) for token in run]
        parts = [key_parts(token) for token in run]
        for start in range(length):
            if _bad_edge(run[start], last=False) and not (
                start + 1 < length and usage.is_generic_term(run[start], run[start + 1])
            ):
                continue  # "time" opens no keyphrase, but "time series forecasting" is one
            for end in range(start + 1, min(start + MAX_WORDS, length) + 1):
                if not may_end[end - 1] or (end - start == 1 and not _may_stand_alone(run[start])):
                    continue
                key = _span_key(parts, start, end)
                candidate = candidates.get(key)
                if candidate is None:
                    candidate = candidates[key] = Candidate(
                        key, canonical(" ".join(run[start:end])), 0, (offset + start) / total, end - start
                    )
                candidate.count += 1
                candidate.aside += aside
                candidate.heads += end == length
                left, right = neighbours[key]
                if start > 0:
                    left.add(_span_key(parts, start - 1, end))
                else:  # the word that broke the run ("named" of "named entity recognition"), if any
                    left.add(f"{before} {key}" if before else None)
                right.add(_span_key(parts, start, end + 1) if end < length else None)
                if end - start == MAX_WORDS and not (end < length and may_end[end]):
                    whole_at_limit.add(key)
        offset += length
    fragments = [
        key
        for key, (left, right) in neighbours.items()
        if (len(right) == 1 and next(iter(right)) in candidates)
        or (not tails and len(left) == 1 and next(iter(left)) in candidates)
        or (
            len(right) == 1
            and None not in right
            and candidates[key].words == MAX_WORDS
            and key not in whole_at_limit
        )
    ]
    for key in fragments:
        candidates.pop(key, None)
    for key, candidate in candidates.items():
        right = neighbours[key][1]
        if len(right) == 1 and None not in right:
            candidate.followed_by = next(iter(right)).rsplit(" ", 1)[-1]
        left = neighbours[key][0]
        if len(left) == 1 and None not in left:
            candidate.preceded_by = next(iter(left))[: -len(key) - 1]
    for expansion in acronyms.values():
        key = canonical_key(expansion)
        if key in candidates:
            candidates[key].defined_by_acronym = True
    if title:
        # The title read with the abstract's acronyms, so its "LLMs" is the abstract's phrase.
        titled = abstract_candidates(_spelled_out(title, acronyms, standing))
        for key, candidate in candidates.items():
            candidate.in_title = key in titled
        # A given title's phrase is a candidate even if the abstract never uses it: authors' keywords
        # often come from their title (NeurIPS 2023: 3.9 % of author keywords are in the title and not
        # the abstract). It has no uses and no place in the abstract (count 0, position 1).
        for key, phrase in titled.items():
            if key not in candidates:
                candidates[key] = Candidate(key, phrase.form, 0, 1.0, phrase.words, in_title=True)
    return candidates


def _spelled_out(text: str, acronyms: dict[str, str], standing: frozenset[str] = frozenset()) -> str:
    """``text`` with the acronyms an abstract defined replaced by their expansions; those ``standing``
    stay too, after the expansion and a phrase break."""
    if not acronyms:
        return text
    names = "|".join(map(re.escape, sorted(acronyms, key=len, reverse=True)))

    def spelled(match: re.Match[str]) -> str:
        expansion = acronyms[match.group(1)]
        return expansion + PHRASE_BREAK + match.group(0) if match.group(1) in standing else expansion

    return re.sub(rf"(?<![\w-])({names})s?(?![\w-])", spelled, text)


def corpus_spellings(per_abstract: Iterable[dict[str, Candidate]]) -> dict[str, str]:
    """One spelling per key for the whole digest: the most common canonical form (ties: the
    hyphenated one, then alphabetical), so ``zeroth-order`` and ``zeroth order`` agree everywhere,
    with the words authors capitalise capitalised ("Bayesian", ``as_authors_write``)."""
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    for candidates in per_abstract:
        for key, candidate in candidates.items():
            votes[key][candidate.form] += 1
    return {
        key: as_authors_write(min(forms.items(), key=lambda item: (-item[1], "-" not in item[0], item[0]))[0])
        for key, forms in votes.items()
    }

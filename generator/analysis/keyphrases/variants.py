"""One keyword page per keyword: the digest's keywords that differ only in spelling, hyphenation,
number or a spelled-out acronym, grouped under the spelling the digest uses most.

``canonical_key`` already makes "Large Language Models" and "large-language model" one keyword. What
it keeps apart, and this module joins when the digest itself shows both forms:

- a compound written apart, hyphenated or closed up ("deep fake", "deep-fake", "deepfake");
- a plural the singular rule leaves alone ("videos" beside "video": ``singular`` keeps words in
  "-os" and "-as", as "chaos" and "atlas" need);
- British and American spelling ("optimisation", "optimization"; "modelling", "modeling");
- an acronym and what it stands for ("LLM", "large language model"), when the digest's abstracts,
  titles or keywords spell it out ("large language models (LLMs)") and mostly the same way.

Grammar decides what may be a variant; the digest's own keywords decide whether both forms are
there, and its own text what an acronym stands for: no word list of synonyms.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from generator.analysis.keyphrases.candidates import find_acronyms
from generator.analysis.keyphrases.canonical import canonical_key

MIN_STEM = 4
"""Letters a singular keeps once a plural ending is dropped: "gas" is not the plural of "ga", nor
"anns" (approximate nearest neighbour search) of "ann" (artificial neural network)."""

ACRONYM_MAJORITY = 0.5
"""Share of an acronym's spelled-out definitions in the digest its expansion must exceed to be
taken for it: "RL" defined as "reinforcement learning" 40 times and "representation learning" once
is reinforcement learning; an acronym defined two ways equally often is neither."""

_BRITISH = (
    (re.compile(r"is(ation|ations|e|es|ed|ing|er|ers)$"), r"iz\1"),
    (re.compile(r"ys(e|es|ed|ing)$"), r"yz\1"),
    (re.compile(r"ll(ing|ed|er|ers)$"), r"l\1"),
    (re.compile(r"our$"), "or"),
    (re.compile(r"tre$"), "ter"),
)
"""British spellings and their American forms, as word endings: applied to both forms, so only a
pair in the digest meets ("optimisation"/"optimization", "modelling"/"modeling", "colour"/"color")."""

_DEFINED_KEYWORD = re.compile(r"^(?P<long>.+?)\s*\((?P<short>[^()\s]+)\)$")
"""A keyword that spells out its own acronym: "Large Language Model (LLM)"."""


@dataclass(frozen=True)
class KeywordVariants:
    shown: dict[str, str]
    """Each keyword of the digest, as the digest spells it, -> the form its group is shown in."""
    variants: dict[str, tuple[str, ...]]
    """A shown form -> the other spellings of it in the digest, as they were given (only for groups
    with more than one spelling)."""

    def of(self, keyword: str) -> str:
        return self.shown.get(keyword, keyword)


def spelling_key(phrase: str) -> str:
    """``canonical_key`` with compounds closed up and British spellings made American: "deep-fake",
    "deep fake" and "Deepfakes" share one; so do "optimisation" and "optimization"."""
    return _closed(canonical_key(phrase))


def _closed(key: str) -> str:
    """A ``canonical_key`` closed up, its British spellings made American."""
    return "".join(_american(word) for word in key.replace(".", "").split())


def _american(word: str) -> str:
    for pattern, replacement in _BRITISH:
        word = pattern.sub(replacement, word)
    return word


def _singular_keys(key: str) -> list[str]:
    """The keys ``key`` would have as the plural of a shorter one: "videos" -> "video";
    "stories" -> "story"; "boxes" -> "box"."""
    found = []
    if key.endswith("ies") and len(key) - 3 >= MIN_STEM - 1:
        found.append(key[:-3] + "y")
    if key.endswith("es") and len(key) - 2 >= MIN_STEM:
        found.append(key[:-2])
    if key.endswith("s") and not key.endswith("ss") and len(key) - 1 >= MIN_STEM:
        found.append(key[:-1])
    return found


def _spelled_out_key(expansion: str, expansions: dict[str, str]) -> str:
    """``spelling_key`` of an expansion with the acronyms inside it spelled out too: "partially
    observable MDP" is "partially observable markov decision process"."""
    return spelling_key(" ".join(expansions.get(canonical_key(word), word) for word in expansion.split()))


def acronym_expansions(texts: Iterable[str] | Iterable[dict[str, str]]) -> dict[str, str]:
    """What each acronym stands for in these texts, by ``canonical_key``: "llm" -> "large language
    model", when the texts spell it out (``find_acronyms``) and one expansion is used in more than
    ``ACRONYM_MAJORITY`` of its definitions."""
    definitions: dict[str, Counter[str]] = defaultdict(Counter)
    for text in texts:
        found = find_acronyms(text) if isinstance(text, str) else text
        for short, expansion in found.items():
            definitions[canonical_key(short)][canonical_key(expansion)] += 1
    expansions = {}
    for short, counts in definitions.items():
        (expansion, count), *_ = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        if count > ACRONYM_MAJORITY * sum(counts.values()):
            expansions[short] = expansion
    return expansions


def group_keyword_variants(
    per_paper: Sequence[Sequence[tuple[str, str]]], texts: Sequence[str]
) -> KeywordVariants:
    """The digest's keywords grouped into one per keyword. ``per_paper`` holds each paper's keywords
    as ``(digest spelling, spelling as given)`` (the two are the same for keywords the digest found
    itself); ``texts`` are the papers' titles, abstracts and given keywords, one text per paper,
    where acronyms are spelled out. An acronym joins what the digest mostly spells it out as, unless
    a paper that has it among its keywords spells it out as something else ("approximate nearest
    neighbour (ANN)" where most papers mean "artificial neural network"): then it stays a keyword of
    its own. A group is shown in the spelling most papers use (ties: the hyphenated one, then the
    shorter, then alphabetical), never one ending in punctuation."""
    defined_in = [find_acronyms(text) for text in texts]
    expansions = acronym_expansions(defined_in)
    ambiguous: set[str] = set()
    for keywords, found in zip(per_paper, defined_in, strict=True):
        own = {canonical_key(short): expansion for short, expansion in found.items()}
        for form, _ in keywords:
            key = canonical_key(form)
            if key in own and _spelled_out_key(own[key], expansions) != _spelled_out_key(
                expansions.get(key, own[key]), expansions
            ):
                ambiguous.add(key)
    used: Counter[str] = Counter()
    given: dict[str, dict[str, str]] = defaultdict(dict)
    for keywords in per_paper:
        for form in dict.fromkeys(form for form, _ in keywords):
            used[form] += 1
        for form, as_given in keywords:
            given[form].setdefault(as_given.lower(), as_given)

    parent = {form: form for form in used}

    def find(form: str) -> str:
        while parent[form] != form:
            parent[form] = parent[parent[form]]
            form = parent[form]
        return form

    def join(a: str, b: str) -> None:
        root_a, root_b = find(a), find(b)
        if root_a != root_b:
            parent[max(root_a, root_b)] = min(root_a, root_b)

    by_key: dict[str, str] = {}
    defined: list[tuple[str, str, str]] = []  # form, its long form, its acronym
    for form in sorted(used):
        # Only when the words before the brackets are all the acronym stands for: "computer vision
        # convolutional neural networks (CNN)" is more than a CNN.
        spelled = _DEFINED_KEYWORD.match(form)
        if spelled and [canonical_key(e) for e in find_acronyms(form).values()] == [
            canonical_key(spelled.group("long"))
        ]:
            defined.append((form, spelled.group("long"), spelled.group("short")))
        key = spelling_key(form)
        if key in by_key:
            join(form, by_key[key])
        else:
            by_key[key] = form
    for key, form in by_key.items():
        if form.split()[-1].isupper():
            continue  # "ANNS" is no plural: ``canonical`` already made "LLMs" "LLM"
        for singular_key in _singular_keys(key):
            if singular_key in by_key and not by_key[singular_key].split()[-1].isupper():
                join(form, by_key[singular_key])
    # "Large Language Model (LLM)" is both "large language model" and "LLM".
    for form, long_form, short in defined:
        for part in (long_form, short):
            if (other := by_key.get(spelling_key(part))) is not None:
                join(form, other)
    for short, expansion in expansions.items():
        if short in ambiguous:
            continue
        # Keys already: "anns" (ANNS) is no plural to make singular again.
        short_form, long_form = by_key.get(_closed(short)), by_key.get(_closed(expansion))
        if short_form is not None and long_form is not None:
            join(short_form, long_form)

    groups: dict[str, list[str]] = defaultdict(list)
    for form in used:
        groups[find(form)].append(form)
    shown: dict[str, str] = {}
    variants: dict[str, tuple[str, ...]] = {}
    for members in groups.values():
        # A keyword cut with its sentence ("machine learning.") is never the one shown.
        head = min(
            members,
            key=lambda form: (not form[-1:].isalnum(), -used[form], "-" not in form, len(form), form),
        )
        for form in members:
            shown[form] = head
        spellings = {lowered: as_given for form in members for lowered, as_given in given[form].items()}
        spellings.update({form.lower(): form for form in members if form.lower() not in spellings})
        others = sorted((s for lowered, s in spellings.items() if lowered != head.lower()), key=str.lower)
        if len(members) > 1 or others:
            variants[head] = tuple(others)
    return KeywordVariants(shown, {head: v for head, v in variants.items() if v})

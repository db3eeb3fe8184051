"""One keyword, one spelling: canonical forms that collapse case, plural and hyphen variants.

``canonical`` is the display form of a phrase on its own; ``canonical_key`` is its identity, under
which "Large Language Models", "large language model" and "large-language model" are one keyword.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

PROPER_WORDS_FILE = "proper_words.json"
TOKEN_CACHE = 1 << 16
"""Entries kept per memoised helper of one word: a conference has some 25,000 distinct tokens."""


def lower(token: str) -> str:
    return token.lower().replace("’", "'")


def is_acronym(token: str) -> bool:
    """LLM, LLMs, GNN, ViT, BERT, 3D, fMRI: at least two capitals, or a capital and a digit."""
    core = token[:-1] if token.endswith("s") and len(token) > 2 and token[-2].isupper() else token
    capitals = sum(c.isupper() for c in core)
    return (capitals >= 2 or (capitals >= 1 and any(c.isdigit() for c in core))) and "-" not in core


_IRREGULAR_SINGULARS = {
    "analyses": "analysis",
    "bases": "basis",
    "hypotheses": "hypothesis",
    "theses": "thesis",
    "axes": "axis",
    "crises": "crisis",
    "diagnoses": "diagnosis",
    "vertices": "vertex",
    "matrices": "matrix",
    "indices": "index",
    "simplices": "simplex",
    "appendices": "appendix",
    "criteria": "criterion",
    "phenomena": "phenomenon",
    "data": "data",
    "media": "medium",
    "children": "child",
    "people": "people",
    "men": "man",
    "women": "woman",
    "mice": "mouse",
    "teeth": "tooth",
    "feet": "foot",
    "geese": "goose",
    "lives": "life",
    "leaves": "leaf",
    "halves": "half",
    "selves": "self",
    "wolves": "wolf",
    "shelves": "shelf",
    "knives": "knife",
    "curves": "curve",
    "caches": "cache",
    "heroes": "hero",
    "echoes": "echo",
    "potatoes": "potato",
    "vetoes": "veto",
    "biases": "bias",
    "aliases": "alias",
    "gases": "gas",
    "lenses": "lens",
    "buses": "bus",
    "statuses": "status",
    "viruses": "virus",
    "corpora": "corpus",
    "genera": "genus",
    "automata": "automaton",
    "schemata": "schema",
    "stimuli": "stimulus",
    "nuclei": "nucleus",
    "radii": "radius",
    "foci": "focus",
    "loci": "locus",
    "fungi": "fungus",
    "cacti": "cactus",
    "optima": "optimum",
    "maxima": "maximum",
    "minima": "minimum",
    "spectra": "spectrum",
    "quanta": "quantum",
    "strata": "stratum",
    "curricula": "curriculum",
}
_NOT_PLURAL = re.compile(
    r"(ss|us|is|ics|ous|ness|sis|xis|ias|as|os|ys|series|species|means|news|physics|"
    r"themselves|ourselves|this|thus|always|lens|gas|bias|alias|atlas|canvas|chaos|ethos|pathos|"
    r"kudos|logos|cosmos|mathematics|economics|statistics|dynamics|robotics|genomics|graphics|"
    r"kinetics|linguistics|analytics|semantics|ethics|optics|heuristics|kinematics|mechanics|"
    r"informatics|politics|whereas|perhaps|besides|towards|across|Ares)$",
    re.IGNORECASE,
)


def singular(word: str) -> str:
    """Rule-based singular of one lowercase English noun (plural -> singular; else unchanged)."""
    w = word
    if w in _IRREGULAR_SINGULARS:
        return _IRREGULAR_SINGULARS[w]
    if len(w) <= 3 or not w.endswith("s") or _NOT_PLURAL.search(w):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if re.search(r"(ches|shes|xes|zzes|sses)$", w):
        return w[:-2]
    if w.endswith("oes") and len(w) > 5:
        return w[:-2]
    return w[:-1]


def singular_token(token: str) -> str:
    """The singular of a token: ``LLMs`` -> ``LLM``; ``fine-tuned models`` keeps its hyphens."""
    if is_acronym(token):
        return token[:-1] if token.endswith("s") and (token[-2].isupper() or token[-2].isdigit()) else token
    parts = token.split("-")
    parts[-1] = singular(parts[-1])
    return "-".join(parts)


@lru_cache(maxsize=TOKEN_CACHE)
def word_forms(token: str) -> tuple[str, str]:
    """A word's canonical form inside a phrase, and as its last word (singular)."""
    inside = token if is_acronym(token) else lower(token)
    last = singular_token(inside)
    return inside, last


@lru_cache(maxsize=TOKEN_CACHE)
def key_parts(token: str) -> tuple[str, str]:
    """``word_forms`` as parts of a key, lowercased, hyphens and slashes as spaces: for words that
    start and end with a letter or digit (the candidates' tokens), ``canonical_key`` of a phrase is
    its words' key parts joined by spaces, the last word's second part last."""
    inside, last = word_forms(token)
    return _key(inside), _key(last)


def canonical(phrase: str) -> str:
    """The display form of a phrase: lowercase except acronyms (``LLMs`` -> ``LLM``), last word
    singular (``Large Language Models`` -> ``large language model``), hyphens kept as written."""
    tokens = phrase.split()
    if not tokens:
        return ""
    return " ".join([word_forms(token)[0] for token in tokens[:-1]] + [word_forms(tokens[-1])[1]])


_KEY_SEPARATORS = re.compile(r"[\s\-/]+")


def _key(form: str) -> str:
    return _KEY_SEPARATORS.sub(" ", form.lower()).strip()


def canonical_key(phrase: str) -> str:
    """The identity of a phrase: its canonical form, lowercased, hyphen, slash and space alike."""
    return _key(canonical(phrase))


@lru_cache(maxsize=1)
def proper_words() -> frozenset[str]:
    """Words authors write with a capital inside a sentence ("Bayesian", "Langevin", "Monte", "Carlo";
    learned from 50,000 abstracts by ``benchmarks/learn_proper_words.py``), lowercase."""
    package = resources.files("generator.analysis.keyphrases")
    return frozenset(json.loads(package.joinpath(PROPER_WORDS_FILE).read_text(encoding="utf-8"))["words"])


def as_authors_write(form: str) -> str:
    """A canonical form with the words authors capitalise capitalised ("bayesian neural network" ->
    "Bayesian neural network", "johnson-lindenstrauss lemma" -> "Johnson-Lindenstrauss lemma",
    "newton's method" -> "Newton's method"); only the display changes: the key (``canonical_key``)
    is the same."""
    proper = proper_words()

    def capital(word: str) -> str:
        return word[:1].upper() + word[1:]

    def named(word: str) -> bool:
        return re.sub(r"['’]s$", "", word) in proper  # "newton's"

    def joined(word: str) -> str:
        # a hyphenated name as a whole ("good-turing": "good" alone is no name), else every part a
        # name or none capitalised: "kullback-leibler", not "Cauchy-schwarz" nor "Lipschitz-continuous"
        pieces = word.split("-")
        if named(word) or all(named(piece) for piece in pieces):
            return "-".join(capital(piece) for piece in pieces)
        return word

    def token(word: str) -> str:
        return word if is_acronym(word) else "/".join(joined(side) for side in word.split("/"))

    return " ".join(token(word) for word in form.split(" "))

"""How real titles use words (learned by ``benchmarks/learn_title_usage.py`` from 50,000 real titles):
which function words open a title, and which word pairs are one noun phrase although the second word
reads as a verb ("circuit design", "bipartite matching")."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

USAGE_FILE = "title_usage.json"

_PREPOSITION = r"(?:for|to|in|of|with|on|from|by|at|against|under|over|into|across|about)(?![\w-])"
# "X is important for …", "X are able to …", "X is often extracted from …": a word after a copula
# (and at most one adverb) and before a preposition is what a sentence predicates of its subject
PREDICATED = re.compile(
    r"\b(?:is|are|was|were|be|been|being|remains?|becomes?|seems?|appears?)\s+"
    r"(?:(?:[a-z]+ly|not|also|still|often|more|less|very)\s+)?([a-z][a-z-]+)\s+" + _PREPOSITION
)
_OPENING_PREDICATE = re.compile(r"\W*(?:[A-Za-z]+ly\s+)?([A-Za-z][A-Za-z-]+)\s+" + _PREPOSITION, re.I)


def opening_predicate(text: str) -> str | None:
    """The word a phrase opens with (after at most one adverb) when a preposition follows it, lower
    case: "important" of "Important for fine-tuning …", "consistent" of "Factually consistent with …"."""
    found = _OPENING_PREDICATE.match(text)
    return found.group(1).lower() if found else None


@dataclass(frozen=True)
class TitleUsage:
    openings: frozenset[str]
    """Function words real titles open with ("towards", "on", "how"); others ("for", "unlike") do not."""
    compounds: frozenset[tuple[str, str]]
    """Word pairs titles use as one noun phrase whose second word reads as a verb out of context."""
    claim_verbs: frozenset[str]
    """Verbs whose objects state a claim, not a piece of work ("we demonstrate X", "we achieve X")."""
    gerund_openings: frozenset[str]
    """-ing words real titles open with ("using", "extending"; not "demonstrating")."""
    object_verbs: frozenset[str]
    """Verbs whose object names the paper's work ("we focus on X", "we formulate X")."""
    verb_openings: frozenset[str]
    """Verb forms real titles open with ("improving", "learned"; not "outperforming", "uses")."""
    verbs: frozenset[str]
    """Base forms of verbs beyond the hand list ("constitute", "overfit"; not "model", "attack")."""
    never_in_titles: frozenset[tuple[str, str]]
    """Pairs of function words abstracts use and titles never do ("such as", "in this", "of our")."""
    never_ending: frozenset[str]
    """Words abstracts use and no title ends with ("according", "due", "neural")."""
    never_titled: frozenset[str]
    """Words abstracts use and no title does ("however", "recently", "proposed")."""
    never_opening: frozenset[str]
    """Words that open abstracts' sentences and almost never a title ("existing", "current")."""
    predicates: frozenset[str]
    """Words abstracts predicate of a subject before a preposition and no title opens so ("important
    for", "able to", "extracted from")."""
    generic_terms: frozenset[tuple[str, str]]
    """Pairs opening with a generic word that titles use as a term ("time series", "point cloud"),
    the second word singular."""

    def opens_titles(self, word: str) -> bool:
        return word.lower() in self.openings

    def is_generic_term(self, first: str, second: str) -> bool:
        """Whether "first second" is a term though ``first`` is too generic to open a keyphrase."""
        from generator.analysis.keyphrases.canonical import singular

        return (first.lower(), singular(second.lower())) in self.generic_terms

    def is_compound(self, first: str, second: str) -> bool:
        return (first.lower(), second.lower()) in self.compounds


def _pair(words: str) -> tuple[str, str]:
    first, second = words.split(" ")
    return first, second


@lru_cache(maxsize=1)
def title_usage() -> TitleUsage:
    data = json.loads(resources.files("generator.analysis").joinpath(USAGE_FILE).read_text(encoding="utf-8"))
    return TitleUsage(
        openings=frozenset(data["openings"]),
        compounds=frozenset(_pair(words) for words in data["compounds"]),
        claim_verbs=frozenset(data["claim_verbs"]),
        gerund_openings=frozenset(data["gerund_openings"]),
        object_verbs=frozenset(data["object_verbs"]),
        verb_openings=frozenset(data["verb_openings"]),
        generic_terms=frozenset(_pair(words) for words in data["generic_terms"]),
        verbs=frozenset(data["verbs"]),
        never_ending=frozenset(data["never_ending"]),
        never_titled=frozenset(data["never_titled"]),
        never_opening=frozenset(data["never_opening"]),
        predicates=frozenset(data["predicates"]),
        never_in_titles=frozenset(_pair(words) for words in data["never_in_titles"]),
    )

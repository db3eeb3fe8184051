"""How real titles use words (learned by ``benchmarks/learn_title_usage.py`` from 50,000 real titles):
which function words open a title, and which word pairs are one noun phrase although the second word
reads as a verb ("circuit design", "bipartite matching")."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

USAGE_FILE = "title_usage.json"


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
        never_in_titles=frozenset(_pair(words) for words in data["never_in_titles"]),
    )

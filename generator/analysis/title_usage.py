"""How real titles use words (learned by ``benchmarks/learn_title_usage.py`` from 50,000 real titles):
which function words open a title, and which word pairs are one noun phrase although the second word
reads as a verb ("circuit design", "bipartite matching")."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

USAGE_FILE = Path(__file__).with_name("title_usage.json")

_WORD = re.compile(r"[A-Za-z][\w'’-]*")


def phrase_words(text: str) -> list[str]:
    """The words of a phrase, lower case, as the usage counts them."""
    return [word.lower() for word in _WORD.findall(text)]


@dataclass(frozen=True)
class TitleUsage:
    openings: frozenset[str]
    """Function words real titles open with ("towards", "on", "how"); others ("for", "unlike") do not."""
    compounds: frozenset[tuple[str, str]]
    """Word pairs titles use as one noun phrase whose second word reads as a verb out of context."""
    gerund_openings: frozenset[str]
    """-ing words real titles open with ("using", "extending"; not "demonstrating")."""
    object_verbs: frozenset[str]
    """Verbs whose object names the paper's work ("we focus on X", "we formulate X")."""

    def opens_titles(self, word: str) -> bool:
        return word.lower() in self.openings

    def compound(self, first: str, second: str) -> bool:
        return (first.lower(), second.lower()) in self.compounds


@lru_cache(maxsize=1)
def title_usage() -> TitleUsage:
    data = json.loads(USAGE_FILE.read_text(encoding="utf-8"))
    return TitleUsage(
        openings=frozenset(data["openings"]),
        compounds=frozenset(tuple(pair.split(" ", 1)) for pair in data["compounds"]),  # type: ignore[misc]
        gerund_openings=frozenset(data["gerund_openings"]),
        object_verbs=frozenset(data["object_verbs"]),
    )

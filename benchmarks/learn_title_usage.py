"""Learn how real titles use words, for the grammar tests of derived titles and keyphrases.

    python benchmarks/learn_title_usage.py [../shared/corpora/scale_50k.jsonl] [--write]

Two facts no word list should decide, read from the titles of ``scale_50k.jsonl`` (50,000 real titles
of 19 conferences; it shares no venue-year and no title with the development corpora or ICML 2024, so
every held-out measurement stays held out):

- ``openings``: the function words a title (or a subtitle after its colon) opens with. "Towards",
  "How", "On", "From" open titles; "For", "With", "Unlike", "Between" almost never do ("For example,
  online bipartite matching" and "Unlike text-to-image diffusion models" are fragments of a sentence,
  not titles). Kept: a function word that opens at least ``MIN_OPENINGS`` titles and at least
  ``MIN_OPENING_SHARE`` of the titles that use it.
- ``compounds``: pairs "w1 w2" whose second word reads as a verb or a participle out of context
  ("design", "matching", "tracking") but which titles use as one noun phrase: "circuit design",
  "bipartite matching". Kept: a pair in at least ``MIN_PAIR_TITLES`` titles whose second word ends at
  least ``MIN_HEAD_SHARE`` of the title phrases that use it (a head noun ends its phrase; "using",
  "based" never do), neither a plural and a bare verb ("models learn") nor an adverb and its verb
  ("automatically design"), and not a generic second word ("efficient use").

- ``gerund_openings``: the -ing words that open at least ``MIN_GERUND_OPENINGS`` titles or subtitles
  ("Using", "Learning", "Extending"; not "Demonstrating" or "Showing"): what the paper does with
  something reads as a title in those words ("Using the structure of the problem to bound …").
- ``verb_openings``: the verb forms (of the hand list ``VERBS``) that open as many titles or
  subtitles: "Learning", "Learned", "Towards"-like uses ("Learned index structures", "Improving …");
  not "Outperforming", "Comprised", "Uses": a candidate opening with any other verb form is a piece
  of a sentence ("Uses selective sampling to …", "Built using local increments …").
- ``claim_verbs``: verbs whose objects overlap titles less than ``CLAIM_SHARE`` of the pooled
  average (below): "we demonstrate X", "we achieve X", "we show X" state a claim, so "Demonstrating
  X" is no gerund title.
- ``object_verbs``: the verbs whose object names the paper's work: "we focus on X", "we formulate
  X", "we call it X" (whose object is a title as it stands, beside the verbs of
  ``text._WHAT_WE_DO``, so no "Focusing on X"). For each verb, the ROUGE-1 F1 (content words) of
  its objects in "we VERB X" against the paper's real title, over the abstracts; kept: a verb with
  at least ``MIN_VERB_USES`` such objects whose F1 is at least that of all "we VERB X" objects
  pooled. Objects of "use" (0.16), "achieve" (0.08) or "show" (0.10) overlap titles far less than
  those of "propose" (0.30).

Written to ``generator/analysis/title_usage.json`` (package data) with ``--write``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import sys
from collections import Counter
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from generator.analysis.keyphrases.wordlists import (  # noqa: E402
    FUNCTION_WORDS,
    GENERIC_EDGE,
    LY_NOUNS,
    VERBS,
)
from generator.analysis.title_usage import USAGE_FILE  # noqa: E402
from generator.analysis.titles import content_words, hide_math  # noqa: E402

DEFAULT_CORPUS = PROJECT_ROOT.parent / "shared" / "corpora" / "scale_50k.jsonl"
MIN_OPENINGS = 3
MIN_OPENING_SHARE = 0.01
MIN_PAIR_TITLES = 2
MIN_HEAD_SHARE = 0.05
MIN_VERB_USES = 30
MIN_GERUND_OPENINGS = 10
# a second word too generic to end a keyphrase ("efficient use", "urgent need")
GENERIC_NOUNS = frozenset({"use", "need", "work", "set", "help"}) | GENERIC_EDGE

USAGE_PATH = PROJECT_ROOT / "generator" / "analysis" / USAGE_FILE
CLAIM_SHARE = 0.5

_WORD = re.compile(r"[A-Za-z][\w'’-]*")


def phrase_words(text: str) -> list[str]:
    """The words of a phrase, lower case."""
    return [word.lower() for word in _WORD.findall(text)]


def subject_and_verb(first: str, second: str) -> bool:
    """ "models learn", "networks help": a plural and a bare verb make a clause, not a compound;
    "automatically design": an adverb and its verb."""
    plural = first.endswith("s") and not first.endswith(("ss", "us", "is", "ics"))
    bare_verb = second in VERBS and not second.endswith(("s", "ing", "ed"))
    adverb = first.endswith("ly") and first not in LY_NOUNS
    return (plural and bare_verb) or adverb


# A title's phrases: its parts between punctuation and spaced dashes.
_PHRASE_BREAK = re.compile(r"[,;.?!()\[\]\"“”]|\s[-–—]+\s|:")


def reads_as_verb(word: str) -> bool:
    return word in VERBS or word.endswith(("ing", "ed"))


def object_overlaps(records: list[dict]) -> dict[str, list[float]]:
    """For each verb of "we VERB X" in the abstracts, the ROUGE-1 F1 of each X against the title."""
    from generator.analysis.titles import object_phrases

    overlaps: dict[str, list[float]] = {}
    for record in records:
        title = set(content_words(record["title"]))
        if not title:
            continue
        for verb, phrase in object_phrases(hide_math(record["abstract"])[0], subject_only=True):
            words = set(content_words(" ".join(phrase.split()[:12])))
            if not words:
                continue
            shared = len(words & title)
            f1 = 2 * shared / (len(words) + len(title))
            overlaps.setdefault(verb, []).append(f1)
    return overlaps


def learn(records: list[dict]) -> dict[str, object]:
    titles = [record["title"] for record in records]
    opened: Counter[str] = Counter()
    used: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    ends: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for title in titles:
        for part in re.split(r":\s", title):  # a title and its subtitle each open with a word
            words = phrase_words(part)
            if words:
                opened[words[0]] += 1
            used.update(set(words))
        for phrase in _PHRASE_BREAK.split(title):
            words = phrase_words(phrase)
            if not words:
                continue
            seen.update(words)
            ends[words[-1]] += 1
            pairs.update(set(itertools.pairwise(words)))
    openings = sorted(
        word
        for word in FUNCTION_WORDS
        if opened[word] >= MIN_OPENINGS and opened[word] >= MIN_OPENING_SHARE * used[word]
    )
    compounds = sorted(
        f"{first} {second}"
        for (first, second), count in pairs.items()
        if count >= MIN_PAIR_TITLES
        and first not in FUNCTION_WORDS
        and second not in FUNCTION_WORDS
        and reads_as_verb(second)
        and not subject_and_verb(first, second)
        and second not in GENERIC_NOUNS
        and ends[second] >= MIN_HEAD_SHARE * seen[second]
    )
    overlaps = object_overlaps(records)
    pooled = [f1 for found in overlaps.values() for f1 in found]
    average = sum(pooled) / max(1, len(pooled))
    claim_verbs = sorted(
        verb
        for verb, found in overlaps.items()
        if len(found) >= MIN_VERB_USES and sum(found) / len(found) < CLAIM_SHARE * average
    )
    object_verbs = sorted(
        verb
        for verb, found in overlaps.items()
        if len(found) >= MIN_VERB_USES and sum(found) / len(found) >= average
    )
    gerund_openings = sorted(w for w, n in opened.items() if w.endswith("ing") and n >= MIN_GERUND_OPENINGS)
    verb_openings = sorted(w for w in VERBS if opened[w] >= MIN_GERUND_OPENINGS)
    return {
        "source": f"titles (and abstracts, for object_verbs) of {len(titles)} papers",
        "openings": openings,
        "gerund_openings": gerund_openings,
        "verb_openings": verb_openings,
        "claim_verbs": claim_verbs,
        "compounds": compounds,
        "object_verbs": object_verbs,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--write", action="store_true", help=f"write {USAGE_FILE}")
    args = parser.parse_args(argv)
    if "icml2024" in args.corpus.name:
        parser.error("ICML 2024 is the benchmark the bundled abstracts come from: never learn titles from it")
    with args.corpus.open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    usage = learn(records)
    print(usage["source"], f"{len(usage['openings'])} opening function words", sep=": ")
    print(f"{len(usage['compounds'])} compounds, {len(usage['gerund_openings'])} opening gerunds")
    print("opening verb forms:", " ".join(usage["verb_openings"]))
    print("openings:", " ".join(usage["openings"]))
    print("object verbs:", " ".join(usage["object_verbs"]))
    print("claim verbs:", " ".join(usage["claim_verbs"]))
    if args.write:
        USAGE_PATH.write_text(json.dumps(usage, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
        print("wrote", USAGE_PATH)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

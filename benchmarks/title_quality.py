"""Derived-title quality: titles built from abstracts alone, against the papers' real titles.

    python benchmarks/title_quality.py [CORPUS.jsonl ...] [--show N]

(default: ../shared/corpora/neurips2023.jsonl and nlp_acl2020_emnlp2020_eacl2021.jsonl). Each paper's
title is derived from its abstract only (``generator.analysis.titles.derive_titles``; the real title
never reaches it) and compared with the real one. Printed per corpus:

- ROUGE-1 F1 over content words: lowercased words, function words dropped, Porter-stemmed, clipped
  counts (macro mean over papers);
- bad endings: the share of derived titles whose last word is a function word or preposition, a verb
  form, or a modifier with nothing to modify ("…for large", "…approximating", "…with Controlled");
  the same check on the real titles is printed beside it as the detector's false-alarm rate;
- the longest derived title, in characters;
- names kept: of the papers whose real title is "Name: …" with a Name the abstract also uses, the
  share whose derived title contains that Name;
- names led: of the same papers, the share whose derived title leads with that name (right), with
  another name (wrong), with none; and the share of all titles, derived (real), leading with a name;
- stops short: derived titles whose description the abstract goes on with where it stops ("the
  visibility [of …]", "by quantum [computing].": ``titles.stops_short``, the check the title chooser
  applies, so it counts only what slips past it: candidates reworded, or none left to choose);
- bad starts: derived titles that say the paper does something instead of what ("We show that …",
  "This paper focuses on …"), or whose description after "Name:" is a verb phrase ("PAM: Propose
  a …", "IRLS: And analyze …", "HAT: To design …").

Development corpora only: the ICML 2024 titles are held back (the bundled abstracts come from it),
so this script refuses that file rather than let anyone tune on it by accident.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from nltk.stem import PorterStemmer  # noqa: E402
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # noqa: E402

from generator.analysis.keyphrases.wordlists import (  # noqa: E402
    ADJECTIVE_ENDING,
    ADJECTIVE_ENDING_NOUNS,
    FUNCTION_WORDS,
    NO_END,
    VERBS,
)
from generator.analysis.text import strip_markup  # noqa: E402
from generator.analysis.titles import derive_titles, name_forms, stops_short  # noqa: E402

SHARED = PROJECT_ROOT.parent / "shared"
DEFAULT_CORPORA = [
    SHARED / "corpora" / "neurips2023.jsonl",
    SHARED / "corpora" / "nlp_acl2020_emnlp2020_eacl2021.jsonl",
]
HELD_BACK = {"icml2024.jsonl"}
STOP = frozenset(ENGLISH_STOP_WORDS) | FUNCTION_WORDS
_WORD = re.compile(r"[a-z0-9]+")
_STEM = cache(PorterStemmer().stem)  # slow, and titles repeat their words
# Modifiers that cannot end a title (participles used as adjectives, comparison words).
_LY_NOUNS = frozenset({"family", "anomaly", "supply", "reply", "ally", "italy", "july"})
_DANGLING = frozenset({"novel", "new", "based", "via", "using", "towards", "toward", "such", "versus", "vs"})


def content_stems(text: str) -> Counter[str]:
    words = _WORD.findall(strip_markup(text).lower())
    return Counter(_STEM(word) for word in words if word not in STOP and len(word) > 1)


def rouge1(candidate: str, reference: str | Counter[str]) -> float:
    """``reference`` is a title or its ``content_stems`` (when scoring many candidates against it)."""
    ours = content_stems(candidate)
    theirs = content_stems(reference) if isinstance(reference, str) else reference
    overlap = sum((ours & theirs).values())
    if not overlap:
        return 0.0
    precision, recall = overlap / sum(ours.values()), overlap / sum(theirs.values())
    return 2 * precision * recall / (precision + recall)


_ENDS_ON_A_SIGN = re.compile(
    r"\$\s*(?:[<>=+\-*/|:~!]|\\(?:lt|gt|le|leq|ge|geq|ne|neq|to|times|cdot|in))\s*\$\s*$"
)


def bad_ending(title: str) -> bool:
    """True when the title's last word leaves it hanging (see the module docstring)."""
    if _ENDS_ON_A_SIGN.search(title):
        return True  # "… a linear order $<$"
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", strip_markup(title))
    if not words:
        return True
    last = words[-1].lower()
    if last in FUNCTION_WORDS or last in _DANGLING or last in NO_END:
        return True
    if (
        last.endswith("ly")
        and last not in _LY_NOUNS
        and not last.endswith(("phily", "mbly", "opoly", "fly", "family"))
    ):
        return True  # an adverb, or an adjective without its noun: "… can efficiently", "… costly"
    if last in VERBS and not last.endswith(("ing", "s")):
        return True  # "…that outperform", "…are proposed"
    if last.endswith("ing") and last in VERBS and last not in ("matching", "computing", "building"):
        return True  # "…(ODEs) approximating"
    # "…for adversarial"; not "…Assignment" or a capitalised name
    return bool(
        ADJECTIVE_ENDING.search(last)
        and last not in ADJECTIVE_ENDING_NOUNS
        and not last.endswith("ment")
        and not words[-1][:1].isupper()
    )


_SELF_START = re.compile(r"(?:we|our|this (?:paper|work|study|article))\s", re.I)


def bad_start(title: str) -> bool:
    """True when the title opens as a sentence about the paper, or its description as a verb phrase."""
    first_word = title.split(" ", 1)[0].lower().strip(",")
    if (
        _SELF_START.match(title)
        or first_word == "not"
        or (first_word in VERBS and not first_word.endswith("ing"))
    ):
        return True  # "We …", or a subject cut off its verb ("Not assume …", "Propose …")
    _, colon, description = title.partition(": ")
    first = description.split(" ", 1)[0].lower().strip(",")
    return bool(colon) and (
        first in ("and", "or", "but", "to", "that") or (first in VERBS and not first.endswith(("ing", "ed")))
    )


def method_name(title: str, abstract: str) -> str | None:
    """The name a real title "Name: description" gives, when the abstract uses it too."""
    head = leading_name(title)
    return head if head and head in abstract else None


def leading_name(title: str) -> str | None:
    """The name a title leads with ("Name: description"; at most four words, a capital inside)."""
    head, colon, _ = title.partition(":")
    head = head.strip()
    if not colon or not head or len(head.split()) > 4 or not any(c.isupper() for c in head[1:]):
        return None
    return head


def same_name(written: str, name: str) -> bool:
    """Whether a title's leading name is the given name: the same word but for case and a plural
    ("SATLM", "3D-LLMs" for "SatLM", "3D-LLM"), or its short form ("DPO" for "Direct Preference
    Optimization", "MIM" for "Meet in the Middle": its letters among the name's initials, in order)."""
    a, b = written.lower(), name.lower()
    if a.rstrip("s") == b.rstrip("s"):
        return True
    letters = [c for c in (a[:-1] if a.endswith("s") else a) if c.isalpha()]  # "CSGs"
    initials = iter(w[0] for w in re.findall(r"[a-z0-9]+", b))
    return len(letters) >= 2 and a[:1] == b[:1] and all(c in initials for c in letters)


def name_led(derived: str, name: str) -> str:
    """Whether a derived title leads with the real title's name: "right", "wrong" (another name
    leads) or "none". A leading "Long Form (LF)" names either form; a title opening with the name
    ("SkimNet, a reader …") leads with it too."""
    head = leading_name(derived)
    if head is None:
        opens = re.match(rf"{re.escape(name)}(?![\w-])", derived, re.I)
        return "right" if opens else "none"
    if any(same_name(form, name) for form in name_forms(head)):
        return "right"
    # "L2Stop: Learning to Stop" for "Learning to Stop: …": the short form leads, the name spelled out
    # right after it
    spelled = re.match(rf"{re.escape(name)}(?![\w-])", derived.partition(": ")[2], re.I)
    return "right" if spelled and head[:1].lower() == name[:1].lower() else "wrong"


def description_stops_short(derived: str, abstract: str) -> bool:
    """Whether the abstract goes on with the derived title's description where it stops
    (``titles.stops_short`` on the description, found in the abstract as written)."""
    description = derived.partition(": ")[2] if leading_name(derived) else derived
    return stops_short(description, abstract)


@dataclass
class Scores:
    papers: int
    rouge: float
    bad: float
    bad_real: float
    longest: int
    names: int
    names_kept: float
    bad_start: float
    led: float
    """Share of derived titles leading with a name."""
    led_real: float
    """Share of real titles leading with a name."""
    name_leads: Counter[str]
    """Where the real title leads with a name the abstract uses: "right", "wrong", "none"."""
    stopped_short: float
    """Share of derived titles whose description the abstract goes on with."""


def score(records: list[dict], show: int = 0) -> Scores:
    rouges, bad, bad_real, longest, names, kept, starts = [], 0, 0, 0, 0, 0, 0
    led, led_real, short, leads = 0, 0, 0, Counter()
    titles = derive_titles([record["abstract"] for record in records])
    for position, (record, derived) in enumerate(zip(records, titles, strict=True)):
        rouges.append(rouge1(derived, record["title"]))
        bad += bad_ending(derived)
        starts += bad_start(derived)
        bad_real += bad_ending(record["title"])
        longest = max(longest, len(derived))
        led += leading_name(derived) is not None
        led_real += leading_name(record["title"]) is not None
        short += description_stops_short(derived, record["abstract"])
        name = method_name(record["title"], record["abstract"])
        if name:
            names += 1
            kept += name in derived
            leads[name_led(derived, name)] += 1
        if position < show:
            print(f"  {rouges[-1]:.2f} {derived!r}\n       real: {record['title']!r}")
    n = len(records)
    return Scores(
        n,
        sum(rouges) / len(rouges),
        bad / n,
        bad_real / n,
        longest,
        names,
        kept / names if names else float("nan"),
        starts / n,
        led / n,
        led_real / n,
        leads,
        short / n,
    )


def share(counts: Counter[str], key: str) -> str:
    total = sum(counts.values())
    return f"{counts[key] / total:.1%}" if total else "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--show", type=int, default=0, help="print the first N derived titles")
    arguments = parser.parse_args(argv)
    print(
        f"{'corpus':42s} {'papers':>6s} {'ROUGE-1':>7s} {'bad end':>7s} {'(real)':>6s} {'max len':>7s} "
        f"{'names kept':>12s} {'bad start':>9s} {'led right/wrong/none':>21s} {'led (real)':>12s} "
        f"{'stops short':>11s}"
    )
    for corpus in arguments.corpora:
        if corpus.name in HELD_BACK:
            print(f"{corpus.name}: held back from title work; not scored")
            continue
        with corpus.open(encoding="utf-8") as handle:
            records = [json.loads(line) for line in handle if line.strip()]
        records = [r for r in records if r.get("title") and r.get("abstract")]
        result = score(records, arguments.show)
        leads = "/".join(share(result.name_leads, k) for k in ("right", "wrong", "none"))
        print(
            f"{corpus.name:42s} {result.papers:6d} {result.rouge:7.3f} {result.bad:7.1%} "
            f"{result.bad_real:6.1%} {result.longest:7d} {result.names_kept:6.1%} of {result.names:4d} "
            f"{result.bad_start:9.1%} {leads:>21s} "
            f"{result.led:5.1%} ({result.led_real:4.1%}) "
            f"{result.stopped_short:11.1%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

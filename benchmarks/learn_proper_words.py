"""Learn which words authors write with a capital inside a sentence: keywords show them so.

    python benchmarks/learn_proper_words.py [--scale ../shared/corpora/scale_50k.jsonl]
                                            [--check ../shared/corpora/neurips2023.jsonl] [--no-ship]

A keyword is shown lowercase except its acronyms ("large language model", "LLM"), which also wrote
"bayesian neural network", "langevin dynamics" and "sequential monte carlo": names of people and
places, and the adjectives made of them, that no author writes so. Which words those are is in how
abstracts write them: a word written "Bayesian" inside a sentence (not opening it) in at least
``MIN_SHARE`` of its uses there, and at least ``MIN_USES`` times. A capital before a number is a
reference ("Section 3", "Table 2", "Theorem 1") and does not count.

Learned from scale_50k's abstracts (no ICML 2024 or NeurIPS 2023 paper). Checked against the casing
NeurIPS 2023's authors give their own keywords: of the words inside author keywords that the list
capitalises, the share authors write capitalised (precision), and of the words authors write
capitalised inside a keyword (not its first word, not an acronym), the share the list capitalises
(recall). The list is written to ``generator/analysis/keyphrases/proper_words.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from generator.analysis.keyphrases.canonical import PROPER_WORDS_FILE, is_acronym  # noqa: E402

SHARED = PROJECT_ROOT.parent / "shared" / "corpora"
OUT = PROJECT_ROOT / "generator" / "analysis" / "keyphrases" / PROPER_WORDS_FILE
MIN_SHARE = 0.9
"""Of a word's uses inside sentences, the share written with a capital (and the rest lowercase)."""
MIN_USES = 20
"""Uses with a capital inside sentences, at the least: rarer words are left as they are."""
MIN_NAME_USES = 5
"""The same for a hyphenated name with every part capitalised, a rarer shape that says more."""

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(\[])")
_TOKEN = re.compile(r"[^\W\d_][\w'–-]*|\d+|\S")  # an en dash joins names too: "Cauchy–Schwarz"


def word_case_counts(abstracts: list[str]) -> tuple[Counter[str], Counter[str]]:
    """Per lowercase word, its uses inside sentences written "Bayesian" and written "bayesian"; each
    part of a hyphenated word counts alone ("Kullback-Leibler"), and a hyphenated name written with
    every part capitalised counts as a whole too ("johnson-lindenstrauss")."""
    capitalised: Counter[str] = Counter()
    lowercase: Counter[str] = Counter()
    for abstract in abstracts:
        for sentence in _SENTENCE.split(abstract):
            tokens = _TOKEN.findall(sentence)
            for position in range(1, len(tokens)):
                token, before = tokens[position].replace("–", "-"), tokens[position - 1]
                following = tokens[position + 1] if position + 1 < len(tokens) else ""
                if not token[0].isalpha() or before in (":", ";", "(", "[", '"', "“"):
                    continue  # a fresh start inside the sentence may take a capital
                if re.fullmatch(r"\d+|[IVX]+|[A-Z]|\.", following):
                    continue  # "Section 3", "Table IV", "Appendix B", "Fig. 2": a reference
                parts = token.split("-")
                for part in parts:
                    if len(part) < 3 or not part.isalpha():
                        continue
                    if part[0].isupper() and part[1:].islower():
                        capitalised[part.lower()] += 1
                    elif part.islower():
                        lowercase[part] += 1
                if len(parts) > 1 and all(len(part) >= 3 and part.isalpha() for part in parts):
                    if all(part[0].isupper() and part[1:].islower() for part in parts):
                        capitalised[token.lower()] += 1
                    elif token.islower():
                        lowercase[token] += 1
    return capitalised, lowercase


def proper_words(capitalised: Counter[str], lowercase: Counter[str]) -> list[str]:
    """The words written with a capital (``MIN_SHARE``, ``MIN_USES``), and the hyphenated names
    written with every part capitalised (``MIN_NAME_USES``): "Johnson-Lindenstrauss", "Good-Turing",
    whose parts alone are no names ("good") or too rare to tell ("lindenstrauss")."""
    return sorted(
        word
        for word, count in capitalised.items()
        if count >= (MIN_NAME_USES if "-" in word else MIN_USES)
        and count >= MIN_SHARE * (count + lowercase[word])
    )


def check(words: set[str], corpus: Path) -> None:
    """Agreement with the casing authors give their own keywords (their words after the first)."""
    agree = listed = written = found = 0
    for line in corpus.open(encoding="utf-8"):
        for keyword in json.loads(line).get("keywords") or []:
            for token in keyword.split()[1:]:
                for part in token.split("-"):
                    if len(part) < 3 or not part.isalpha() or is_acronym(part):
                        continue
                    capital = part[0].isupper() and part[1:].islower()
                    if part.lower() in words:
                        listed += 1
                        agree += capital
                    if capital:
                        written += 1
                        found += part.lower() in words
    print(f"{corpus.name}: words the list capitalises, authors too: {agree} of {listed}")
    print(f"{corpus.name}: words authors capitalise, the list too: {found} of {written}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=Path, default=SHARED / "scale_50k.jsonl")
    parser.add_argument("--check", type=Path, default=SHARED / "neurips2023.jsonl")
    parser.add_argument("--no-ship", action="store_true", help="print the list, do not write it")
    args = parser.parse_args()
    with args.scale.open(encoding="utf-8") as handle:
        abstracts = [json.loads(line)["abstract"] for line in handle if line.strip()]
    words = proper_words(*word_case_counts(abstracts))
    print(f"{len(words)} words from {len(abstracts)} abstracts:", " ".join(words))
    if args.check.exists():
        check(set(words), args.check)
    if not args.no_ship:
        source = f"{args.scale.name}: {len(abstracts)} abstracts; share {MIN_SHARE}, uses {MIN_USES}"
        OUT.write_text(json.dumps({"source": source, "words": words}, indent=0) + "\n", encoding="utf-8")
        print(f"written to {OUT}")


if __name__ == "__main__":
    main()

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
- ``generic_terms``: pairs opening with a word too generic to open a keyphrase (``GENERIC_EDGE``:
  "time", "point", "question") that titles use as a term: "time series", "point cloud", "question
  answering" (``generic_terms``, below), so "time series forecasting" is a keyphrase, not "series
  forecasting".
- ``verbs``: base forms of verbs, beyond the hand list (``learned_verbs``): words that follow "we",
  "to" or a modal and seldom an article ("constitute", "overfit", "elicit"), so "Satellite data
  constitutes a distinct modality" reads as the sentence it is.
- ``never_in_titles``: pairs of function words many abstracts use and no title does ("such as", "for
  example", "in this", "of our"; ``never_in_titles``).
- ``never_ending``: words many abstracts use and no title or subtitle ends with ("according",
  "due", "neural", "leverage"; ``never_ending``).
- ``never_titled``: words many abstracts use and no title or subtitle does ("however", "recently",
  "proposed", "respectively"; ``never_titled``).
- ``never_opening``: words (not function words) that open a sentence in many abstracts and a title or
  subtitle at most ``NEVER_OPENING_SHARE`` as often ("existing", "current", "traditional",
  "state-of-the-art", "experiments", "despite"; ``never_opening``): an abstract opens with them what
  came before the paper or what it found, a title opens with what the paper does.
- ``predicates``: words that at least ``MIN_PREDICATED`` abstracts predicate of a subject before a
  preposition ("X is important for", "X are able to", "X is extracted from") and that open (after at
  most one adverb, before a preposition) titles or subtitles at most ``PREDICATE_OPENING_SHARE`` as
  often: a phrase opening so is a sentence whose subject and verb were dropped ("Important for
  fine-tuning with preference data", "Factually consistent with persona facts").
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
from generator.analysis.title_usage import PREDICATED, USAGE_FILE, opening_predicate  # noqa: E402
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
MIN_TERM_TITLES = 5
MIN_VERB_CUES = 5
MIN_ABSTRACTS_NEVER_TITLED = 1000
MIN_ABSTRACTS_NEVER_ENDING = 300
"""300, not 1,000: on readers' verdicts (benchmarks/data/title_verdicts.tsv) the candidates ending with a
word 300-999 abstracts use and no title ends with were all WRONG (12 of 12); 0.4 % of the development
sets' real titles and subtitles end so (1,000: 0.15 %)."""
MIN_SENTENCE_OPENINGS = 100
NEVER_OPENING_SHARE = 0.02
"""A word opening at most 2 % as many titles as abstracts' sentences: on readers' verdicts the
candidates opening with one of these 47 words are 27 WRONG, 5 WEAK, 2 RIGHT; 7 of the development
sets' 9,523 real titles and subtitles open with one (1 %: 41 words, 17 WRONG, 2 RIGHT)."""
MIN_PREDICATED = 20
PREDICATE_OPENING_SHARE = 0.01
"""On readers' verdicts (title_verdicts.tsv) the candidates opening with one of these words are 11 WRONG,
0 WEAK, 0 RIGHT; 1 of the development sets' 9,535 real titles and subtitles opens so ("Easy to
Perform, …")."""
MAX_NOUN_CUE_SHARE = 0.1
TERM_RATE_RATIO = 2.0

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


_PAIR_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def generic_terms(records: list[dict]) -> tuple[list[str], float]:
    """Pairs opening with a word too generic to open a keyphrase alone ("time", "point", "question")
    that titles use as a term ("time series", "point cloud", "question answering"): of the abstracts
    using the pair, the share whose title uses it too is at least ``TERM_RATE_RATIO`` times that of
    all word pairs pooled, in at least ``MIN_TERM_TITLES`` titles. Also returns the pooled share."""
    from generator.analysis.keyphrases.canonical import singular

    def pairs(text: str) -> set[tuple[str, str]]:
        words = _PAIR_WORD.findall(text.lower())
        return {
            (first, singular(second))
            for first, second in itertools.pairwise(words)
            if first not in FUNCTION_WORDS
            and first not in VERBS
            and second not in FUNCTION_WORDS
            and second not in VERBS
        }

    in_abstracts: Counter[tuple[str, str]] = Counter()
    in_titles: Counter[tuple[str, str]] = Counter()
    for record in records:
        used = pairs(record["abstract"])
        in_abstracts.update(used)
        in_titles.update(pairs(record["title"]) & used)
    pooled = sum(in_titles.values()) / max(1, sum(in_abstracts.values()))
    terms = sorted(
        f"{first} {second}"
        for (first, second), titled in in_titles.items()
        if first in GENERIC_EDGE
        and titled >= MIN_TERM_TITLES
        and titled >= TERM_RATE_RATIO * pooled * in_abstracts[first, second]
    )
    return terms, pooled


_ABSTRACT_WORD = re.compile(r"[A-Za-z][a-z-]*")
# What comes right before a verb's base form ("we overfit", "to constitute", "can elicit") …
_VERB_CUES = frozenset(
    {"to", "can", "could", "may", "might", "will", "would", "we", "should", "must", "cannot"}
)
# … and before a noun ("the attack", "a model").
_NOUN_CUES = frozenset({"the", "a", "an", "this", "these", "its", "their", "our", "each", "every", "such"})


def learned_verbs(records: list[dict]) -> list[str]:
    """Base forms of verbs, beyond the hand list ``VERBS``: lowercase words that follow "we", "to" or
    a modal at least ``MIN_VERB_CUES`` times in the abstracts and follow an article or determiner
    at most ``MAX_NOUN_CUE_SHARE`` as often ("constitute", "overfit", "elicit"; not "model",
    "design" or "attack", which are nouns as often). They find the sentences and cut phrases a
    title cannot be: "Satellite data constitutes a distinct modality", "… model formalizes"."""
    after_verb_cue: Counter[str] = Counter()
    after_noun_cue: Counter[str] = Counter()
    for record in records:
        words = _ABSTRACT_WORD.findall(record["abstract"])
        for before, word in itertools.pairwise(words):
            if not word.islower():
                continue
            if before.lower() in _VERB_CUES:
                after_verb_cue[word] += 1
            elif before.lower() in _NOUN_CUES:
                after_noun_cue[word] += 1
    return sorted(
        word
        for word, cued in after_verb_cue.items()
        if cued >= MIN_VERB_CUES
        and after_noun_cue[word] <= MAX_NOUN_CUE_SHARE * cued
        and word not in FUNCTION_WORDS
        and len(word) >= 3
        and not word.endswith(("ly", "ing", "ed", "-"))
    )


def never_in_titles(records: list[dict]) -> list[str]:
    """Pairs of function words that at least ``MIN_ABSTRACTS_NEVER_TITLED`` abstracts use and no title
    does ("such as", "for example", "in this", "of our", "et al"): a phrase holding one is a piece of
    a sentence, an example list or a pointer back, not a title ("Dialog systems, such as voice
    assistants")."""
    word = re.compile(r"[a-z]+(?:'[a-z]+)?")

    def pairs(text: str) -> set[tuple[str, str]]:
        words = word.findall(text.lower())
        return {p for p in itertools.pairwise(words) if p[0] in FUNCTION_WORDS and p[1] in FUNCTION_WORDS}

    in_abstracts: Counter[tuple[str, str]] = Counter()
    in_titles: Counter[tuple[str, str]] = Counter()
    for record in records:
        in_abstracts.update(pairs(record["abstract"]))
        in_titles.update(pairs(record["title"]))
    return sorted(
        f"{first} {second}"
        for (first, second), count in in_abstracts.items()
        if count >= MIN_ABSTRACTS_NEVER_TITLED and in_titles[first, second] == 0
    )


def never_ending(records: list[dict]) -> list[str]:
    """Words (not function words) that at least ``MIN_ABSTRACTS_NEVER_ENDING`` abstracts use and no
    title or subtitle ends with ("according", "due", "neural", "proposed", "leverage"): a phrase ending
    with one is cut ("… samples the output token according", "… graph neural")."""
    word = re.compile(r"[A-Za-z][A-Za-z'-]*")
    in_abstracts: Counter[str] = Counter()
    ending: Counter[str] = Counter()
    for record in records:
        in_abstracts.update({w.lower() for w in word.findall(record["abstract"])})
        for part in re.split(r"[:?!]\s*", record["title"]):
            words = word.findall(part)
            if words:
                ending[words[-1].lower()] += 1
    return sorted(
        w
        for w, count in in_abstracts.items()
        if count >= MIN_ABSTRACTS_NEVER_ENDING and ending[w] == 0 and w not in FUNCTION_WORDS
    )


def never_titled(records: list[dict]) -> list[str]:
    """Words that at least ``MIN_ABSTRACTS_NEVER_ENDING`` abstracts use and no title does ("however",
    "recently", "proposed", "respectively", "namely"): an abstract's way of telling, not a title's
    ("The recently proposed model of RL with aggregate bandit feedback", "The proposed LiteVL even
    outperforms …")."""
    word = re.compile(r"[a-z][a-z'-]*")
    in_abstracts: Counter[str] = Counter()
    in_titles: Counter[str] = Counter()
    for record in records:
        in_abstracts.update(set(word.findall(record["abstract"].lower())))
        in_titles.update(set(word.findall(record["title"].lower())))
    return sorted(
        w for w, count in in_abstracts.items() if count >= MIN_ABSTRACTS_NEVER_ENDING and not in_titles[w]
    )


def never_opening(records: list[dict]) -> list[str]:
    """Words (not function words) that open a sentence in at least ``MIN_SENTENCE_OPENINGS`` abstracts
    and open titles or subtitles at most ``NEVER_OPENING_SHARE`` as often: "Existing methods …",
    "State-of-the-art models …", "Experiments show …" open abstracts' sentences about prior work and
    results, almost never a title."""
    word = re.compile(r"\W*([A-Za-z][A-Za-z'-]*)")
    in_sentences: Counter[str] = Counter()
    in_titles: Counter[str] = Counter()
    for record in records:
        opened = {
            found.group(1).lower()
            for sentence in re.split(r"(?<=[.!?])\s+", record["abstract"])
            if (found := word.match(sentence))
        }
        in_sentences.update(opened)
        for part in re.split(r"[:?!]\s+", record["title"]):
            if found := word.match(part):
                in_titles[found.group(1).lower()] += 1
    return sorted(
        w
        for w, count in in_sentences.items()
        if count >= MIN_SENTENCE_OPENINGS
        and w not in FUNCTION_WORDS
        and in_titles[w] <= NEVER_OPENING_SHARE * count
    )


def predicates(records: list[dict]) -> list[str]:
    """Words (not function words) that at least ``MIN_PREDICATED`` abstracts predicate of a subject before
    a preposition and that open titles or subtitles so at most ``PREDICATE_OPENING_SHARE`` as often."""
    predicated: Counter[str] = Counter()
    opening: Counter[str] = Counter()
    for record in records:
        predicated.update({found.group(1) for found in PREDICATED.finditer(record["abstract"])})
        for part in re.split(r"[:?!]\s*", record["title"]):
            if word := opening_predicate(part):
                opening[word] += 1
    return sorted(
        w
        for w, count in predicated.items()
        if count >= MIN_PREDICATED
        and w not in FUNCTION_WORDS
        and opening[w] <= PREDICATE_OPENING_SHARE * count
    )


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
        "generic_terms": generic_terms(records)[0],
        "verbs": learned_verbs(records),
        "never_in_titles": never_in_titles(records),
        "never_ending": never_ending(records),
        "never_titled": never_titled(records),
        "never_opening": never_opening(records),
        "predicates": predicates(records),
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
    print("generic terms:", " ".join(usage["generic_terms"]))
    print(f"{len(usage['verbs'])} verbs learned")
    print("openings:", " ".join(usage["openings"]))
    print("object verbs:", " ".join(usage["object_verbs"]))
    print("claim verbs:", " ".join(usage["claim_verbs"]))
    if args.write:
        USAGE_PATH.write_text(json.dumps(usage, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
        print("wrote", USAGE_PATH)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

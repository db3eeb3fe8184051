"""Topic quality: agreement with the organisers' labels, and how specific the topic names are.

    python benchmarks/topic_quality.py [CORPUS.jsonl ...] [--cache-dir DIR] [--show N]

(default: the two related-paper development sets). The corpus's labels and keywords are removed
before the analysis; topics are fitted by the build's own code on the build's joint vectors. Printed
per corpus: the number of topics; agreement with the labels as in ``related_quality.py`` (for each
labelled paper, the share of the other labelled papers of its topic that share a label), NMI and
ARI against the first label; and the names: the share of label phrases that are one vague word
(the keyphrase word lists' generic words, verbs, adjectives, "ml", "ai", "local", "insights" …), and
the share of names whose every phrase the topic carries (issue 29: used by a quarter of its papers,
three times as often as outside) with no filler word of the learned word statistics.
A corpus without labels (e.g. icml2024.jsonl) prints only the names.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from explanation_quality import VAGUE_WORDS  # noqa: E402
from related_quality import DEFAULT_EVAL, embedded_corpus, load_eval, topic_agreement  # noqa: E402

from generator.analysis.keyphrases.canonical import singular  # noqa: E402
from generator.analysis.keyphrases.ranker import word_stats  # noqa: E402
from generator.analysis.keyphrases.wordlists import ADJECTIVE_ENDING, ADJECTIVE_ENDING_NOUNS, NO_END  # noqa: E402
from generator.analysis.related import count_phrases, paper_space  # noqa: E402
from generator.analysis.topics import MIN_CONTRAST, MIN_TOPIC_SHARE, find_topics  # noqa: E402
from generator.project.settings import load_settings  # noqa: E402

SHARED = PROJECT_ROOT.parent / "shared"
DEFAULT_CORPORA = [
    SHARED / "corpora" / "nlp_acl2020_emnlp2020_eacl2021.jsonl",
    SHARED / "corpora" / "cvpr2019.jsonl",
]


def vague(phrase: str) -> bool:
    phrase = phrase.lower()  # a label is spelled as its papers write it ("ML")
    if " " in phrase:
        return False
    adjective = bool(ADJECTIVE_ENDING.search(phrase)) and phrase not in ADJECTIVE_ENDING_NOUNS
    return phrase in VAGUE_WORDS or phrase in {"model", "method"} or phrase in NO_END or adjective


def name_checks(topics, texts: list[str]) -> tuple[int, int, list[str]]:
    """How many topic names have every phrase carried by their topic (used by ``MIN_TOPIC_SHARE`` of
    its papers, ``MIN_CONTRAST`` times as often as by the other papers) and no filler word alone
    (the shipped word statistics); the topics; and the phrases that fail, with why."""
    counts = count_phrases(texts)
    index = {str(term): j for j, term in enumerate(counts.terms)}
    used = (counts.matrix > 0).tocsc()
    stats = word_stats()
    good, failures = 0, []
    for topic in topics:
        members = np.zeros(len(texts), dtype=bool)
        members[list(topic.members)] = True
        fine = bool(topic.phrases)
        for phrase in topic.phrases:
            lowered = phrase.lower()
            column = index.get(lowered)
            if column is None:
                fine = False
                failures.append(f"{phrase} (not counted)")
                continue
            users = used[:, column].toarray().ravel()
            inside = users[members].mean()
            outside = users[~members].mean() if (~members).any() else 0.0
            filler = " " not in lowered and stats.filler(singular(lowered), phrase)
            if inside < MIN_TOPIC_SHARE or inside < MIN_CONTRAST * outside or filler:
                fine = False
                failures.append(
                    f"{phrase} ({inside:.0%} in, {outside:.1%} out{', filler' if filler else ''})"
                )
        good += fine
    return good, len(topics), failures


def main(argv: list[str] | None = None) -> int:

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--cache-dir", type=Path, help="embedding cache (default: the project's cache_dir)")
    parser.add_argument("--show", type=int, default=8, help="topic names printed per corpus")
    arguments = parser.parse_args(argv)
    evaluation = load_eval(DEFAULT_EVAL)
    settings = load_settings(PROJECT_ROOT)
    cache_dir = (arguments.cache_dir or settings.resolve(settings.cache_dir)).absolute()
    for corpus in arguments.corpora:
        records = evaluation.load(str(corpus))
        texts, vectors = embedded_corpus(records, cache_dir)
        topics = find_topics(texts, paper_space(texts, vectors).vectors)
        phrases = [phrase for topic in topics for phrase in topic.phrases]
        line = f"{corpus.name}: {len(topics)} topics"
        labels = [evaluation.labels_of(record) for record in records]
        if any(labels):
            assigned = np.empty(len(records), dtype=int)
            for number, topic in enumerate(topics):
                assigned[list(topic.members)] = number
            labelled = [i for i, own in enumerate(labels) if own]
            first = [sorted(labels[i])[0] for i in labelled]
            line += (
                f", agreement {topic_agreement(topics, labels):.3f}"
                f", NMI {normalized_mutual_info_score(first, assigned[labelled]):.3f}"
                f", ARI {adjusted_rand_score(first, assigned[labelled]):.3f}"
            )
        vague_phrases = [phrase for phrase in phrases if vague(phrase)]
        line += (
            f"; vague name phrases {len(vague_phrases)} of {len(phrases)} {sorted(set(vague_phrases))[:12]}"
        )
        good, named, failures = name_checks(topics, texts)
        print(line)
        print(
            f"    names whose every phrase is carried by its topic (>= {MIN_TOPIC_SHARE:.0%} of its papers, "
            f">= {MIN_CONTRAST:g}x outside) and no filler word: {good} of {named}"
            + (f" ({good / named:.0%}); failing: {failures[:12]}" if named else "")
        )
        for topic in topics[: arguments.show]:
            print(f"    {len(topic.members):4d}  {topic.label}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

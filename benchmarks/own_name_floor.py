"""Where a paper's own name ends: the title name detector's odds below which a name is one it only uses.

    python benchmarks/own_name_floor.py [--fold-models DIR] [--corpora A.jsonl B.jsonl ...]

A keyword that is a name of one word the field hardly knows ("EmotionAttack", "QuIP#", but also
"EU", "CodeGen" or a dataset the paper evaluates on) is shown past the stray model when it is the
paper's own (``keywords._own_name``). Which names are the paper's own, the title name detector
learned from real titles (``titles.own_name_odds``). This script reads, on each development set,
every such name of every abstract with the detector's odds, and how often the paper's real title
names it; printed per corpus: for each candidate floor, the names below it and the share of them
that the real title names. ``keywords.OWN_NAME_FLOOR`` is the highest floor at which that share
is at most ``MAX_TITLED`` on every corpus.

With ``--fold-models DIR`` (``DIR/<corpus stem>.npz``, title models trained without that corpus, as
``train_title_model.py`` trains its leave-one-corpus-out folds; ``TitleModel.save``), each corpus
is rated by the detector that never saw it; without, by the shipped model, which trained on all of
them (in-sample: the odds are more decided than on a digest's unseen papers).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.analysis.keyphrases import abstract_candidates
from generator.analysis.keyphrases.ranker import word_stats
from generator.analysis.keywords import may_be_own_name, with_own_odds
from generator.analysis.titles import TitleModel, shipped_model

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
CORPORA = [
    SHARED / "corpora" / name
    for name in ("neurips2023.jsonl", "nlp_acl2020_emnlp2020_eacl2021.jsonl", "cvpr2019.jsonl")
]
FLOORS = (-6.0, -5.5, -5.0, -4.5, -4.0, -3.5, -3.0, -2.5, -2.0)
MAX_TITLED = 0.02
"""The share of names below the floor that the real titles may name (a title names a paper's own
name far more often: 38–64 % above odds of -2)."""


def rated_names(corpus: Path, model: TitleModel) -> list[tuple[str, float | None, bool]]:
    """Every name of one word no other paper of the corpus uses (``may_be_own_name``), with the
    detector's odds and whether the paper's real title names it."""
    records = [json.loads(line) for line in corpus.open(encoding="utf-8")]
    stats = word_stats()
    found = {str(i): abstract_candidates(r["abstract"]) for i, r in enumerate(records)}
    papers_using = Counter(key for candidates in found.values() for key, c in candidates.items() if c.count)
    rated = with_own_odds(found, {str(i): r["abstract"] for i, r in enumerate(records)}, stats, model)
    names = []
    for i, record in enumerate(records):
        for key, candidate in rated[str(i)].items():
            if papers_using[key] <= 1 and may_be_own_name(candidate, stats):
                titled = re.search(rf"(?<![\w-]){re.escape(candidate.form)}(?![\w-])", record["title"])
                names.append((candidate.form, candidate.own_odds, titled is not None))
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fold-models", type=Path, help="DIR/<corpus stem>.npz: held-out title models")
    parser.add_argument("--corpora", type=Path, nargs="+", default=CORPORA)
    args = parser.parse_args(argv)
    best: list[float] = []
    for corpus in args.corpora:
        if not corpus.exists():
            print(f"{corpus}: absent, skipped")
            continue
        folds = args.fold_models
        model = TitleModel.load(folds / f"{corpus.stem}.npz") if folds else shipped_model()
        names = rated_names(corpus, model)
        unrated = [titled for _, odds, titled in names if odds is None]
        print(
            f"{corpus.stem}: {len(names)} names, {len(unrated)} the detector does not find "
            f"(titled {sum(unrated) / max(len(unrated), 1):.1%})"
        )
        passing = []
        for floor in FLOORS:
            below = [titled for _, odds, titled in names if odds is not None and odds < floor]
            share = sum(below) / max(len(below), 1)
            print(f"  below {floor:+.1f}: {len(below):5d} names, {share:6.1%} named by the real title")
            if share <= MAX_TITLED:
                passing.append(floor)
        best.append(max(passing, default=min(FLOORS)))
    if best:
        print(f"highest floor with at most {MAX_TITLED:.0%} named below it on each corpus: {min(best):+.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""One page per keyword: the authors' keywords and the reader's tags of real exports, before and after
keyword variants are grouped (``generator.analysis.keyphrases.variants``).

For each input it reads the papers as a build does and counts, from the authors' keywords alone (no
model: the keywords the digest finds itself join the same groups in a build):

- Explore values: distinct keywords as the digest spelled them before (``canonical``, tags counted as
  authors' keywords, as they were) and after (tags apart, variants grouped);
- keyword pages: those of them with at least ``MIN_PAPERS_PER_KEYWORD_PAGE`` papers;
- tags: how many papers carry the reader's tags, which no longer count as authors' keywords;

and lists every merged group (shown form <- the other forms) for a human to check.

Usage: python benchmarks/keyword_variants.py [INPUT ...] [--groups N]
(default: the Zotero BibTeX, CSL-JSON and Mini-Conf CSV samples in ../shared/samples and
../shared/corpora/neurips2023.jsonl)
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from generator.analysis.analyse import keyword_text, settle_titles
from generator.analysis.keyphrases import canonical
from generator.analysis.keyphrases.variants import group_keyword_variants
from generator.site.render import MIN_PAPERS_PER_KEYWORD_PAGE
from generator.sources import read_collection

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# ../shared beside the checkout; a worktree one folder deeper finds it one further up.
SHARED = next(
    (p / "shared" for p in PROJECT_ROOT.parents if (p / "shared").is_dir()), PROJECT_ROOT / "shared"
)
DEFAULT_INPUTS = [
    *sorted((SHARED / "samples").glob("*/*.bib")),
    *sorted((SHARED / "samples").glob("*/*.json")),
    *sorted((SHARED / "samples").glob("*/*.csv")),
    SHARED / "corpora" / "neurips2023.jsonl",
]


def measure(path: Path, groups_shown: int) -> None:
    collection = read_collection([path])
    papers = collection.papers
    per_paper = [[(canonical(k), k) for k in paper.author_keywords if canonical(k)] for paper in papers]
    # Before: the tags counted as authors' keywords, each spelling its own keyword.
    as_before = [
        [canonical(k) for k in (*paper.author_keywords, *paper.tags) if canonical(k)] for paper in papers
    ]
    entries = settle_titles(papers)
    texts = [keyword_text(entry) for entry in entries]
    grouped = group_keyword_variants(per_paper, texts)

    before: Counter[str] = Counter()
    after: Counter[str] = Counter()
    for keywords in as_before:
        before.update(set(keywords))
    for keywords in per_paper:
        after.update({grouped.of(form) for form, _ in keywords})
    pages_before = sum(n >= MIN_PAPERS_PER_KEYWORD_PAGE for n in before.values())
    pages_after = sum(n >= MIN_PAPERS_PER_KEYWORD_PAGE for n in after.values())
    tagged = sum(bool(paper.tags) for paper in papers)
    tags = {tag for paper in papers for tag in paper.tags}
    print(f"## {path.name}: {len(papers)} papers")
    print(f"authors' keywords: {sum(bool(p.author_keywords) for p in papers)} papers")
    print(f"Explore values: {len(before)} -> {len(after)}")
    print(f"keyword pages (>= {MIN_PAPERS_PER_KEYWORD_PAGE} papers): {pages_before} -> {pages_after}")
    print(f"tags (not authors' keywords): {len(tags)} distinct on {tagged} papers")
    merged: dict[str, set[str]] = {}
    for keywords in per_paper:
        for form, _ in keywords:
            if (shown := grouped.of(form)) != form:
                merged.setdefault(shown, set()).add(form)
    ordered = sorted(merged.items(), key=lambda item: -after[item[0]])
    print(f"merged groups: {len(ordered)}")
    for shown, others in ordered[:groups_shown]:
        print(f"  {shown} ({after[shown]}) <- " + " | ".join(f"{o} ({before[o]})" for o in sorted(others)))
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("inputs", nargs="*", type=Path)
    parser.add_argument("--groups", type=int, default=1000, help="merged groups listed per input")
    args = parser.parse_args()
    inputs = args.inputs or [p for p in DEFAULT_INPUTS if p.exists()]
    if not inputs:
        parser.error(f"no inputs given and none found in {SHARED}")
    for path in inputs:
        measure(path, args.groups)


if __name__ == "__main__":
    main()

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
    papers = read_collection([path]).papers
    texts = [keyword_text(entry) for entry in settle_titles(papers)]
    tags = {tag for paper in papers for tag in paper.tags}
    print(f"## {path.name}: {len(papers)} papers")
    print(f"authors' keywords on {sum(bool(p.author_keywords) for p in papers)} papers")
    print(f"tags (not authors' keywords): {len(tags)} distinct on {sum(bool(p.tags) for p in papers)} papers")
    # Before: the tags counted as authors' keywords, each spelling its own keyword.
    before = _papers_per_keyword([[canonical(k) for k in (*p.author_keywords, *p.tags)] for p in papers])
    keywords = [[(canonical(k), k) for k in paper.author_keywords if canonical(k)] for paper in papers]
    _report("authors' keywords", before, keywords, texts, groups_shown)
    if tags:
        # What grouping alone does, were the tags keywords: the deepfake / deep-fake.
        as_keywords = [
            [(canonical(k), k) for k in (*p.author_keywords, *p.tags) if canonical(k)] for p in papers
        ]
        _report("tags taken for keywords, as before, grouped", before, as_keywords, texts, groups_shown)
    print()


def _papers_per_keyword(per_paper: list[list[str]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for keywords in per_paper:
        counts.update({k for k in keywords if k})
    return counts


def _report(
    what: str, before: Counter[str], per_paper: list[list[tuple[str, str]]], texts: list[str], shown: int
) -> None:
    grouped = group_keyword_variants(per_paper, texts)
    after = _papers_per_keyword([[grouped.of(form) for form, _ in keywords] for keywords in per_paper])
    pages = [sum(n >= MIN_PAPERS_PER_KEYWORD_PAGE for n in c.values()) for c in (before, after)]
    print(f"{what}: Explore values {len(before)} -> {len(after)}, keyword pages (>= "
          f"{MIN_PAPERS_PER_KEYWORD_PAGE} papers) {pages[0]} -> {pages[1]}")  # fmt: skip
    merged: dict[str, set[str]] = {}
    for keywords in per_paper:
        for form, _ in keywords:
            if (head := grouped.of(form)) != form:
                merged.setdefault(head, set()).add(form)
    ordered = sorted(merged.items(), key=lambda item: -after[item[0]])
    print(f"  merged groups: {len(ordered)}")
    for head, others in ordered[:shown]:
        print(f"    {head} ({after[head]}) <- " + " | ".join(f"{o} ({before[o]})" for o in sorted(others)))


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

"""How related-paper links are explained: shared keyphrases, generic words, the similarity scale.

    python benchmarks/explanation_quality.py [CORPUS.jsonl] [--cache-dir DIR]

(default ../shared/corpora/icml2024.jsonl). Runs the build's own analysis steps on the corpus (its
keywords and labels removed; embeddings through the cached embedder) and prints, over all related
links (five per paper):

- explained before: links whose two papers share one of their own top keywords (what the pages
  showed first);
- explained now: links with at least one shared keyphrase from the digest's keyword vocabulary
  (``generator.analysis.explain``), and how many phrases a link shows;
- generic: shown phrases that are a single vague word (the keyphrase word lists' generic words,
  function words and verbs, and "ml", "ai", "local", "insights", "space", "size", …) or that more
  than a tenth of the papers use; and the share of links showing one;
- the similarity scale: the closeness ("closest x% of pairs") of the first and the fifth link,
  median over papers, and the share of papers whose links all read the same closeness.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from generator.analysis.analyse import embed_papers, settle_titles, text_parts  # noqa: E402
from generator.analysis.explain import (  # noqa: E402
    closeness_text,
    explain_related,
    keyphrase_vocabulary,
    similarity_scale,
)
from generator.analysis.keyphrases.wordlists import FUNCTION_WORDS, GENERIC_ALONE, GENERIC_EDGE, VERBS  # noqa: E402
from generator.analysis.keywords import find_candidates, rank_keywords  # noqa: E402
from generator.analysis.related import paper_space, related_papers  # noqa: E402
from generator.build import open_embedder  # noqa: E402
from generator.project.settings import load_settings  # noqa: E402
from generator.sources import read_collection  # noqa: E402

SHARED = PROJECT_ROOT.parent / "shared"
# Words that explain nothing: the keyphrase word lists' generic nouns and adjectives, function words
# and verbs, and the slips the issue quoted from the bundled digest.
VAGUE_WORDS = (
    GENERIC_ALONE
    | GENERIC_EDGE
    | FUNCTION_WORDS
    | VERBS
    | {"ml", "ai", "local", "insights", "enabling", "related", "constant", "space", "size", "empirical"}
)
HIDDEN_FIELDS = ("labels", "keywords", "site_keywords")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=SHARED / "corpora" / "icml2024.jsonl")
    parser.add_argument("--cache-dir", type=Path, help="embedding cache (default: the project's cache_dir)")
    parser.add_argument("--show", type=int, default=0, help="print the links of the first N papers")
    arguments = parser.parse_args(argv)

    settings = load_settings(PROJECT_ROOT)
    cache_dir = (arguments.cache_dir or settings.resolve(settings.cache_dir)).absolute()
    with tempfile.TemporaryDirectory() as folder:
        stripped = Path(folder) / "corpus.jsonl"
        with arguments.corpus.open(encoding="utf-8") as source, stripped.open("w", encoding="utf-8") as out:
            for line in source:
                if line.strip():
                    record = {k: v for k, v in json.loads(line).items() if k not in HIDDEN_FIELDS}
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
        collection = read_collection([stripped])
    entries = settle_titles(collection.papers)
    parts = [text_parts(entry) for entry in entries]
    texts = [text for text, _ in parts]
    embedder = open_embedder(replace(settings, cache_dir=cache_dir))
    try:
        embeddings = embed_papers(parts, embedder)
        vectors = embeddings.text
        titles = [None if e.title_was_derived else e.title for e in entries]
        candidates = find_candidates([e.paper.abstract for e in entries], titles, 5)
        keywords = rank_keywords(candidates, vectors, embedder, 5)
        started = time.perf_counter()
        vocabulary = keyphrase_vocabulary(
            keywords,
            [c.keys() for c in candidates.per_paper],
            candidates.spellings,
            embedder.embed,
            vectors,
        )
        vocabulary_seconds = time.perf_counter() - started
    finally:
        embedder.cache.close()
    space = paper_space(texts, embeddings)
    related = related_papers(space, keywords, 5)
    explaining = time.perf_counter()
    explained = explain_related(related, vocabulary, similarity_scale(space.expanded))
    explaining = time.perf_counter() - explaining + vocabulary_seconds

    links = [link for near in related for link in near]
    new_links = [link for near in explained for link in near]
    before_keywords = sum(1 for link in links if link.shared_keywords)
    now = sum(1 for link in new_links if link.shared_keywords)
    shown = [phrase for link in new_links for phrase in link.shared_keywords]
    key_of = {spelling: key for key, spelling in candidates.spellings.items()}
    crowded = 0.1 * len(entries)

    def generic(phrase: str) -> bool:
        word = phrase.lower()
        crowd = candidates.papers_using[key_of.get(phrase, phrase)] > crowded
        return (" " not in word and word in VAGUE_WORDS) or crowd

    first = [near[0].closeness for near in explained if near]
    fifth = [near[4].closeness for near in explained if len(near) >= 5]
    total = len(links)
    unexplained = total - before_keywords
    vague = sum(map(generic, shown)) / max(len(shown), 1)
    print(
        f"{arguments.corpus.name}: {len(entries)} papers, {total} related links, "
        f"vocabulary {len(vocabulary.spelling)} keyphrases"
    )
    print(
        f"  before: shared top-5 keyword {before_keywords / total:6.1%}   "
        f"unexplained {unexplained / total:6.1%}"
    )
    print(
        f"  now:    shared keyphrase     {now / total:6.1%}   "
        f"phrases per explained link {len(shown) / max(now, 1):.2f}   generic phrases {vague:6.1%}"
    )
    print(
        f"  scale:  median first link {closeness_text(float(np.median(first)))}, "
        f"median fifth link {closeness_text(float(np.median(fifth)))}; "
        f"median cosine shown before: {np.median([link.score for link in links]):.2f}"
    )
    several = [near for near in explained if len(near) >= 2]
    alike = sum(1 for near in several if len({closeness_text(x.closeness) for x in near}) == 1)
    print(
        f"  scale:  papers whose related links all read the same closeness "
        f"{alike / max(len(several), 1):6.1%}"
    )
    print(f"  explaining took {explaining:.1f} s (vocabulary, shared phrases, scale)")
    for index in range(min(arguments.show, len(entries))):
        print(f"- {entries[index].title[:80]}")
        for old, new in zip(related[index], explained[index], strict=True):
            before = ", ".join(old.shared_keywords) or "-"
            now_shown = ", ".join(new.shared_keywords) or "-"
            print(f"    {closeness_text(new.closeness)}: {now_shown}   ({before})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Keyword quality: F1@5 against author keywords, and how well keywords connect papers.

Runs the digest's own keyword extraction (the same candidates, KeyBERT ranking and statistics as
`paper-digest build`) on a JSONL corpus whose `keywords` and `labels` are removed before anything
sees it, then scores the first five keywords against the author keywords with the definition of
../shared/eval/digest_eval.py (exact match after lowercasing, dropping punctuation and
Porter-stemming each word; macro mean over papers with author keywords). Beside it: plain KeyBERT
((1, 2)-grams, English stop words, MMR 0.5) on the same papers, the keyword-page statistics, the
repeats (a keyword inside another of its paper after Porter stemming) and the words shown alone.
The shipped ``lone_words.json`` is learned from the NeurIPS 2023 author keywords, so F1@5 on NeurIPS
here is in-sample; the held-out number is the 2-fold one in benchmarks/notes/keywords-topics.md.

Usage: python benchmarks/keyword_quality.py [CORPUS.jsonl] [--eval PATH] [--cache-dir DIR] [--plain] [--bare]
(default corpus ../shared/corpora/neurips2023.jsonl; a folder of abstracts such as abstracts/ is read
as a build reads it and gets only the filler counts)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import time
from collections import Counter
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED = PROJECT_ROOT.parent / "shared"


def load_eval(path: Path):
    spec = importlib.util.spec_from_file_location("digest_eval", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def connectivity(keywords: list[list[str]]) -> tuple[int, int]:
    """Papers with at least two keywords that have a keyword page (shared with another paper), and
    the number of keyword pages."""
    use = Counter(k for paper in keywords for k in set(paper))
    pages = sum(1 for count in use.values() if count >= 2)
    connected = sum(1 for paper in keywords if sum(1 for k in set(paper) if use[k] >= 2) >= 2)
    return connected, pages


def porter_words(keyword: str) -> list[str]:
    """A keyword's words as the yardstick compares them: lowercase, punctuation dropped, each word
    Porter-stemmed (``digest_eval.norm_phrase``; nltk's stemmer, not the one the build uses)."""
    from nltk.stem import PorterStemmer

    stem = PorterStemmer().stem
    return [stem(token) for token in re.findall(r"[a-z0-9]+", keyword.lower())]


def repeats(keywords: list[list[str]]) -> list[tuple[str, str]]:
    """The shown keywords contained in another keyword of the same paper after Porter stemming
    (equal ones too), each with the first keyword it is inside: ("language model", "large language
    model"), ("robust", "robustness")."""
    found = []
    for paper in keywords:
        stemmed = [porter_words(keyword) for keyword in paper]
        for index, words in enumerate(stemmed):
            size = len(words)
            holders = [
                paper[other]
                for other, longer in enumerate(stemmed)
                if other != index
                and len(longer) >= size > 0
                and any(longer[start : start + size] == words for start in range(len(longer) - size + 1))
            ]
            if holders:
                found.append((paper[index], holders[0]))
    return found


def lone_words(keywords: list[list[str]]) -> list[str]:
    """Shown keywords of one word (hyphenated words are one), acronyms left out (names)."""
    from generator.analysis.keyphrases.canonical import is_acronym

    return [
        keyword for paper in keywords for keyword in paper if " " not in keyword and not is_acronym(keyword)
    ]


def _words(keyword: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", keyword.lower())


def _initialism(keyword: str) -> str:
    """LLMs -> llm, GNN -> gnn: an acronym's letters, a plural s dropped."""
    letters = keyword[:-1] if keyword.endswith("s") and keyword[-2:-1].isupper() else keyword
    return letters.lower()


def slips(keywords: list[list[str]]) -> dict[str, int]:
    """The visible slips a reader notices, counted on the output alone (not by the code that avoids
    them): a lone word with a verb's -ize ending ("optimize"); a keyword that is part of another
    keyword of the same paper ("wormhole" beside "wasserstein wormhole"); an acronym shown, alone or
    in a phrase, while the digest also shows the phrase it abbreviates ("LLM" or "LLM inference" and
    "large language model"); and spelling variants shown as two keywords ("fine-tuning" and
    "finetuning")."""
    shown = {k for paper in keywords for k in paper}
    by_initials: dict[str, set[str]] = {}
    for keyword in shown:
        words = _words(keyword)
        if len(words) >= 2:
            by_initials.setdefault("".join(w[0] for w in words), set()).add(keyword)
    verbs = contained = acronyms = 0
    for paper in keywords:
        for keyword in paper:
            words = _words(keyword)
            if len(words) == 1 and re.search(r"i[zs]e[sd]?$", words[0]) and len(words[0]) >= 7:
                verbs += 1
            if any(
                other != keyword
                and len(_words(other)) > len(words)
                and f" {' '.join(words)} " in f" {' '.join(_words(other))} "
                for other in paper
            ):
                contained += 1
            if any(
                sum(c.isupper() for c in token) >= 2 and _initialism(token) in by_initials
                for token in keyword.split()
            ):
                acronyms += 1  # "LLM", or "preference-based RL" beside "reinforcement learning"
    compact: dict[str, set[str]] = {}
    for keyword in shown:
        compact.setdefault(re.sub(r"[\s-]+", "", keyword.lower()), set()).add(keyword)
    variants = sum(len(spellings) - 1 for spellings in compact.values())
    return {"-ize verb alone": verbs, "part of another keyword of the paper": contained,
            "acronym beside its expansion in the digest": acronyms,
            "spelling variants in the digest": variants}  # fmt: skip


_TOKEN = re.compile(r"[a-z0-9]+(?:['’][a-z0-9]+)*|[^\sa-z0-9]")


def _text_words(text: str) -> list[str]:
    """The words of a text as a keyword's key has them: lowercase, hyphen parts apart, singular."""
    from generator.analysis.keyphrases.canonical import singular

    return [singular(token) for token in _TOKEN.findall(text.lower().replace("-", " ").replace("/", " "))]


def fillers(keywords: list[list[str]], abstracts: list[str]) -> dict[str, list[str]]:
    """The keywords a reader takes for fillers, found on the output and the abstract's text: a single
    word the shipped word statistics call common or not a noun ("size", "linear"), and a phrase cut
    inside a longer one: every use in its abstract is followed by the same word, which makes a term
    with it (``ranker.cut``: "early-exit large language" of "early-exit large language models",
    "topological data" of "topological data analysis"; not "classification" of "classification
    task"), or a tail cut from a longer name: every use is preceded by the same word that makes a
    name with it (``ranker.cut_head`` read on one abstract: "gradient langevin dynamics" of
    "stochastic gradient langevin dynamics"; not "learning" after "deep")."""
    from generator.analysis.keyphrases import Candidate
    from generator.analysis.keyphrases.canonical import canonical_key, is_acronym, singular
    from generator.analysis.keyphrases.ranker import cut, cut_head, word_stats
    from generator.analysis.text import strip_markup

    stats = word_stats()
    found: dict[str, list[str]] = {
        "common or not a noun": [],
        "cut inside a longer phrase": [],
        "tail of a longer name": [],
    }
    for paper, abstract in zip(keywords, abstracts, strict=True):
        text = _text_words(strip_markup(abstract))
        for keyword in paper:
            key = canonical_key(keyword)
            if " " not in key and not is_acronym(keyword) and stats.filler(singular(key), keyword):
                found["common or not a noun"].append(keyword)
            words = _text_words(keyword)
            size = len(words)
            following = {
                text[start + size] if start + size < len(text) else "."
                for start in range(len(text) - size + 1)
                if text[start : start + size] == words
            }
            if len(following) == 1:
                (after,) = following
                if after[0].isalnum() and cut(Candidate(key, keyword, followed_by=after), stats):
                    found["cut inside a longer phrase"].append(f"{keyword} [{after}]")
            preceding = {
                text[start - 1] if start > 0 else "."
                for start in range(len(text) - size + 1)
                if text[start : start + size] == words
            }
            if len(preceding) == 1:
                (before,) = preceding
                if before[0].isalnum() and cut_head(Candidate(key, keyword, preceded_by=before), 1.0, stats):
                    found["tail of a longer name"].append(f"[{before}] {keyword}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", nargs="?", type=Path, default=SHARED / "corpora" / "neurips2023.jsonl")
    parser.add_argument("--eval", type=Path, default=SHARED / "eval" / "digest_eval.py")
    parser.add_argument("--cache-dir", type=Path, default=PROJECT_ROOT / ".cache" / "paper-digest")
    parser.add_argument("--plain", action="store_true", help="also run plain KeyBERT for comparison")
    parser.add_argument("--bare", action="store_true", help="strip the titles too (bare abstracts)")
    arguments = parser.parse_args()

    from generator.analysis.analyse import analysis_text, settle_titles
    from generator.analysis.embed import SentenceTransformerEmbedder
    from generator.analysis.keywords import find_candidates, rank_keywords
    from generator.cache.embeddings import CachedEmbedder, EmbeddingCache
    from generator.sources import read_collection

    digest_eval = load_eval(arguments.eval)
    if arguments.corpus.suffix == ".jsonl":
        gold = digest_eval.load(str(arguments.corpus))
        stripped = arguments.cache_dir / "keyword-benchmark-input.jsonl"
        stripped.parent.mkdir(parents=True, exist_ok=True)
        hidden = {"keywords", "labels", *(("title",) if arguments.bare else ())}
        with stripped.open("w", encoding="utf-8") as handle:
            for record in gold:
                handle.write(json.dumps({k: v for k, v in record.items() if k not in hidden}) + "\n")
        papers = read_collection([stripped], name="benchmark").papers
        stripped.unlink()
    else:  # a digest's abstracts (the bundled ones): no author keywords, only the fillers to count
        gold = []
        papers = read_collection([arguments.corpus], name="benchmark").papers
    entries = settle_titles(papers)
    embedder = CachedEmbedder(
        SentenceTransformerEmbedder(), EmbeddingCache.open(arguments.cache_dir / "cache.sqlite3")
    )

    start = time.perf_counter()
    vectors = embedder.embed([analysis_text(entry) for entry in entries])
    embedded = time.perf_counter()
    candidates = find_candidates(
        [e.paper.abstract for e in entries], [None if e.title_was_derived else e.title for e in entries], 5
    )
    found = rank_keywords(candidates, vectors, embedder, 5)
    done = time.perf_counter()

    ours = {
        entry.paper.id: [k.text for k in keywords] for entry, keywords in zip(entries, found, strict=True)
    }
    f1, precision, recall, scored = digest_eval.keyword_f1(gold, ours, 5) if gold else (0.0, 0.0, 0.0, 0)
    connected, pages = connectivity(list(ours.values()))
    print(f"corpus {arguments.corpus} ({len(entries)} papers, {scored} with author keywords)")
    print(f"{'method':<44} {'F1@5':>6} {'P':>6} {'R':>6}")
    print(f"{'paper-digest (candidates + KeyBERT + stats)':<44} {f1:>6.4f} {precision:>6.4f} {recall:>6.4f}")
    print(
        f"  {len(candidates.to_embed)} phrases embedded; papers embedded in {embedded - start:.1f}s, "
        f"keywords in {done - embedded:.1f}s ({embedder.misses} texts newly embedded, the rest cached)"
    )
    print(
        f"  {connected} of {len(entries)} papers ({connected / len(entries):.1%}) "
        "have >= 2 keywords with a page;"
    )
    found_repeats = repeats(list(ours.values()))
    alone = lone_words(list(ours.values()))
    shown = sum(map(len, ours.values()))
    repeat_share = len(found_repeats) / max(shown, 1)
    print(f"  repeats (inside another of its paper, Porter-stemmed): {len(found_repeats)} of {shown} "
          f"({repeat_share:.2%}): {Counter(found_repeats).most_common(10)}")  # fmt: skip
    alone_share = len(alone) / max(shown, 1)
    print(f"  one word alone: {len(alone)} ({alone_share:.2%}): {Counter(alone).most_common(30)}")
    found_slips = slips(list(ours.values()))
    shown = sum(map(len, ours.values()))
    print(f"  slips in {shown} keywords: {found_slips}")
    for kind, listed in fillers(list(ours.values()), [e.paper.abstract for e in entries]).items():
        share = len(listed) / max(shown, 1)
        print(f"  {kind}: {len(listed)} of {shown} ({share:.2%}): {Counter(listed).most_common(30)}")
    print(
        f"  {pages} keyword pages; most used: {Counter(k for v in ours.values() for k in v).most_common(8)}"
    )

    if arguments.plain:
        from keybert import KeyBERT

        start = time.perf_counter()
        model = KeyBERT(model=embedder.backend._load())
        plain = model.extract_keywords(
            [e.paper.abstract for e in entries],
            keyphrase_ngram_range=(1, 2),
            stop_words="english",
            use_mmr=True,
            diversity=0.5,
            top_n=5,
        )
        plain_keywords = {e.paper.id: [w for w, _ in k] for e, k in zip(entries, plain, strict=True)}
        f1, precision, recall, _ = digest_eval.keyword_f1(gold, plain_keywords, 5)
        print(f"{'plain KeyBERT (1,2)-grams, MMR 0.5':<44} {f1:>6.3f} {precision:>6.3f} {recall:>6.3f}")
        print(f"  {time.perf_counter() - start:.1f}s")


if __name__ == "__main__":
    main()

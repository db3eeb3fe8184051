"""P@10 of word search (Pagefind, as the search box asks it), search by meaning and their fusion, in
Chromium, on three query sets with known answers:

- NeurIPS 2023 author keywords that at least 5 papers list (relevant: the papers listing it);
- NLP track names with at least 10 papers (ACL 2020, EMNLP 2020, EACL 2021; relevant: the track's papers);
- CVPR 2019 session names (relevant: the session's papers).

Each corpus becomes a small site: a page per paper (title, authors, abstract: no keywords or labels,
which would give the answers away) indexed by the site's own Pagefind step
(``generator.finish.search_index``), and the site's ``meaning/`` files written by the build's code from
the build's vectors. A page in Chromium loads the site's ``search.js`` and ``meaning.js`` and, per
query, asks Pagefind what the search box asks (``paperSearch.cleaned``), and ``paperMeaning.search``;
the fused P@10 is the shipped ``paperMeaning.fuse``. Fusion variants are scored here from the same two
rankings, with the formula ``fuse`` uses (checked equal to it on the shipped weights).

Meaning is asked of both encoders, side by side in one run: the quick one (the search box's default,
``generator.analysis.query_encoder``) and the full model (the "Full model" switch).

Also: a paper's own title as the query, how often the fused ranking puts that paper first.

    PYTHONPATH=. python benchmarks/search_relevance.py ../shared/corpora --work /tmp/meaning/relevance \\
        --cache /tmp/meaning/cache

The papers' vectors come from the embedding cache (``--cache``; embedded on a miss, slowly).
"""

from __future__ import annotations

import argparse
import html
import json
import shutil
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.local_server import serving
from generator.analysis.analyse import embed_papers, settle_titles, text_parts
from generator.analysis.embed import SentenceTransformerEmbedder
from generator.analysis.text import strip_markup
from generator.cache.database import CACHE_DATABASE
from generator.cache.embeddings import CachedEmbedder, EmbeddingCache
from generator.cache.models import onnx_model, query_encoder
from generator.finish.search_index import write_search_index
from generator.site.meaning_index import MeaningPaper, meaning_files, snippet
from generator.site.output import ASSETS_DIR
from generator.sources import read_collection

SETS = {
    "neurips-keywords": ("neurips2023.jsonl", "keywords", 5),
    "nlp-tracks": ("nlp_acl2020_emnlp2020_eacl2021.jsonl", "labels", 10),
    "cvpr-sessions": ("cvpr2019.jsonl", "labels", 1),
}
DEPTH = 50
TITLE_QUERIES = 100


def query_set(rows: list[dict], field: str, least: int) -> dict[str, set[int]]:
    """Each query (a keyword or label, as written, first spelling kept) and its relevant papers."""
    relevant: dict[str, set[int]] = defaultdict(set)
    spelling: dict[str, str] = {}
    for index, row in enumerate(rows):
        for value in row.get(field) or []:
            key = " ".join(str(value).lower().split())
            if key:
                spelling.setdefault(key, " ".join(str(value).split()))
                relevant[key].add(index)
    return {spelling[key]: papers for key, papers in relevant.items() if len(papers) >= least}


def page(title: str, authors: str, abstract: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"></head><body>'
        '<article class="md-content__inner md-typeset" data-pagefind-body>'
        f"<h1>{html.escape(title)}</h1><p>{html.escape(abstract)}</p>"
        f'<p class="paper-meta"><strong>Authors:</strong> {html.escape(authors)}</p>'
        "</article></body></html>"
    )


def build_site(corpus: Path, site: Path, embedder: CachedEmbedder, cache: Path) -> list[dict]:
    rows = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    papers = read_collection([corpus]).papers
    by_id = {row["id"]: row for row in rows}
    rows = [by_id[paper.id] for paper in papers]  # the build's order (duplicates dropped)
    index_file = site / "meaning" / "index.json"
    if index_file.is_file() and "encoder" in json.loads(index_file.read_text(encoding="utf-8")):
        copy_scripts(site)
        return rows
    entries = settle_titles(papers)
    if not (site / "pagefind").is_dir():
        shutil.rmtree(site, ignore_errors=True)
        write_pages(site, entries)
    else:  # the pages and their index stand: only the meaning files are written again
        shutil.rmtree(site / "meaning", ignore_errors=True)
    started = time.perf_counter()
    vectors = embed_papers([text_parts(entry) for entry in entries], embedder)
    print(f"  vectors: {time.perf_counter() - started:.1f} s")
    meaning = [
        MeaningPaper(
            id=entry.paper.id,
            url=f"p/{index}/",
            title=strip_markup(entry.title),
            authors=", ".join(entry.paper.authors),
            snippet=snippet(strip_markup(entry.paper.abstract)),
        )
        for index, entry in enumerate(entries)
    ]
    runtime = ASSETS_DIR / "javascripts" / "vendor" / "onnxruntime-web"
    runtime_bytes = sum(path.stat().st_size for path in runtime.iterdir() if path.suffix in (".wasm", ".mjs"))
    files = meaning_files(meaning, vectors.text, onnx_model(cache), query_encoder(cache), runtime_bytes)
    for path, data in files.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_bytes(data)
    (site / "index.html").write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
        '<script src="javascripts/meaning.js"></script><script src="javascripts/search.js"></script>'
        "</body></html>",
        encoding="utf-8",
    )
    copy_scripts(site)
    return rows


def write_pages(site: Path, entries: list) -> None:
    for index, entry in enumerate(entries):
        target = site / "p" / str(index) / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            page(
                strip_markup(entry.title), ", ".join(entry.paper.authors), strip_markup(entry.paper.abstract)
            ),
            encoding="utf-8",
        )
    write_search_index(site)


def copy_scripts(site: Path) -> None:
    """The site's scripts as they are now (the pages and meaning files stay as built)."""
    for script in ("meaning.js", "search.js"):
        (site / "javascripts").mkdir(exist_ok=True)
        shutil.copy(ASSETS_DIR / "javascripts" / script, site / "javascripts" / script)
    shutil.copytree(
        ASSETS_DIR / "javascripts" / "vendor", site / "javascripts" / "vendor", dirs_exist_ok=True
    )


ASK = """
async ({queries, depth}) => {
  const pagefind = await import(new URL('pagefind/pagefind.js', location.href).href);
  await pagefind.options({ baseUrl: '/' });
  await pagefind.init();
  const out = [];
  for (const query of queries) {
    const cleaned = window.paperSearch.cleaned(query + ' ').text;
    const started = performance.now();
    const found = cleaned ? await pagefind.search(cleaned) : { results: [] };
    const data = await Promise.all(found.results.slice(0, depth).map(r => r.data()));
    const words = data.map(d => new URL(d.url, location.href).href);
    const wordMs = performance.now() - started;
    const begun = performance.now();
    const nearest = await window.paperMeaning.search(query, depth, 'full');
    const meaning = nearest.map(p => p.url);
    const meaningMs = performance.now() - begun;
    const fused = window.paperMeaning.fuse(query, words, found.results.length, meaning, 'full');
    const quickBegun = performance.now();
    const quickNearest = await window.paperMeaning.search(query, depth, 'quick');
    const quick = quickNearest.map(p => p.url);
    const quickMs = performance.now() - quickBegun;
    const quickFused = window.paperMeaning.fuse(query, words, found.results.length, quick, 'quick');
    out.push({
      query, words, total: found.results.length, meaning, fused, wordMs, meaningMs, cleaned,
      quick, quickFused, quickMs,
      wordScores: found.results.slice(0, depth).map(r => r.score), meaningScores: nearest.map(p => p.score),
    });
  }
  return out;
}
"""


def ask_in_chromium(site: Path, queries: list[str]) -> list[dict]:
    from playwright.sync_api import sync_playwright

    with serving(site) as address, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        tab = browser.new_page()
        tab.goto(address)
        tab.evaluate("() => window.paperMeaning.ready()")
        tab.evaluate("() => window.paperMeaning.search('a warm-up question', 1, 'quick')")
        answers = tab.evaluate(ASK, {"queries": queries, "depth": DEPTH})
        browser.close()
    return answers


def paper_index(url: str) -> int:
    return int(url.rstrip("/").rsplit("/", 1)[1])


def precision_at_10(ranked: list[str], relevant: set[int]) -> float:
    return sum(paper_index(url) in relevant for url in ranked[:10]) / 10


Weights = Callable[[dict], tuple[float, float]]


def fused(answer: dict, weights: Weights, offset: int = 60) -> list[str]:
    """``paperMeaning.fuse``'s formula with other weights."""
    word, meaning = weights(answer)
    score: dict[str, float] = defaultdict(float)
    for rank, url in enumerate(answer["words"]):
        score[url] += word / (offset + rank)
    for rank, url in enumerate(answer["meaning"]):
        score[url] += meaning / (offset + rank)
    return sorted(score, key=lambda url: -score[url])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", type=Path)
    parser.add_argument("--work", type=Path, default=Path("/tmp/meaning/relevance"))
    parser.add_argument("--cache", type=Path, default=Path("/tmp/meaning/cache"))
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    args = parser.parse_args()
    embedder = CachedEmbedder(
        SentenceTransformerEmbedder(precision="float32"), EmbeddingCache.open(args.cache / CACHE_DATABASE)
    )
    results = {}
    for name in args.sets:
        corpus, field, least = SETS[name]
        print(f"{name}: building the site", flush=True)
        site = args.work / name
        rows = build_site(args.corpora / corpus, site, embedder, args.cache)
        queries = query_set(rows, field, least)
        answers_file = args.work / f"{name}.answers-quick.json"
        if not answers_file.is_file():
            titles = [
                rows[i]["title"]
                for i in np.random.default_rng(0).choice(len(rows), TITLE_QUERIES, replace=False)
            ]
            answers = ask_in_chromium(site, [*queries, *titles])
            answers_file.write_text(json.dumps(answers), encoding="utf-8")
        answers = json.loads(answers_file.read_text(encoding="utf-8"))
        results[name] = (queries, answers[: len(queries)], answers[len(queries) :], rows)
    report(results)


def rule(few: int, word_few: float, word_many: float) -> Weights:
    """Word search's weight by how many pages it matched (it requires every word): none, at most
    ``few``, or more; meaning's weight is 1."""
    return lambda answer: (
        0.0 if answer["total"] == 0 else word_few if answer["total"] <= few else word_many,
        1.0,
    )


RULES = {
    f"few<={few} w{word_few}/{word_many}": rule(few, word_few, word_many)
    for few in (5, 10, 20, 50, 100)
    for word_few in (1.0, 2.0, 4.0)
    for word_many in (0.25, 0.5, 0.75, 1.0, 1.5)
}


def report(results: dict) -> None:
    per_set: dict[str, dict[str, float]] = {}
    for name, (queries, answers, title_answers, rows) in results.items():
        relevant = list(queries.values())

        def mean_precision(rankings: list[list[str]], relevant: list[set[int]] = relevant) -> float:
            return float(
                np.mean([precision_at_10(r, rel) for r, rel in zip(rankings, relevant, strict=True)])
            )

        scores = {
            "words": mean_precision([a["words"] for a in answers]),
            "meaning": mean_precision([a["meaning"] for a in answers]),
            "shipped": mean_precision([a["fused"] for a in answers]),
            "quick meaning": mean_precision([a["quick"] for a in answers]),
            "quick fused (default box)": mean_precision([a["quickFused"] for a in answers]),
            "plain RRF": mean_precision([fused(a, lambda a: (1.0, 1.0)) for a in answers]),
        }
        scores |= {
            label: mean_precision([fused(a, weights) for a in answers]) for label, weights in RULES.items()
        }
        per_set[name] = scores
        titles = {row["title"]: index for index, row in enumerate(rows)}
        first = [bool(a["fused"]) and paper_index(a["fused"][0]) == titles[a["query"]] for a in title_answers]
        ms = [a["meaningMs"] for a in answers]
        quick_ms = [a["quickMs"] for a in answers]
        quick_first = [
            bool(a["quickFused"]) and paper_index(a["quickFused"][0]) == titles[a["query"]]
            for a in title_answers
        ]
        empty = sum(a["total"] == 0 for a in answers)
        print(
            f"{name}: {len(queries)} queries ({empty} without a word match); own title first (shipped): "
            f"{np.mean(first):.2f} of {len(first)}; meaning query median {np.median(ms):.0f} ms, "
            f"90th pct {np.percentile(ms, 90):.0f} ms; quick: own title first {np.mean(quick_first):.2f}, "
            f"meaning query median {np.median(quick_ms):.1f} ms, "
            f"90th pct {np.percentile(quick_ms, 90):.1f} ms"
        )
    names = list(per_set)
    shown = ["words", "meaning", "shipped", "quick meaning", "quick fused (default box)", "plain RRF"]

    def margin(label: str) -> float:
        """How far the ranking falls below the better side on its worst set."""
        return min(per_set[n][label] - max(per_set[n]["words"], per_set[n]["meaning"]) for n in names)

    best_rules = sorted(
        RULES, key=lambda label: (-margin(label), -np.mean([per_set[n][label] for n in names]))
    )
    print(f"\n{'P@10':24}" + "".join(f"{n:>18}" for n in names) + f"{'mean':>8}{'worst gap':>10}")
    for label in shown + best_rules[:8]:
        values = [per_set[n][label] for n in names]
        print(
            f"{label:24}"
            + "".join(f"{v:18.3f}" for v in values)
            + f"{np.mean(values):8.3f}{margin(label):10.3f}"
        )


if __name__ == "__main__":
    main()

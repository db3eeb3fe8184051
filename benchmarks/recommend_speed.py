"""How long My list's recommendations take in Chromium (``paperRecommend.recommend``, 5 saved papers),
at ICML 2024's size (2,634 papers: one vector file, every paper scored) and at 50,000 papers (the
partitioned index search by meaning ships past 3,500 papers).

A reader here saves a random paper and 4 of its 50 nearest (readers save papers on one subject; the
clusters probed depend on it). "first" is a fresh browser context (empty cache): the files fetched,
the model trained, the list ranked; "then" is a new list of 5 in the same page (one more star).

- 2,634 papers: with ``--icml``, the build's vectors of ``icml2024.jsonl`` (the embedding cache,
  ``--cache``; embedded on a miss, slowly); without, stand-in vectors (below). Every paper is scored
  whatever its vector, so the time does not depend on which.
- 50,000: ``--scale VECTORS.npy`` (the build's vectors of ``scale_50k.jsonl``, as
  ``benchmarks/meaning_ivf.py`` reads them) if you have them; without, stand-in vectors: each paper
  takes the vector of a paper of the labelled corpora (``SETS``, from the cache) with Gaussian noise
  (σ 0.02 an axis), normalised again. The time depends on the index's layout (clusters of 200, the
  codes probed, the rows ranked exactly), which is the same; the stand-in's clusters are tighter than
  real ones.

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/recommend_speed.py ../shared/corpora \\
        --cache /tmp/recommend/cache
"""

from __future__ import annotations

import argparse
import functools
import http.server
import shutil
import statistics
import threading
from pathlib import Path

import numpy as np

from benchmarks.recommend_quality import SETS, Corpus, _QuietHandler, read_corpus, write_site
from generator.analysis.embed import CachedEmbedder, EmbeddingCache, SentenceTransformerEmbedder
from generator.cache.database import CACHE_DATABASE
from generator.site.meaning_index import quantised
from generator.site.output import ASSETS_DIR

RUNS = 3
LISTS = 20
SEED = 0

FIRST = """
async (saved) => {
  const started = performance.now();
  const found = await window.paperRecommend.recommend(saved, 20);
  return { ms: performance.now() - started, bytes: window.paperRecommend.fetched.bytes, found: found.length };
}
"""
THEN = """
async (lists) => {
  const out = [];
  for (const saved of lists) {
    const bytes = window.paperRecommend.fetched.bytes;
    const started = performance.now();
    await window.paperRecommend.recommend(saved, 20);
    out.push({ ms: performance.now() - started, bytes: window.paperRecommend.fetched.bytes - bytes });
  }
  return out;
}
"""


def reader_lists(vectors: np.ndarray, ids: list[str], count: int, seed: int = SEED) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    lists = []
    for _ in range(count):
        first = int(rng.integers(len(vectors)))
        near = np.argsort(-(vectors @ vectors[first]))[1:51]
        lists.append([ids[first], *(ids[p] for p in rng.choice(near, 4, replace=False))])
    return lists


def measure(site: Path, lists: list[list[str]]) -> dict:
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    firsts, thens = [], []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"]
            )
            for run in range(RUNS):
                context = browser.new_context()
                tab = context.new_page()
                tab.goto(url)
                firsts.append(tab.evaluate(FIRST, lists[run]))
                if run == 0:
                    thens = tab.evaluate(THEN, lists[RUNS:])
                context.close()
            browser.close()
    finally:
        server.shutdown()
    times = [then["ms"] for then in thens]
    return {
        "first": [round(first["ms"]) for first in firsts],
        "first MB": round(firsts[0]["bytes"] / 1e6, 2),
        "then median": round(statistics.median(times)),
        "then max": round(max(times)),
        "then MB median": round(statistics.median(then["bytes"] for then in thens) / 1e6, 2),
    }


def stand_in(corpora: list[Corpus], papers: int, seed: int = SEED) -> Corpus:
    pool = np.concatenate([corpus.vectors for corpus in corpora])
    rng = np.random.default_rng(seed)
    vectors = pool[rng.integers(len(pool), size=papers)] + rng.normal(0, 0.02, (papers, pool.shape[1]))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    scales, values = quantised(vectors)
    shipped = values.astype(np.float64) * scales.astype(np.float64)[:, None]
    rows = [{"id": f"scale:{i}", "title": f"paper {i}"} for i in range(papers)]
    return Corpus(rows, [""] * papers, vectors, shipped)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", type=Path)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/recommend/cache"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/recommend/speed"))
    parser.add_argument("--scale", type=Path, help="the build's vectors of scale_50k.jsonl (.npy)")
    parser.add_argument("--icml", action="store_true", help="ICML 2024's own vectors at 2,634 papers")
    args = parser.parse_args()
    embedder = CachedEmbedder(
        SentenceTransformerEmbedder(precision="float32"), EmbeddingCache(args.cache / CACHE_DATABASE)
    )
    labelled = [read_corpus(args.corpora / file, embedder) for file in SETS.values()]
    if args.icml:
        sites = {"ICML 2024 (2,634 papers)": read_corpus(args.corpora / "icml2024.jsonl", embedder)}
    else:
        sites = {"2,634 papers (stand-in vectors)": stand_in(labelled, 2634)}
    if args.scale:
        vectors = np.load(args.scale).astype(np.float32)
        scales, values = quantised(vectors)
        shipped = values.astype(np.float64) * scales.astype(np.float64)[:, None]
        rows = [{"id": f"scale:{i}", "title": f"paper {i}"} for i in range(len(vectors))]
        sites["50,000 (scale_50k vectors)"] = Corpus(rows, [""] * len(rows), vectors, shipped)
    else:
        sites["50,000 papers (stand-in vectors)"] = stand_in(labelled, 50_000)
    print(
        "| papers | first answer, 3 fresh contexts (ms) | fetched first | "
        "then, a new list of 5: median / max (ms) | fetched then, median |"
    )
    print("|---|---|---|---|---|")
    for name, corpus in sites.items():
        site = args.work / name.split()[0].replace(",", "")
        print(f"{name}: writing the site", flush=True)
        if not (site / "meaning" / "index.json").is_file():
            write_site(site, corpus, partitioned=len(corpus.rows) > 3500)
        # A site kept from an earlier run gets the script as it is now.
        shutil.copy(ASSETS_DIR / "javascripts" / "recommend.js", site / "javascripts" / "recommend.js")
        ids = [row["id"] for row in corpus.rows]
        result = measure(site, reader_lists(corpus.shipped, ids, RUNS + LISTS))
        print(
            f"| {name} | {' / '.join(map(str, result['first']))} | {result['first MB']} MB | "
            f"{result['then median']} / {result['then max']} | {result['then MB median']} MB |",
            flush=True,
        )


if __name__ == "__main__":
    main()

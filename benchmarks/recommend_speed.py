"""How long My list's recommendations take in Chromium (``paperRecommend.recommend``, 5 saved papers),
at ICML 2024's size (2,634 papers: one vector file, every paper scored) and at 50,000 papers (the
partitioned index search by meaning ships past 3,500 papers).

A reader here saves a random paper and 4 of its 50 nearest (readers save papers on one subject; the
clusters probed depend on it). "first" is a fresh browser context (empty cache): the files fetched,
the model trained, the list ranked; "then" is a new list of 5 in the same page (one more star).
Beside each wall-clock time, the page's main thread's CPU time meanwhile (Chromium's ``ThreadTime``
metric): the computing, which the other processes of a shared machine change much less.

- 2,634 papers: with ``--icml``, the build's vectors of ``icml2024.jsonl`` (the embedding cache,
  ``--cache``; embedded on a miss, slowly); without, stand-in vectors (below). Every paper is scored
  whatever its vector, so the time does not depend on which.
- 50,000: ``--scale VECTORS.npy`` (the build's vectors of ``scale_50k.jsonl``, as
  ``benchmarks/meaning_ivf.py`` reads them) if you have them; without, stand-in vectors: each paper
  takes the vector of a paper of the labelled corpora (``SETS``, from the cache) with Gaussian noise
  (σ 0.02 an axis), normalised again. The time depends on the index's layout (clusters of 200, the
  codes probed, the rows ranked exactly), which is the same; the stand-in's clusters are tighter than
  real ones.

With ``--baseline REV``, the script as it was at git revision REV is measured beside today's in the
same run (this machine is shared and its load changes by the minute): each fresh context and each list
is asked of both, taking turns at going first, and the answers are compared (a change for speed must
not change the ranking).

    PYTHONPATH=. HF_HUB_OFFLINE=1 python benchmarks/recommend_speed.py ../shared/corpora \\
        --cache /tmp/recommend/cache [--baseline REV]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from benchmarks.local_server import serving
from benchmarks.recommend_quality import SETS, Corpus, read_corpus, write_site
from generator.analysis.embed import SentenceTransformerEmbedder
from generator.cache.database import CACHE_DATABASE
from generator.cache.embeddings import CachedEmbedder, EmbeddingCache
from generator.site.meaning_index import quantised
from generator.site.output import ASSETS_DIR

if TYPE_CHECKING:
    from playwright.sync_api import CDPSession, Page

RUNS = 5
LISTS = 20
SEED = 0

ASK = """
async (saved) => {
  const bytes = window.paperRecommend.fetched.bytes;
  const started = performance.now();
  const found = await window.paperRecommend.recommend(saved, 20);
  return {
    ms: performance.now() - started,
    bytes: window.paperRecommend.fetched.bytes - bytes,
    found: found.map((f) => [f.id, f.closest]),
  };
}
"""
SCRIPT = "javascripts/recommend.js"
BASELINE_SCRIPT = "javascripts/recommend-baseline.js"
BASELINE_PAGE = "recommend-baseline.html"


def reader_lists(vectors: np.ndarray, ids: list[str], count: int, seed: int = SEED) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    lists = []
    for _ in range(count):
        first = int(rng.integers(len(vectors)))
        near = np.argsort(-(vectors @ vectors[first]))[1:51]
        lists.append([ids[first], *(ids[p] for p in rng.choice(near, 4, replace=False))])
    return lists


def write_page(site: Path, name: str, script: str) -> None:
    """A page ``name`` of ``site`` loading ``script`` (its address in the site)."""
    (site / name).write_text(
        f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><script src="{script}"></script>'
        "</body></html>",
        encoding="utf-8",
    )


def asked(tab: Page, session: CDPSession, saved: list[str]) -> dict:
    """One list asked: ``ASK``'s answer, with the page's main thread's CPU time meanwhile ("cpu ms"):
    on this shared machine the wall-clock time is mostly how busy the other processes are."""
    before = _thread_ms(session)
    answer = tab.evaluate(ASK, saved)
    answer["cpu ms"] = _thread_ms(session) - before
    return answer


def _thread_ms(session: CDPSession) -> float:
    metrics = session.send("Performance.getMetrics")["metrics"]
    return next(metric["value"] for metric in metrics if metric["name"] == "ThreadTime") * 1000


def measure(site: Path, lists: list[list[str]], pages: dict[str, str]) -> dict[str, dict]:
    """Each page's (name: the page) first answers (``RUNS`` fresh contexts) and the ``LISTS`` further
    lists asked in the first context, the pages taking turns at going first."""
    from playwright.sync_api import sync_playwright

    names = list(pages)
    firsts: dict[str, list[dict]] = {name: [] for name in names}
    thens: dict[str, list[dict]] = {name: [] for name in names}
    with serving(site) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        kept = {}
        for run in range(RUNS):
            for name in names[run % len(names) :] + names[: run % len(names)]:
                context = browser.new_context()
                tab = context.new_page()
                tab.goto(url + pages[name])
                session = context.new_cdp_session(tab)
                session.send("Performance.enable")
                firsts[name].append(asked(tab, session, lists[run]))
                if run == 0:
                    kept[name] = (tab, session)
                else:
                    context.close()
        for at, saved in enumerate(lists[RUNS:]):
            for name in names[at % len(names) :] + names[: at % len(names)]:
                thens[name].append(asked(*kept[name], saved))
        browser.close()
    results = {}
    for name in names:
        times = [then["ms"] for then in thens[name]]
        cpu = [then["cpu ms"] for then in thens[name]]
        results[name] = {
            "first": [round(first["ms"]) for first in firsts[name]],
            "first cpu": [round(first["cpu ms"]) for first in firsts[name]],
            "first MB": round(firsts[name][0]["bytes"] / 1e6, 2),
            "then median": round(statistics.median(times)),
            "then max": round(max(times)),
            "then cpu median": round(statistics.median(cpu)),
            "then cpu max": round(max(cpu)),
            "then MB median": round(statistics.median(then["bytes"] for then in thens[name]) / 1e6, 2),
            "answers": [answer["found"] for answer in firsts[name] + thens[name]],
        }
    return results


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
    parser.add_argument("--baseline", metavar="REV", help="also measure recommend.js as at git revision REV")
    args = parser.parse_args()
    embedder = CachedEmbedder(
        SentenceTransformerEmbedder(precision="float32"), EmbeddingCache.open(args.cache / CACHE_DATABASE)
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
    pages = {"now": "index.html"}
    if args.baseline:
        pages = {f"baseline ({args.baseline})": BASELINE_PAGE, **pages}
    print(f"load average before: {' / '.join(f'{load:.1f}' for load in os.getloadavg())}")
    print(
        f"| papers | script | first answer, {RUNS} fresh contexts (ms) | its main-thread CPU (ms) | "
        "fetched first | then, a new list of 5: median / max (ms) | its CPU: median / max (ms) | "
        "fetched then, median |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, corpus in sites.items():
        site = args.work / name.split()[0].replace(",", "")
        print(f"{name}: writing the site", flush=True)
        if not (site / "meaning" / "index.json").is_file():
            write_site(site, corpus, partitioned=len(corpus.rows) > 3500)
        # A site kept from an earlier run gets the script as it is now.
        shutil.copy(ASSETS_DIR / "javascripts" / "recommend.js", site / SCRIPT)
        if args.baseline:
            (site / BASELINE_SCRIPT).write_bytes(baseline_script(args.baseline))
            write_page(site, BASELINE_PAGE, BASELINE_SCRIPT)
        ids = [row["id"] for row in corpus.rows]
        results = measure(site, reader_lists(corpus.shipped, ids, RUNS + LISTS), pages)
        for script, result in results.items():
            print(
                f"| {name} | {script} | {' / '.join(map(str, result['first']))} | "
                f"{' / '.join(map(str, result['first cpu']))} | {result['first MB']} MB | "
                f"{result['then median']} / {result['then max']} | "
                f"{result['then cpu median']} / {result['then cpu max']} | {result['then MB median']} MB |",
                flush=True,
            )
        if args.baseline:
            before, after = (result["answers"] for result in results.values())
            same = sum(a == b for a, b in zip(before, after, strict=True))
            print(
                f"{name}: the same 20 and closest saved papers as the baseline: {same} of {len(after)} lists"
            )
    print(f"load average after: {' / '.join(f'{load:.1f}' for load in os.getloadavg())}")


def baseline_script(revision: str, name: str = "recommend.js") -> bytes:
    """The package's ``javascripts/NAME`` as it was at git revision ``revision`` (of the checkout this
    script runs from)."""
    path = (ASSETS_DIR / "javascripts" / name).resolve()
    top = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=path.parent, capture_output=True, text=True, check=True
    ).stdout.strip()
    return subprocess.run(
        ["git", "show", f"{revision}:{path.relative_to(top).as_posix()}"],
        cwd=top,
        capture_output=True,
        check=True,
    ).stdout


if __name__ == "__main__":
    main()

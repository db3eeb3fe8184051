"""Explore page speed in Chromium: how long a filter change takes to redraw at a whole conference.

A redraw is timed from the change event to the next frame after it (the filter, the list of the
first 100 matches, style and layout), in the page itself with performance.now(). Reported: the data
file's size, the first draw after loading the page, and the median, 95th percentile and worst redraw
over a mix of changes (topics, authors, keywords, venue, years, sorting, clearing).

Usage:
  python benchmarks/explore_speed.py --site SITE_DIR        a built site (e.g. scale.py --work DIR: DIR/site)
  python benchmarks/explore_speed.py CORPUS.jsonl [--work DIR]
      builds the corpus first with the tests' hashing embedder instead of the model (the keywords
      differ from a real build's, the data's shape does not: every paper, author and keyword)
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

REDRAW = """async ([selector, value]) => {
  const control = document.querySelector(selector);
  const started = performance.now();
  control.value = value;
  control.dispatchEvent(new Event(control.tagName === 'SELECT' ? 'change' : 'input', {bubbles: true}));
  await new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)));
  const explore = document.querySelector('.paper-explore');
  return [performance.now() - started, Number(explore.dataset.count), explore.paperDigestRedrawMs];
}"""


def build_site(corpus: Path, work: Path) -> Path:
    from generator.build import BuildRequest, build_digest
    from generator.progress import Reporter
    from generator.project.settings import load_settings
    from tests.browser_support import build_site_at
    from tests.conftest import FakeEmbedder

    settings = replace(load_settings(PROJECT_ROOT), cache_dir=work / "cache")
    request = BuildRequest((corpus,), work / "docs", None, "Explore benchmark")
    build_digest(settings, request, Reporter(quiet=True), FakeEmbedder())
    build_site_at(PROJECT_ROOT / "mkdocs.yml", request.docs_dir, work / "site", "http://127.0.0.1:1/")
    return work / "site"


def measure(site: Path, changes_per_kind: int, seed: int) -> dict:
    from tests.browser_support import SiteServer, launched_chromium

    data = json.loads((site / "assets" / "explore.json").read_text(encoding="utf-8"))
    rng = random.Random(seed)
    keyword_counts: dict[int, int] = {}
    for paper in data["papers"]:
        for keyword in paper[3]:
            keyword_counts[keyword] = keyword_counts.get(keyword, 0) + 1
    frequent = sorted(keyword_counts, key=keyword_counts.get, reverse=True)[: changes_per_kind * 3]
    years = sorted({p[6] for p in data["papers"] if p[6]})
    changes: list[tuple[str, str]] = []
    for _ in range(changes_per_kind):
        changes += [
            ('select[name="topic"]', str(rng.randrange(len(data["topics"]))) if data["topics"] else ""),
            ('input[name="author"]', rng.choice(data["authors"]) if data["authors"] else ""),
            ('input[name="author"]', ""),
            ('input[name="keyword"]', data["keywords"][rng.choice(frequent)] if frequent else ""),
            ('select[name="sort"]', rng.choice(["title", "year", ""])),
            ('select[name="year"]', str(rng.choice(years)) if years else ""),
            ('input[name="keyword"]', ""),
            ('select[name="topic"]', ""),
            ('select[name="year"]', ""),
        ]
    server = SiteServer(site)
    try:
        with launched_chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(server.origin + "/explore/")
            page.wait_for_selector(".paper-explore[data-count]", timeout=60_000)
            first_draw = page.evaluate("document.querySelector('.paper-explore').paperDigestRedrawMs")
            loaded = page.evaluate(
                "performance.getEntriesByType('resource')"
                ".find(e => e.name.endsWith('explore.json'))?.duration"
            )
            timings = []
            slowest = []
            for selector, value in changes:
                elapsed, count, script_ms = page.evaluate(REDRAW, [selector, value])
                timings.append(elapsed)
                slowest.append((elapsed, selector, value, count, script_ms))
    finally:
        server.close()
    timings.sort()
    raw = (site / "assets" / "explore.json").read_bytes()
    return {
        "papers": len(data["papers"]),
        "authors": len(data["authors"]),
        "keywords": len(data["keywords"]),
        "data_kb": len(raw) / 1e3,
        "data_gzip_kb": len(gzip.compress(raw)) / 1e3,
        "data_fetch_ms": loaded,
        "first_draw_ms": first_draw,
        "changes": len(timings),
        "median_ms": statistics.median(timings),
        "p95_ms": timings[int(0.95 * (len(timings) - 1))],
        "max_ms": timings[-1],
        "slowest": sorted(slowest, reverse=True)[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", nargs="?", type=Path)
    parser.add_argument("--site", type=Path, help="a built site to measure")
    parser.add_argument("--work", type=Path, help="where to build the corpus (default: a temporary folder)")
    parser.add_argument("--changes", type=int, default=10, help="changes of each kind (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    if arguments.site:
        site = arguments.site
    elif arguments.corpus:
        site = build_site(arguments.corpus, arguments.work or Path(tempfile.mkdtemp(prefix="explore-bench-")))
    else:
        parser.error("give a corpus or --site")
    facts = measure(site, arguments.changes, arguments.seed)
    print(
        f"Explore at {facts['papers']:,} papers "
        f"({facts['authors']:,} authors, {facts['keywords']:,} keywords): "
        f"assets/explore.json {facts['data_kb']:.0f} KB ({facts['data_gzip_kb']:.0f} KB gzipped), "
        f"fetched in {facts['data_fetch_ms']:.0f} ms from a local server"
    )
    print(f"first draw after loading the data: {facts['first_draw_ms']:.1f} ms")
    print(
        f"redraw after a filter change ({facts['changes']} changes): median {facts['median_ms']:.1f} ms, "
        f"95th percentile {facts['p95_ms']:.1f} ms, worst {facts['max_ms']:.1f} ms (target < 100 ms)"
    )
    for elapsed, selector, value, count, script_ms in facts["slowest"]:
        print(
            f"  {elapsed:6.1f} ms ({script_ms:.1f} ms in the script)  "
            f"{selector} = {value!r} -> {count} papers"
        )


if __name__ == "__main__":
    main()

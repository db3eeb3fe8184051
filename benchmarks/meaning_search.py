"""What search by meaning costs a reader, in Chromium, on a built site (the real one, or the page
sites ``search_relevance.py`` writes): the model's load time (fetch, compile, first run, with an empty
cache), the time from a query to its nearest papers once loaded, and the bytes fetched: the model and
runtime once, then per query (the vector and result files of the probed clusters).

    PYTHONPATH=. python benchmarks/meaning_search.py SITE_DIR [--queries 40] [--runs 3]

Queries: the paper titles' first words and some questions (the probe of IVF sites is chosen on
titles; these are not the build's own).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import statistics
import threading
from pathlib import Path

QUESTIONS = [
    "making transformers cheaper at inference",
    "why does Adam generalise worse than SGD",
    "robots learning from watching people",
    "privacy of training data in language models",
    "faster sampling for diffusion models",
    "graphs with millions of nodes",
    "uncertainty of a model's predictions",
    "learning without labels",
]

LOAD = """
async () => {
  const started = performance.now();
  await window.paperMeaning.ready();
  await window.paperMeaning.search('warm up', 10);
  const ms = performance.now() - started;
  const bytes = performance.getEntriesByType('resource')
    .filter(e => /\\/meaning\\/|onnxruntime-web/.test(e.name))
    .reduce((sum, e) => sum + (e.encodedBodySize || e.transferSize || 0), 0);
  return { ms, bytes, fetched: window.paperMeaning.fetched.bytes };
}
"""

QUERY = """
async (query) => {
  const before = window.paperMeaning.fetched.bytes;
  const started = performance.now();
  const results = await window.paperMeaning.search(query, 10);
  return { ms: performance.now() - started, bytes: window.paperMeaning.fetched.bytes - before,
           results: results.length };
}
"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:
        pass


def measure(site: Path, queries: list[str], runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    loads, per_query = [], []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"]
            )
            for _ in range(runs):
                context = browser.new_context()  # an empty cache each run
                tab = context.new_page()
                tab.goto(url)
                loads.append(tab.evaluate(LOAD))
                per_query += [tab.evaluate(QUERY, query) for query in queries]
                context.close()
            browser.close()
    finally:
        server.shutdown()
    index = json.loads((site / "meaning" / "index.json").read_text(encoding="utf-8"))
    first_of_run = [per_query[i] for i in range(0, len(per_query), len(queries))]
    return {
        "papers": index["papers"],
        "clusters": len(index["clusters"]),
        "probe": index["probe"],
        "load_ms": [round(load["ms"]) for load in loads],
        "load_bytes": loads[0]["bytes"],
        "query_ms_median": round(statistics.median(q["ms"] for q in per_query)),
        "query_ms_max": round(max(q["ms"] for q in per_query)),
        "query_bytes_max": max(q["bytes"] for q in per_query),
        "first_query_bytes": [q["bytes"] for q in first_of_run],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--queries", type=int, default=24)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    queries = list(QUESTIONS)
    papers = []
    for cluster in range(len(json.loads((args.site / "meaning" / "index.json").read_text())["clusters"])):
        papers += json.loads((args.site / "meaning" / f"papers-{cluster}.json").read_text(encoding="utf-8"))
    step = max(1, len(papers) // max(1, args.queries - len(queries)))
    queries += [" ".join(row[2].split()[:6]) for row in papers[::step]][: max(0, args.queries - len(queries))]
    print(json.dumps(measure(args.site, queries, args.runs), indent=1))


if __name__ == "__main__":
    main()

"""Search in the browser on a built digest: index size, and time from page load to first results.

Serves SITE_DIR on 127.0.0.1, opens the home page in headless Chromium (Debian's), and for a few
queries taken from papers' titles measures how long after the page's load event Material's search
shows results, typing as a reader would. Also reports the search index size, raw and gzipped, per
paper.

Usage: python benchmarks/search_speed.py SITE_DIR [--queries 5]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from tests.browser_support import (  # noqa: E402
    CHROMIUM_ARGS,
    VIEWPORT,
    SiteServer,
    block_third_parties,
    build_site_at,
    chromium_executable,
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("site", type=Path)
    parser.add_argument("--docs", type=Path, help="rebuild from this docs folder for the server's address")
    parser.add_argument("--queries", type=int, default=5)
    arguments = parser.parse_args()

    from playwright.sync_api import sync_playwright

    site: Path = arguments.site
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    server = SiteServer(site, not_found_page=site / "404.html")
    if arguments.docs:
        build_site_at(PROJECT_ROOT / "mkdocs.yml", arguments.docs, site, server.origin + "/")
    index = (site / "search" / "search_index.json").read_bytes()
    zipped = len(gzip.compress(index))
    print(f"papers {len(papers)}; search_index.json {len(index) / 1e6:.2f} MB, {zipped / 1e6:.2f} MB gzipped")
    print(
        f"  {len(index) / len(papers) / 1e3:.2f} KB raw, "
        f"{zipped / len(papers) / 1e3:.2f} KB gzipped per paper"
    )

    step = max(1, len(papers) // arguments.queries)
    queries = [
        " ".join(re.findall(r"[A-Za-z]{4,}", p["title"])[:4]) for p in papers[::step][: arguments.queries]
    ]
    timings = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
        for query in queries:
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            block_third_parties(page, server.origin)
            page.goto(server.origin + "/", wait_until="load")
            loaded = time.perf_counter()
            page.locator("input.md-search__input").click()
            page.locator("input.md-search__input").press_sequentially(query, delay=10)
            page.wait_for_selector(".md-search-result__item", timeout=60_000)
            first = time.perf_counter() - loaded
            page.locator("input.md-search__input").fill("")
            typed = time.perf_counter()
            page.locator("input.md-search__input").press_sequentially(query, delay=10)
            page.wait_for_selector(".md-search-result__item", timeout=60_000)
            again = time.perf_counter() - typed
            timings.append((query, first, again))
            context.close()
        browser.close()
    server.close()
    for query, first, again in timings:
        print(f"  {query!r}: first results {first:.2f}s after load; typed again {again:.2f}s")
    print(f"median first result after load: {sorted(t[1] for t in timings)[len(timings) // 2]:.2f}s")


if __name__ == "__main__":
    main()

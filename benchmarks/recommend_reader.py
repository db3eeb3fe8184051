"""How long a reader waits on My list for "Recommended for you": from opening the page (5 papers saved)
to the first recommendation drawn, in Chromium, with the reader's scripts (``reader.js``,
``recommend.js``) as they are now and as they were at git revision ``--baseline``, side by side in one
run (each fresh context takes its turn; this machine's load changes by the minute).

The page's own files come first (its HTML, Material's scripts, the list's data), then the
recommendations' script and the files it reads; ``--latency`` adds a round trip's delay to every request
(Chromium's network emulation), as a reader far from the host has, where requests waiting on each other
cost the most.

SITE is a built digest (``paper-digest build``'s ``site/``, e.g. the bundled one); it is not changed:
each variant is a copy of it (hard links) with its own two scripts.

    PYTHONPATH=. python benchmarks/recommend_reader.py site/ --baseline REV
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
from contextlib import ExitStack
from pathlib import Path

from benchmarks.local_server import serving
from benchmarks.recommend_speed import baseline_script
from generator.site.output import ASSETS_DIR

SCRIPTS = ("reader.js", "recommend.js")
SAVED = 5

# Saves the list before the page's scripts run, and notes when the first recommendation is drawn.
PREPARE = """
(() => {
  localStorage.setItem(%s, %s);
  new MutationObserver((_, observer) => {
    if (document.querySelector(".paper-recommended__list > li")) {
      window.benchmarkShown = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
})();
"""


def variant(site: Path, folder: Path, scripts: dict[str, bytes]) -> Path:
    """A copy of ``site`` (hard links) in ``folder`` with ``scripts`` (name: text) as its own files."""
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(site, folder, copy_function=os.link)
    for name, text in scripts.items():
        path = folder / "javascripts" / name
        path.unlink()
        path.write_bytes(text)
    return folder


def measure(folders: dict[str, Path], latency: float, runs: int) -> dict[str, list[float]]:
    """Each variant's milliseconds from navigation to the first recommendation, ``runs`` fresh contexts."""
    from playwright.sync_api import sync_playwright

    papers = json.loads((next(iter(folders.values())) / "papers.json").read_text(encoding="utf-8"))
    saved = [{"url": paper["url"], "title": paper["title"]} for paper in papers[:SAVED]]
    names = list(folders)
    times: dict[str, list[float]] = {name: [] for name in names}
    with ExitStack() as servers, sync_playwright() as playwright:
        roots = {name: servers.enter_context(serving(folder)) for name, folder in folders.items()}
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        for run in range(runs):
            for name in names[run % len(names) :] + names[: run % len(names)]:
                root = roots[name]
                context = browser.new_context()
                page = context.new_page()
                session = context.new_cdp_session(page)
                session.send("Network.enable")
                session.send(
                    "Network.emulateNetworkConditions",
                    {
                        "offline": False,
                        "latency": latency,
                        "downloadThroughput": -1,
                        "uploadThroughput": -1,
                    },
                )
                # reader.js keeps the list under the site's address (STORE).
                store = "paper-digest:saved:" + root
                page.add_init_script(PREPARE % (json.dumps(store), json.dumps(json.dumps(saved))))
                page.goto(root + "saved/")
                page.wait_for_function("() => window.benchmarkShown", timeout=60_000)
                times[name].append(page.evaluate("() => window.benchmarkShown"))
                context.close()
        browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a built digest's site folder")
    parser.add_argument("--baseline", metavar="REV", required=True, help="git revision to compare with")
    parser.add_argument("--latency", type=float, nargs="*", default=[0, 100], help="ms added a request")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--work", type=Path, default=Path("/tmp/recommend/reader"))
    args = parser.parse_args()
    folders = {
        f"baseline ({args.baseline})": variant(
            args.site,
            args.work / "baseline",
            {name: baseline_script(args.baseline, name) for name in SCRIPTS},
        ),
        "now": variant(
            args.site,
            args.work / "now",
            {name: (ASSETS_DIR / "javascripts" / name).read_bytes() for name in SCRIPTS},
        ),
    }
    print(f"load average before: {' / '.join(f'{load:.1f}' for load in os.getloadavg())}")
    print(
        "| latency a request | scripts | "
        f"first recommendation drawn (ms), {args.runs} fresh contexts: median (all) |"
    )
    print("|---|---|---|")
    for latency in args.latency:
        for name, times in measure(folders, latency, args.runs).items():
            print(
                f"| {latency:g} ms | {name} | {statistics.median(times):.0f} "
                f"({' / '.join(f'{time:.0f}' for time in times)}) |",
                flush=True,
            )
    print(f"load average after: {' / '.join(f'{load:.1f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()

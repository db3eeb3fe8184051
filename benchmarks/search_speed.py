"""Search in the browser on a built digest: index size on disk, time to the first result, bytes fetched.

Serves each SITE on 127.0.0.1 and, for a few queries taken from papers' titles, opens the home page
in a fresh headless Chromium context (Debian's; an empty cache, as a new reader), types the query
into the header's search box as a reader would (10 ms between keys) and measures:

- after typing: seconds from the last key to the first result on screen;
- after load: seconds from the page's load event to the first result (typing included);
- fetched: bytes of the search's own files (``search/``, ``workers/search``, ``pagefind/``) the page
  fetched from its load until the results were on screen (as served, and gzipped as GitHub Pages
  sends text files; Pagefind's files are already compressed): what one query costs a reader. Lunr
  fetches its whole index when the page loads, before any typing; Pagefind when the box is clicked;
- again: a second query in the same page (the index already loaded), seconds after typing.

Either engine is measured, whichever the site has: Pagefind (``pagefind/``, this version) or
Material's lunr search (``search/search_index.json``, up to version 0.2).

Sites to compare can be built here from a JSONL corpus: ``--corpus FILE --papers N --work DIR`` builds
the first N papers with this checkout, and with ``--lunr-from CHECKOUT`` the same docs again with
another checkout's site code (e.g. a worktree at main before Pagefind), for today's engine. These
builds use the tests' cheap hashing embedder (``tests.conftest.FakeEmbedder``), not the model: search
reads only the pages' text (titles, authors, abstracts), which the embedder does not change, and a
50,000-paper site then builds in minutes instead of an hour of embedding. Keywords, related papers
and topics come out worse, which does not matter to search (keyword and topic pages are not searched).

Larger sizes than a build here can reach in minutes (the analysis of 50,000 papers takes hours even
with the fake embedder: related papers are O(N²)) are measured on a grown site: ``--grow SITE
--corpus FILE --papers N --work DIR`` copies a built SITE and adds a paper page for each of the
corpus's first N papers, written from one of SITE's paper pages with its article replaced by the
paper's title, authors, venue and abstract (escaped, as the templates write them), then indexes it
again as a build does: Pagefind over the whole site (``generator.finish.search_index``), or for a lunr
site, entries in ``search_index.json`` shaped as Material's search plugin writes a paper page's. The
search engines read only that text, so what a query costs is measured on the corpus's real words;
the rest of the site (keywords, related papers, map) stays the smaller site's.

Usage:
  python benchmarks/search_speed.py SITE [SITE ...] [--queries 5]
  python benchmarks/search_speed.py --grow /tmp/search-icml/site --grow /tmp/search-icml/site-other \\
      --corpus ../shared/corpora/scale_50k.jsonl --papers 50000 --work /tmp/search-50k
  python benchmarks/search_speed.py --corpus ../shared/corpora/scale_50k.jsonl --papers 50000 \\
      --work /tmp/search-50k [--lunr-from ../main] [--queries 5]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from tests.browser_support import (  # noqa: E402
    CHROMIUM_ARGS,
    VIEWPORT,
    SiteServer,
    block_third_parties,
    chromium_executable,
)

SEARCH_INPUT = "input.md-search__input"
SEARCH_RESULT = ".md-search-result__item"
ANSWERED = f"{SEARCH_RESULT}, .md-search-result__meta:text-matches('^No matching')"
"""Results, or the word that there are none."""
TEXT_TYPES = (".json", ".js", ".html", ".css", ".xml")
SEARCH_FILES = re.compile(r"/search/|/workers/search|/pagefind/")


@dataclass(frozen=True)
class IndexSize:
    engine: str
    files: int
    size: int
    """Bytes on disk."""
    gzipped: int
    """Bytes as a server that gzips text sends them all (lunr's JSON; Pagefind's are compressed)."""


def index_size(site: Path) -> IndexSize:
    pagefind = site / "pagefind"
    if (pagefind / "pagefind-entry.json").is_file():
        files = [f for f in pagefind.rglob("*") if f.is_file()]
        return IndexSize("pagefind", len(files), sum(f.stat().st_size for f in files), sum(map(_sent, files)))
    lunr = site / "search" / "search_index.json"
    if lunr.is_file():
        return IndexSize("lunr", 1, lunr.stat().st_size, _sent(lunr))
    raise SystemExit(f"{site}: no search index (neither pagefind/ nor search/search_index.json)")


def _sent(file: Path) -> int:
    data = file.read_bytes()
    return len(gzip.compress(data, 6)) if file.suffix in TEXT_TYPES else len(data)


@dataclass(frozen=True)
class Timing:
    query: str
    after_typing: float
    after_load: float
    fetched: int
    fetched_gzipped: int
    again: float


def measure_queries(site: Path, queries: list[str]) -> list[Timing]:
    from playwright.sync_api import sync_playwright

    server = SiteServer(site, not_found_page=site / "404.html")
    timings = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_executable(), args=CHROMIUM_ARGS)
            for query in queries:
                timings.append(_one_query(browser, server.origin, query))
            browser.close()
    finally:
        server.close()
    return timings


def _one_query(browser, origin: str, query: str) -> Timing:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    block_third_parties(page, origin)
    fetched: list[tuple[int, int]] = []

    def count(response) -> None:
        url = response.url.split("?", 1)[0]
        if not SEARCH_FILES.search(url):
            return
        try:
            body = response.body()
        except Exception:  # a redirect or an aborted request has no body
            return
        fetched.append((len(body), len(gzip.compress(body, 6)) if url.endswith(TEXT_TYPES) else len(body)))

    page.on("response", count)
    page.goto(origin + "/", wait_until="load")
    loaded = time.perf_counter()
    page.wait_for_load_state("networkidle")
    box = page.locator(SEARCH_INPUT)
    box.click()
    box.press_sequentially(query, delay=10)
    typed = time.perf_counter()
    page.wait_for_selector(ANSWERED, timeout=300_000)
    if page.locator(SEARCH_RESULT).count() == 0:  # none for a part of the query, or none at all
        try:
            page.wait_for_selector(SEARCH_RESULT, timeout=10_000)
        except PlaywrightTimeout:
            raise SystemExit(f"no result for {query!r}") from None
    first = time.perf_counter()
    page.wait_for_timeout(300)  # the results' own fetches (Pagefind: one fragment per result shown)
    page.remove_listener("response", count)
    box.fill("")
    box.press("End")
    page.wait_for_timeout(300)
    box.press_sequentially(query, delay=10)
    typed_again = time.perf_counter()
    page.wait_for_selector(ANSWERED, timeout=300_000)
    again = time.perf_counter() - typed_again
    context.close()
    return Timing(
        query=query,
        after_typing=first - typed,
        after_load=first - loaded,
        fetched=sum(size for size, _ in fetched),
        fetched_gzipped=sum(zipped for _, zipped in fetched),
        again=again,
    )


def title_queries(site: Path, count: int) -> list[str]:
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    step = max(1, len(papers) // count)
    # Words a reader types: not the TeX of a title's formulas (the index holds them as text).
    words = [re.findall(r"[A-Za-z]{4,}", re.sub(r"\$[^$]*\$|\\\(.*?\\\)", " ", p["title"])) for p in papers]
    return [" ".join(title[:4]) for title in words[::step][:count]]


def report(site: Path, queries: int) -> None:
    papers = len(json.loads((site / "papers.json").read_text(encoding="utf-8")))
    size = index_size(site)
    print(
        f"{site} ({size.engine}, {papers:,} papers): index {size.size / 1e6:.2f} MB on disk in "
        f"{size.files:,} files, {size.gzipped / 1e6:.2f} MB gzipped ({size.gzipped / papers / 1e3:.2f} KB "
        "per paper)",
        flush=True,
    )
    timings = measure_queries(site, title_queries(site, queries))
    for t in timings:
        print(
            f"  {t.query!r}: first result {t.after_typing:.2f}s after typing ({t.after_load:.2f}s after "
            f"load), fetched {t.fetched / 1e3:,.0f} KB ({t.fetched_gzipped / 1e3:,.0f} KB gzipped); "
            f"again {t.again:.2f}s"
        )
    print(
        f"  median: {statistics.median(t.after_typing for t in timings):.2f}s after typing, "
        f"{statistics.median(t.after_load for t in timings):.2f}s after load, "
        f"{statistics.median(t.fetched_gzipped for t in timings) / 1e3:,.0f} KB gzipped per query "
        f"(max {max(t.fetched_gzipped for t in timings) / 1e3:,.0f} KB), "
        f"again {statistics.median(t.again for t in timings):.2f}s",
        flush=True,
    )


# --- building sites to compare ---------------------------------------------------------------


def build_sites(corpus: Path, papers: int, work: Path, lunr_from: Path | None) -> list[Path]:
    """This checkout's site of the first ``papers`` of ``corpus`` (fake embedder), and with
    ``lunr_from`` the same docs built by that checkout's site code."""
    from dataclasses import replace

    from generator.build import BuildRequest, build_digest
    from generator.progress import Reporter
    from generator.project.settings import load_settings
    from tests.conftest import FakeEmbedder

    work.mkdir(parents=True, exist_ok=True)
    source = work / "corpus.jsonl"
    with corpus.open(encoding="utf-8") as lines, source.open("w", encoding="utf-8") as out:
        for number, line in enumerate(lines):
            if number >= papers:
                break
            out.write(line)
    settings = replace(load_settings(PROJECT_ROOT), cache_dir=work / "cache")
    request = BuildRequest((source,), work / "docs", work / "site")
    started = time.perf_counter()
    build_digest(settings, request, Reporter(), FakeEmbedder())
    print(f"built {work / 'site'} in {time.perf_counter() - started:.0f}s", flush=True)
    sites = [work / "site"]
    if lunr_from is not None:
        sites.append(_build_with(lunr_from.resolve(), work))
    return sites


_OTHER_BUILD = """
import shutil, sys, time
from pathlib import Path
from generator.site.output import asset_files, build_site
docs, site, config = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
for folder in ("javascripts", "stylesheets"):
    shutil.rmtree(docs / folder, ignore_errors=True)
for relative, data in asset_files().items():
    (docs / relative).parent.mkdir(parents=True, exist_ok=True)
    (docs / relative).write_bytes(data)
shutil.rmtree(site, ignore_errors=True)
site.mkdir()
started = time.perf_counter()
build_site(config, docs, site)
print(f"built {site} with {sys.argv[4]} in {time.perf_counter() - started:.0f}s", flush=True)
"""


def _build_with(checkout: Path, work: Path) -> Path:
    """The docs built again by ``checkout``'s site code (its assets, hook, settings and MkDocs
    plugins), in a process of its own, with its own package first on the path."""
    docs, site = work / "docs-other", work / "site-other"
    shutil.rmtree(docs, ignore_errors=True)
    shutil.copytree(work / "docs", docs)
    command = [
        sys.executable,
        "-c",
        _OTHER_BUILD,
        str(docs),
        str(site),
        str(checkout / "mkdocs.yml"),
        str(checkout),
    ]
    subprocess.run(command, check=True, cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)})
    return site


# --- growing a built site ------------------------------------------------------------------------


def grow_site(site: Path, corpus: Path, papers: int, target: Path) -> Path:
    """A copy of ``site`` at ``target`` with a page per paper of the first ``papers`` of ``corpus``
    (replacing its own), indexed again with the site's engine."""
    import html as markup

    engine = index_size(site).engine
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(site, target)
    shutil.rmtree(target / "papers")
    template = next(iter(sorted((site / "papers").glob("*/index.html")))).read_text(encoding="utf-8")
    opening = template.index("<article")
    opening = template.index(">", opening) + 1
    closing = template.rindex("</article>")
    records, entries = [], []
    with corpus.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if number >= papers:
                break
            paper = json.loads(line)
            slug = f"{re.sub(r'[^a-z0-9]+', '-', paper['title'].lower())[:60].strip('-')}-{number:05d}"
            title, abstract = markup.escape(paper["title"]), markup.escape(paper["abstract"])
            authors = ", ".join(f"<span data-author>{markup.escape(a)}</span>" for a in paper["authors"])
            venue = markup.escape(paper.get("venue") or "")
            article = (
                f'\n<h1 id="{slug}">{title}<a class="headerlink" href="#{slug}" title="Permanent link">'
                f'&para;</a></h1>\n<p class="paper-meta" data-explore="../../explore/"><strong>Authors:'
                f"</strong> {authors}<br />\n<strong>Venue:</strong> <span data-venue>{venue}</span></p>"
                f"\n<p>{abstract}</p>\n"
            )
            page = target / "papers" / slug / "index.html"
            page.parent.mkdir(parents=True)
            page.write_text(template[:opening] + article + template[closing:], encoding="utf-8")
            records.append({"id": paper["id"], "title": paper["title"], "url": f"papers/{slug}/"})
            meta = f"Authors: {', '.join(map(markup.escape, paper['authors']))} Venue: {venue}"
            entries.append(
                {"location": f"papers/{slug}/", "title": title, "text": f"<p>{meta} ¶ {abstract}</p>"}
            )
    (target / "papers.json").write_text(json.dumps(records), encoding="utf-8")
    if engine == "pagefind":
        from generator.finish.search_index import write_search_index

        report = write_search_index(target)
        print(
            f"grew {target}: {len(records):,} papers; Pagefind indexed {report.pages:,} pages in "
            f"{report.seconds:.1f}s",
            flush=True,
        )
    else:
        index_file = target / "search" / "search_index.json"
        index = json.loads(index_file.read_text(encoding="utf-8"))
        index["docs"] = [e for e in index["docs"] if not e["location"].startswith("papers/")] + entries
        index_file.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        print(f"grew {target}: {len(records):,} papers in search_index.json", flush=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sites", type=Path, nargs="*")
    parser.add_argument("--queries", type=int, default=5)
    parser.add_argument("--corpus", type=Path, help="build sites from this JSONL corpus first")
    parser.add_argument("--grow", type=Path, action="append", help="with --corpus: grow this built site")
    parser.add_argument("--papers", type=int, default=50_000, help="with --corpus: its first N papers")
    parser.add_argument("--work", type=Path, help="with --corpus: where to build")
    parser.add_argument(
        "--lunr-from", type=Path, help="with --corpus: also build with this checkout's site code"
    )
    arguments = parser.parse_args()
    sites = list(arguments.sites)
    if arguments.corpus:
        if arguments.work is None:
            parser.error("--corpus needs --work")
        if arguments.grow:
            sites += [
                grow_site(site, arguments.corpus, arguments.papers, arguments.work / f"{site.name}-grown")
                for site in arguments.grow
            ]
        else:
            sites += build_sites(arguments.corpus, arguments.papers, arguments.work, arguments.lunr_from)
    if not sites:
        parser.error("give a SITE or --corpus")
    for site in sites:
        report(site, arguments.queries)


if __name__ == "__main__":
    main()

"""Old addresses in headless Chromium: after a rebuild in which one paper moved (its id was changed) and
one was removed, the moved paper's old address lands on its new page; the removed one's is a page of
the site like the others (its header, styles, font, colour scheme and footer), names the paper, links
it where the input gave a link, offers the search and goes home when asked, and is neither searched
nor in the sitemap; My list keeps the moved paper (its star lit on its new page) and shows the
removed one as gone, with nothing refused by the pages' Content-Security-Policy. Under /repo/, with
each engine."""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Request, expect

from generator.build import BuildRequest, build_digest
from generator.progress import Reporter
from generator.project.settings import Settings
from generator.site.search_text import SEARCHED
from generator.sources.identity import ADDRESS_RECORD
from tests.browser_support import (
    CONTENT,
    SiteServer,
    build_site_at,
    heading_text,
    open_tab,
    settle,
)
from tests.conftest import PROJECT_ROOT, SAMPLE_ABSTRACTS, FakeEmbedder

pytestmark = [pytest.mark.browser]

PAPERS = [
    {"id": f"paper-{i}", "title": f"Paper number {i} on {abstract.split()[2]}", "abstract": abstract}
    | ({"url": f"https://example.org/papers/{i}?v=1&full=yes"} if i == 3 else {})
    for i, abstract in enumerate(SAMPLE_ABSTRACTS)
]
LOOK = """() => {
  const body = getComputedStyle(document.body);
  return {
    font: body.fontFamily,
    colours: [body.color, body.backgroundColor],
    scheme: document.body.dataset.mdColorScheme,
    header: document.querySelector('header.md-header .md-header__topic')?.textContent.trim(),
    styles: [...document.querySelectorAll('link[rel=stylesheet]')].map(link => link.href),
    footer: document.querySelector('footer.md-footer') !== null,
    search: document.querySelector('.md-header .paper-search') !== null,
  };
}"""
"""How a page looks as a whole: what the removed paper's page must share with the home page."""


@contextmanager
def quiet_after(page: Page, quiet_ms: int = 500, timeout: float = 20.0) -> Iterator[None]:
    """Waits, after the block, until the page has had no request pending for ``quiet_ms``: Playwright's
    ``networkidle`` for instant navigation, which loads no page (leaving the page before the scripts
    it adds have arrived would abort them)."""
    pending: set[Request] = set()

    def started(request: Request) -> None:
        pending.add(request)

    def ended(request: Request) -> None:
        pending.discard(request)

    page.on("request", started)
    page.on("requestfinished", ended)
    page.on("requestfailed", ended)
    try:
        yield
        deadline = time.monotonic() + timeout
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < quiet_ms / 1000:
            if pending:
                quiet_since = time.monotonic()
            if time.monotonic() > deadline:
                raise TimeoutError(f"requests still pending: {[r.url for r in pending]}")
            page.wait_for_timeout(50)
    finally:
        page.remove_listener("request", started)
        page.remove_listener("requestfinished", ended)
        page.remove_listener("requestfailed", ended)


def _build(root: Path, papers: list[dict], served: Path, url: str, engine: str) -> dict[str, str]:
    """Build the digest of ``papers`` into ``served`` for ``url``; each paper's page address by id."""
    source = root / "abstracts" / "papers.jsonl"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    settings = Settings(project_root=root, cache_dir=Path("cache"))
    request = BuildRequest(
        (source,), root / "docs", None, "Moving papers", address_record=root / ADDRESS_RECORD
    )
    result = build_digest(settings, request, Reporter(quiet=True), FakeEmbedder())
    shutil.rmtree(served, ignore_errors=True)
    build_site_at(PROJECT_ROOT / "mkdocs.yml", root / "docs", served, url, engine)
    return {p.entry.paper.id: f"papers/{p.entry.slug}/" for p in result.digest.papers}


def test_old_addresses_lead_to_the_new_page_or_home_and_my_list_follows(
    chromium: Browser, tmp_path: Path, engine: str
) -> None:
    served = tmp_path / "served"
    served.mkdir()
    server = SiteServer(served)
    tab = open_tab(chromium, server.origin)
    page = tab.page
    try:
        url = f"{server.origin}/repo/"
        before = _build(tmp_path, PAPERS, served / "repo", url, engine)
        for paper_id in ("paper-1", "paper-3"):
            page.goto(url + before[paper_id])
            settle(page)
            page.locator(f"{CONTENT} .paper-actions .paper-star").click()

        moved = [
            {**p, "id": "paper-one"} if p["id"] == "paper-1" else p for p in PAPERS if p["id"] != "paper-3"
        ]
        after = _build(tmp_path, moved, served / "repo", url, engine)
        assert after["paper-one"] != before["paper-1"] and "paper-3" not in after
        assert all(after[i] == before[i] for i in after if i in before)
        assert not (served / "repo" / "sitemap.xml").read_text().count(before["paper-1"])

        page.goto(url + before["paper-1"])
        page.wait_for_url(url + after["paper-one"])
        settle(page)
        expect(page.locator(f"{CONTENT} h1")).to_contain_text("Paper number 1")
        expect(page.locator(f"{CONTENT} .paper-actions .paper-star")).to_have_attribute(
            "aria-pressed", "true"
        )

        removed = before["paper-3"]
        sitemap = (served / "repo" / "sitemap.xml").read_text()
        assert removed not in sitemap and after["paper-4"] in sitemap
        removed_html = (served / "repo" / removed / "index.html").read_text(encoding="utf-8")
        assert SEARCHED not in removed_html and '<meta name="robots" content="noindex">' in removed_html
        assert 'http-equiv="refresh"' not in removed_html
        for scheme, name in (("light", "default"), ("dark", "slate")):
            # A first visit in each of the system's schemes (Material keeps the one it chose).
            seen = open_tab(chromium, server.origin, color_scheme=scheme)
            try:
                looks = []
                for address in ("", removed):
                    seen.page.goto(url + address)
                    settle(seen.page)
                    looks.append(seen.page.evaluate(LOOK))
                home, look = looks
                assert look == home and look["scheme"] == name, (home, look)
                assert look["header"] and look["footer"] and look["search"], look
                # Material's system font stack, not the browser's default serif.
                assert "sans-serif" in look["font"], look
                assert seen.monitor.errors == []
            finally:
                seen.page.context.close()
        page.goto(url + removed)
        settle(page)
        assert heading_text(page) == "This paper is no longer in the digest"
        title = PAPERS[3]["title"]
        expect(page.locator(CONTENT)).to_contain_text(f"This page was the paper “{title}”.")
        assert "Paper Digest wrote" not in page.locator(CONTENT).inner_text()
        expect(page).to_have_title(re.compile(f"^No longer in the digest: {title} - Moving papers"))
        paper_link = page.locator(f"{CONTENT} a", has_text="https://example.org/papers/3")
        expect(paper_link).to_have_attribute("href", PAPERS[3]["url"])
        # The search is offered with the title's words typed in, and searches the digest.
        form = page.get_by_role("search", name="Search the digest")
        query = form.get_by_role("searchbox")
        expect(query).to_have_value(re.compile(r"^paper number on \w"))  # its address's words
        form.get_by_role("button", name="Search").click()
        results = page.locator(".paper-search .md-search-result__item > a")
        expect(results.first).to_be_visible()
        assert removed not in results.evaluate_all("links => links.map(a => a.href).join(' ')")
        page.keyboard.press("Escape")
        with quiet_after(page):
            page.get_by_role("link", name="Go to the home page").click()  # no timed refresh: the reader goes
            page.wait_for_url(url)

        page.goto(url + "saved/")
        settle(page)
        expect(page.locator(".paper-saved__list > li > a")).to_contain_text(["Paper number 1"])
        expect(page.locator(".paper-saved__gone-note")).to_have_text(
            "1 saved paper is no longer in this digest:"
        )
        gone = page.locator(".paper-saved__gone > li")
        expect(gone).to_have_count(1)
        expect(gone).to_contain_text("Paper number 3")
        gone.get_by_role("button", name="Remove").click()
        expect(gone).to_have_count(0)
        saved = page.evaluate(
            "Object.keys(localStorage).filter(k => k.startsWith('paper-digest:saved:'))"
            ".map(k => JSON.parse(localStorage.getItem(k)))"
        )
        assert [[item["url"] for item in items] for items in saved] == [[after["paper-one"]]]
        assert tab.monitor.errors == []
    finally:
        page.context.close()
        server.close()

"""Untrusted abstracts in a real browser: no injected script runs, no element from the input exists."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from generator.build import BuildRequest, build_digest
from generator.progress import Reporter
from generator.project.settings import load_settings
from tests.browser_support import (
    VIEWPORT,
    PageMonitor,
    SiteServer,
    block_third_parties,
    build_site_at,
    settle,
    wait_for_math,
)
from tests.conftest import PROJECT_ROOT, FakeEmbedder

pytestmark = [pytest.mark.browser]

# Each sets window.__pwned (or a DOM marker) if it ever runs or becomes markup.
HOSTILE_PAPERS = [
    {
        "id": "script",
        "title": "<script>window.__pwned='title'</script> Attacks on graph models",
        "authors": ["<img src=x onerror=\"window.__pwned='author'\">", "Eve <b>Bold</b>"],
        "abstract": "Graph neural networks are studied. <script>window.__pwned='abstract'</script> "
        "We show <iframe src=\"javascript:window.parent.__pwned='iframe'\"></iframe> attacks on graph "
        "neural networks and node classification. <!-- unclosed comment",
        "url": "javascript:window.__pwned='url'",
        "venue": "<svg onload=\"window.__pwned='venue'\">",
    },
    {
        "id": "links",
        "title": "Links [click](javascript:window.__pwned='title-link') for graph neural networks",
        "abstract": "Node classification with graph neural networks, see "
        "[here](javascript:window.__pwned='link') and "
        "![x](data:text/html,<script>window.__pwned='data'</script>) and <a href=# "
        "onclick=\"window.__pwned='a'\" id=injected-anchor>this</a>. {{ 7*7 }} {% raw %} "
        "Math stays math: $a < b$ and $x<script>window.__pwned='math'</script>$.",
        "url": "https://example.org/paper",
    },
    {
        "id": "yaml",
        "title": 'Broken\n---\ntitle: "injected"\nlayout: x',
        "abstract": "---\ntitle: injected\n---\nA study of node classification and message passing in graph "
        "neural networks with <details open ontoggle=\"window.__pwned='details'\">details</details>.",
    },
]


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory, engine: str) -> Iterator[tuple[str, Path]]:
    root = tmp_path_factory.mktemp("hostile")
    source = root / "hostile.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in HOSTILE_PAPERS), encoding="utf-8")
    settings = replace(load_settings(PROJECT_ROOT), cache_dir=root / "cache")
    request = BuildRequest((source,), root / "docs", None, "Hostile")
    build_digest(settings, request, Reporter(quiet=True), FakeEmbedder())
    site = root / "site"
    server = SiteServer(site, not_found_page=site / "404.html")
    try:
        build_site_at(PROJECT_ROOT / "mkdocs.yml", request.docs_dir, site, server.origin + "/", engine)
        yield server.origin, site
    finally:
        server.close()


def test_hostile_input_stays_text(chromium: Browser, hostile_site: tuple[str, Path]) -> None:
    origin, site = hostile_site
    records = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    context = chromium.new_context(viewport=VIEWPORT)
    page = context.new_page()
    monitor = PageMonitor(origin)
    monitor.attach(page)
    block_third_parties(page, origin)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        for url in ["", *(r["url"] for r in records)]:
            page.goto(f"{origin}/{url}")
            settle(page)
            article = page.locator("article.md-content__inner")
            # Every link (Zensical's theme puts its skip link's target, an <a> with no address and
            # nothing to show, in the article); an attribute of the input's is caught below anyway.
            for link in article.locator("a[href]").all():
                link.hover()  # no handler from the input may fire
            assert page.evaluate("window.__pwned") is None, url
            injected = page.evaluate(
                """() => [...document.querySelectorAll('article.md-content__inner *')]
                    .filter(e => {
                        const href = (e.getAttribute('href') || '').trim().toLowerCase();
                        const tag = e.tagName.toUpperCase();
                        return ['SCRIPT', 'IMG', 'IFRAME', 'SVG', 'DETAILS', 'B'].includes(tag)
                            || [...e.attributes].some(a => a.name.startsWith('on'))
                            || e.id === 'injected-anchor'
                            || href.startsWith('javascript:') || href.startsWith('data:');
                    })
                    .map(e => e.outerHTML.slice(0, 120))"""
            )
            assert injected == [], (url, injected)
        links_page = next(r for r in records if r["id"] == "links")
        page.goto(f"{origin}/{links_page['url']}")
        wait_for_math(page)
        text = page.locator("article.md-content__inner").inner_text()
        assert "{{ 7*7 }}" in text and "<a href=#" in text  # shown as text
        assert page.locator("article.md-content__inner mjx-container").count() >= 2
        yaml_page = next(r for r in records if r["id"] == "yaml")
        page.goto(f"{origin}/{yaml_page['url']}")
        assert "injected" not in page.title() or page.title().startswith("Broken")
        assert dialogs == []
        assert monitor.third_party == []
    finally:
        context.close()

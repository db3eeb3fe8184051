"""Accessibility of the built site, in Chromium: axe-core (Lighthouse's accessibility engine) finds no
violation on one page of every kind (home, papers with and without math, keyword and topic pages and
indexes, Explore, the map, My list with a saved paper, About, the 404 page, a removed paper's page, and
the home page with the search box open and answering), in the light and dark schemes, on a desktop
and on a 390x844 phone; the star buttons are touch targets of at least 24x24 CSS pixels; and MathJax
and the map's script load only on the pages that use them.

axe-core comes from npm: ``npm ci --prefix tests/axe`` (``.ci/run`` does it); without it the axe test
is skipped with that command. benchmarks/axe_audit.py runs the same audit on any digest, and
benchmarks/lighthouse_audit.py runs Lighthouse (benchmarks/notes/accessibility.md has the numbers).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.axe_support import AXE_INSTALL, VIEWS, audit, axe_source, page_kinds, with_redirect_pages
from tests.browser_support import CONTENT, open_tab, settle, wait_for_math, wait_until
from tests.test_browser import Site, _served_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MATHJAX = "assets/mathjax/tex-mml-chtml.js"
MAP_SCRIPT = "javascripts/map.js"
MAP_DRAWN = "() => Number(document.querySelector('.paper-map')?.dataset.drawn) > 0"


@pytest.fixture(scope="module")
def audited_site(
    bundled_build: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, engine: str
) -> Iterator[Site]:
    docs = with_redirect_pages(bundled_build["docs"], tmp_path_factory.mktemp(f"a11y-docs-{engine}") / "docs")
    server, built = _served_site(tmp_path_factory, docs, f"a11y-{engine}", "", engine)
    yield built
    server.close()


def test_axe_finds_no_violation_on_any_kind_of_page(chromium: Browser, audited_site: Site) -> None:
    source = axe_source()
    if source is None:
        pytest.skip(f"axe-core is not installed: {AXE_INSTALL}")
    kinds = page_kinds(audited_site.root)
    # Every kind the bundled digest has (it has no topic pages: its 57 papers fall into no topics).
    expected = {"home", "paper", "paper with math", "keyword", "keyword index", "topic index", "Explore"}
    assert expected | {"map", "My list", "About", "404", "removed paper"} <= set(kinds)
    findings = list(audit(chromium, audited_site.url, kinds, source))
    assert not findings, (
        f"{len(findings)} axe violations in {len(kinds) * len(VIEWS)} page views:\n"
        + "\n".join(map(str, findings))
    )


def test_the_stars_are_touch_targets_of_24_pixels_at_least(chromium: Browser, audited_site: Site) -> None:
    origin = audited_site.url.rstrip("/")
    tab = open_tab(chromium, origin, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        for address in ("", audited_site.papers[0]["url"]):
            tab.page.goto(audited_site.url + address)
            settle(tab.page)
            stars = tab.page.locator(f"{CONTENT} .paper-star")
            assert stars.count() > 0
            for index in range(min(stars.count(), 20)):
                box = stars.nth(index).bounding_box()
                assert box and box["width"] >= 24 and box["height"] >= 24, (address, index, box)
        assert not tab.monitor.errors
    finally:
        tab.page.context.close()


def test_mathjax_and_the_map_load_only_where_they_are_used(chromium: Browser, audited_site: Site) -> None:
    """Pages without math or the map fetch neither script; a page with math typesets it, on a direct
    load and after instant navigation from a page that had not fetched MathJax, and so does the map."""
    origin = audited_site.url.rstrip("/")
    math_paper = next(p for p in audited_site.papers if '"arithmatex"' in _page_html(audited_site, p["url"]))
    plain_paper = next(
        p for p in audited_site.papers if '"arithmatex"' not in _page_html(audited_site, p["url"])
    )
    tab = open_tab(chromium, origin)
    page = tab.page
    try:
        # (a derived title may hold math, and lists show titles: only pages without any are checked)
        plain = [
            a
            for a in ("", plain_paper["url"], "keywords/", "about/", "saved/")
            if not _has_math(audited_site, a)
        ]
        assert len(plain) >= 3, plain
        for address in plain:
            page.goto(audited_site.url + address)
            settle(page)
        fetched = [url for url in tab.monitor.requested if url.endswith((MATHJAX, MAP_SCRIPT))]
        assert not fetched, fetched

        # Instant navigation (Material's, no reload) from a page without math that links to a paper
        # with math: MathJax arrives and typesets it. Then on to the map: map.js arrives and draws.
        slug = math_paper["url"].rstrip("/").rsplit("/", 1)[-1]
        keyword_pages = [
            f"{path.parent.relative_to(audited_site.root)}/"
            for path in (audited_site.root / "keywords").glob("*/index.html")
        ]
        start = next(
            address
            for address in ("", *(p["url"] for p in audited_site.papers), *sorted(keyword_pages))
            if not _has_math(audited_site, address)
            and f'/{slug}/"' in _page_html(audited_site, address)  # a link to it
        )
        page.goto(audited_site.url + start)
        settle(page)
        page.evaluate("window.__digestMarker = 'home'")
        page.locator(f'{CONTENT} a[href$="/{math_paper["url"]}"]').first.click()
        page.wait_for_url(audited_site.url + math_paper["url"])
        wait_for_math(page)
        assert sum(url.endswith(MATHJAX) for url in tab.monitor.requested) == 1
        page.locator('nav a.md-nav__link[href$="map/"]').first.click()
        page.wait_for_url(audited_site.url + "map/")
        wait_until(page, MAP_DRAWN)
        assert sum(url.endswith(MAP_SCRIPT) for url in tab.monitor.requested) == 1
        assert page.evaluate("window.__digestMarker") == "home", "instant navigation fell back to a reload"

        # A direct load of a page with math typesets it too.
        page.goto(audited_site.url + math_paper["url"])
        wait_for_math(page)
        assert not tab.monitor.errors, tab.monitor.errors
    finally:
        page.context.close()


def _page_html(site: Site, url: str) -> str:
    return (site.root / url / "index.html").read_text(encoding="utf-8")


def _has_math(site: Site, url: str) -> bool:
    return '"arithmatex"' in _page_html(site, url)

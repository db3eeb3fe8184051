"""The bundled digest as a reader meets it: headless Chromium against the built site, served over HTTP.

The site is the bundled digest's generated docs (``bundled_build``) built by ``mkdocs build`` for the
address the test server gives it, as the Pages workflow builds it for its own address: Material's
instant navigation only takes over links listed in sitemap.xml, whose URLs come from ``site_url``.
Requests that would leave the test server are blocked, and recorded.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from generator.analysis.text import find_math_spans
from generator.model import Paper
from generator.sources import read_collection
from tests.browser_support import (
    CONTENT,
    HEADING,
    SEARCH_INPUT,
    SEARCH_RESULT,
    VIEWPORT,
    SiteServer,
    Tab,
    article_text,
    build_site_at,
    expect_heading,
    heading_text,
    open_search,
    open_tab,
    png_size,
    raw_math_left,
    search_for,
    settle,
    title_without_math,
    url_path,
    wait_for_math,
    wait_until,
)
from tests.conftest import PROJECT_ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CONFIG = PROJECT_ROOT / "mkdocs.yml"
ARTIFACTS = PROJECT_ROOT / "test-artifacts"
SCREENSHOTS = PROJECT_ROOT / "docs" / "screenshots"
SEARCH_HIT_RATE_REQUIRED = 0.9


@dataclass
class Site:
    url: str
    """Where the site's home page is served, ending in ``/``."""
    root: Path
    papers: list[dict]

    def record(self, paper_id: str) -> dict:
        return next(p for p in self.papers if p["id"] == paper_id)

    def record_at(self, url: str) -> dict:
        """The paper whose page is at ``url`` (absolute, or a path on the test server)."""
        path = url_path(url)
        return next(p for p in self.papers if path.endswith("/" + p["url"]))


def _served_site(
    tmp_path_factory: pytest.TempPathFactory, docs: Path, name: str, subpath: str, engine: str
) -> tuple[SiteServer, Site]:
    """Serve a new folder and build the digest's docs into it (under ``subpath`` if given) for the
    server's address, as the Pages workflow builds for the Pages address."""
    parent = tmp_path_factory.mktemp(name)
    folder = parent / (subpath or "site")
    server = SiteServer(parent if subpath else folder, not_found_page=folder / "404.html")
    url = f"{server.origin}/{subpath + '/' if subpath else ''}"
    try:
        build_site_at(CONFIG, docs, folder, url, engine)
        papers = json.loads((folder / "papers.json").read_text(encoding="utf-8"))
    except BaseException:
        server.close()
        raise
    return server, Site(url, folder, papers)


@pytest.fixture(scope="session")
def site(
    bundled_build: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, engine: str
) -> Iterator[Site]:
    """The bundled digest at the root of a local web server."""
    server, built = _served_site(
        tmp_path_factory, bundled_build["docs"], f"browser-root-{engine}", "", engine
    )
    yield built
    server.close()


@pytest.fixture(scope="session")
def pages_site(
    bundled_build: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, engine: str
) -> Iterator[Site]:
    """The bundled digest as GitHub Pages serves a project site: under /repo/, built with SITE_URL
    like .github/workflows/pages.yml, with the site's 404.html for missing paths."""
    server, built = _served_site(
        tmp_path_factory, bundled_build["docs"], f"browser-pages-{engine}", "repo", engine
    )
    yield built
    server.close()


def _open_tab(chromium: Browser, site: Site, color_scheme: str = "light") -> Tab:
    return open_tab(
        chromium, f"{urlsplit(site.url).scheme}://{urlsplit(site.url).netloc}", color_scheme=color_scheme
    )


@pytest.fixture
def tab(chromium: Browser, site: Site) -> Iterator[Tab]:
    opened = _open_tab(chromium, site)
    yield opened
    opened.page.context.close()


@pytest.fixture
def pages_tab(chromium: Browser, pages_site: Site) -> Iterator[Tab]:
    opened = _open_tab(chromium, pages_site)
    yield opened
    opened.page.context.close()


@pytest.fixture(scope="session")
def abstracts() -> list[Paper]:
    """The bundled inputs, read the way the build reads them."""
    return read_collection([PROJECT_ROOT / "abstracts"]).papers


@pytest.fixture(scope="session")
def math_papers(site: Site, abstracts: list[Paper]) -> list[dict]:
    """Records (from papers.json) of the bundled papers whose abstract has TeX math."""
    records = [site.record(p.id) for p in abstracts if find_math_spans(p.abstract)]
    assert records, "the bundled abstracts should include math"
    return records


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _assert_math_rendered(page: Page, where: str) -> list[str]:
    """Problems with the math on the current page (empty when every formula was typeset)."""
    problems = []
    left = raw_math_left(article_text(page))
    if left:
        problems.append(f"{where}: raw TeX left in the article: {left[:3]}")
    errors = page.locator(f"{CONTENT} mjx-merror").count()
    if errors:
        problems.append(f"{where}: {errors} formula(s) rendered as MathJax errors")
    return problems


# 1. Search by a phrase from an abstract


@pytest.mark.parametrize(
    "query",
    [
        "Delaunay triangulation",
        # Quoted, as a reader used to Material's search writes a phrase (every word is required).
        '"randomized Hadamard transform"',
        # "topics," ends at a comma in the abstract: words next to punctuation are found.
        '"diverse research topics"',
    ],
)
def test_search_finds_a_paper_by_a_phrase_from_its_abstract(
    tab: Tab, site: Site, abstracts: list[Paper], query: str
) -> None:
    page = tab.page
    phrase = _words(query)
    owners = [p for p in abstracts if " ".join(phrase) in " ".join(_words(p.abstract))]
    assert len(owners) == 1, f"{query} should be in exactly one abstract"
    expected = site.record(owners[0].id)
    if not query.startswith('"'):
        title_words = {w for p in site.papers for w in _words(p["title"])}
        assert not any(t.startswith(w) for w in phrase for t in title_words), "precondition: not in a title"

    page.goto(site.url)
    settle(page)
    open_search(page)
    page.locator(SEARCH_INPUT).press_sequentially(query, delay=20)
    first = page.locator(f"{SEARCH_RESULT} > a").first
    expect(first).to_have_attribute("href", re.compile("/" + re.escape(expected["url"]) + "$"))
    first.click()
    page.wait_for_url(lambda url: url_path(url).endswith("/" + expected["url"]))
    expect_heading(page, expected["title"])
    assert heading_text(page) == title_without_math(expected["title"])


# 2. Math


def test_math_is_rendered_on_every_paper_page(tab: Tab, site: Site, math_papers: list[dict]) -> None:
    page = tab.page
    problems = []
    for record in math_papers:
        page.goto(site.url + record["url"])
        wait_for_math(page)
        problems += _assert_math_rendered(page, record["url"])
        settle(page)
    assert problems == []
    assert tab.monitor.errors == []


def test_math_is_rendered_after_instant_navigation(tab: Tab, site: Site, math_papers: list[dict]) -> None:
    page = tab.page
    page.goto(site.url)
    settle(page)
    home_heading = heading_text(page)
    page.evaluate("window.__digestMarker = 'set on the home page'")
    problems = []
    for record in math_papers:
        page.locator(f'{CONTENT} a[href$="/{record["url"]}"]').first.click()
        page.wait_for_url(lambda url, record=record: url_path(url).endswith("/" + record["url"]))
        expect_heading(page, record["title"])
        wait_for_math(page)
        assert heading_text(page) == title_without_math(record["title"])
        problems += _assert_math_rendered(page, record["url"])
        assert page.evaluate("window.__digestMarker") == "set on the home page", "the page fully reloaded"
        page.go_back()
        expect(page.locator(HEADING)).to_contain_text(home_heading)
    assert page.evaluate("window.__digestMarker") == "set on the home page"
    assert problems == []
    assert tab.monitor.errors == []


# 3. Related papers and keywords


def test_related_paper_and_keyword_links_lead_to_real_pages(tab: Tab, site: Site) -> None:
    page = tab.page
    record = next(p for p in site.papers if _KEYWORD_LINK.search(_article_html(site, p["url"])))
    title = title_without_math(record["title"])
    page.goto(site.url + record["url"])
    settle(page)

    related = page.locator(f"{CONTENT} h2#related-papers + ol a").first
    target = site.record_at(related.get_attribute("href") or "")
    with page.expect_response(lambda r: url_path(r.url).endswith("/" + target["url"])) as response:
        related.click()
    assert response.value.status == 200
    page.wait_for_url(lambda url: url_path(url).endswith("/" + target["url"]))
    expect_heading(page, target["title"])
    assert heading_text(page) == title_without_math(target["title"])

    page.go_back()
    expect(page.locator(HEADING)).to_contain_text(title)
    keyword = page.locator(f'{CONTENT} a[href*="/keywords/"]').first
    keyword_text = keyword.inner_text().strip()
    keyword_href = keyword.get_attribute("href") or ""
    with page.expect_response(lambda r: url_path(r.url) == url_path(keyword_href)) as response:
        keyword.click()
    assert response.value.status == 200
    expect(page.locator(HEADING)).to_contain_text("Keyword:")
    assert heading_text(page) == f"Keyword: {keyword_text}"

    back_link = page.locator(f'{CONTENT} a[href$="/{record["url"]}"]')
    expect(back_link).to_have_count(1)
    back_link.click()
    page.wait_for_url(lambda url: url_path(url).endswith("/" + record["url"]))
    expect(page.locator(HEADING)).to_contain_text(title)
    assert tab.monitor.errors == []


# 4. Light and dark


def _scheme(page: Page) -> str | None:
    return page.locator("body").get_attribute("data-md-color-scheme")


def _background(page: Page) -> str:
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def test_palette_toggle_switches_between_light_and_dark(chromium: Browser, tab: Tab, site: Site) -> None:
    page = tab.page
    page.goto(site.url)
    settle(page)
    assert _scheme(page) == "default"
    light = _background(page)

    page.locator("form[data-md-component=palette] label:visible").click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    assert _background(page) != light
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")  # remembered

    page.locator("form[data-md-component=palette] label:visible").click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")
    assert _background(page) == light

    dark = _open_tab(chromium, site, color_scheme="dark")
    try:
        dark.page.goto(site.url)
        expect(dark.page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    finally:
        dark.page.context.close()


PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_header_icons_are_drawn_from_the_shared_icon_file(
    chromium: Browser, site: Site, math_papers: list[dict], color_scheme: str
) -> None:
    """The theme's icons live in one file under assets/icons/ (generator/finish/icons.py): each one the
    reader can see is drawn, at a desk and on a phone, in the text's colour of the scheme."""
    tab = _open_tab(chromium, site, color_scheme=color_scheme)
    page = tab.page
    try:
        for viewport in (VIEWPORT, PHONE):
            page.set_viewport_size(viewport)
            page.goto(site.url + math_papers[0]["url"])
            settle(page)
            drawn = """() => [...document.querySelectorAll("header svg > use")]
                .filter(use => use.closest("svg").getBoundingClientRect().width > 0)
                .map(use => [use.getAttribute("xlink:href"), use.getBBox().width])"""
            wait_until(page, f"({drawn})().every(([, width]) => width > 0)")
            visible = page.evaluate(drawn)
            assert len(visible) >= 2, visible  # the logo or the menu, the palette and search
            assert all("/assets/icons/" in href for href, _ in visible)
        assert tab.monitor.errors == []
        assert any("/assets/icons/" in url for url in tab.monitor.requested)
    finally:
        page.context.close()


# 5. Console and network


def test_pages_load_without_console_errors_or_failed_requests(
    tab: Tab, site: Site, math_papers: list[dict]
) -> None:
    page = tab.page
    for path in ("", math_papers[0]["url"], "keywords/"):
        response = page.goto(site.url + path)
        assert response is not None and response.status == 200, path
        if path == math_papers[0]["url"]:
            wait_for_math(page)
        settle(page)
    loaded = tab.monitor.requested
    assert not any("/pagefind/" in u for u in loaded), "the search index loads only for a search"
    assert any(".woff" in u for u in loaded), "the monitor saw MathJax's fonts"
    assert tab.monitor.errors == []
    assert tab.monitor.third_party == [], "a digest loads nothing from third parties"


# 6. Screenshots


def test_screenshots_of_home_and_a_paper_with_math(
    tab: Tab, site: Site, math_papers: list[dict], abstracts: list[Paper], engine: str
) -> None:
    page = tab.page
    ARTIFACTS.mkdir(exist_ok=True)
    page.goto(site.url)
    settle(page)
    page.evaluate("document.fonts.ready.then(() => true)")
    page.screenshot(path=ARTIFACTS / "home.png")

    abstract = {p.id: p.abstract for p in abstracts}
    paper = max(math_papers, key=lambda r: len(find_math_spans(abstract[r["id"]])))
    page.goto(site.url + paper["url"])
    wait_for_math(page)
    settle(page)
    page.evaluate("document.fonts.ready.then(() => true)")
    in_view = page.evaluate(
        """() => [...document.querySelectorAll('article.md-content__inner mjx-container')]
                 .filter(m => { const r = m.getBoundingClientRect();
                                return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight; }).length"""
    )
    assert in_view > 0, "the screenshot should show rendered math"
    page.screenshot(path=ARTIFACTS / "paper.png")

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name in ("home.png", "paper.png"):
        taken = ARTIFACTS / name
        assert png_size(taken) == (VIEWPORT["width"], VIEWPORT["height"])
        if engine != "mkdocs":  # the README shows the default engine's site
            shutil.copyfile(taken, ARTIFACTS / f"{engine}-{name}")
            continue
        kept = SCREENSHOTS / name
        if not kept.is_file() or kept.read_bytes() != taken.read_bytes():  # rendering is deterministic
            shutil.copyfile(taken, kept)
    assert tab.monitor.errors == []


# 7. Search serves the digest


def test_search_ranks_every_paper_first_for_its_title(
    tab: Tab, site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tab.page
    page.goto(site.url)
    settle(page)
    open_search(page)
    misses = []
    for record in site.papers:
        query = " ".join(re.findall(r"\w+", record["title"]))
        results = search_for(page, query)
        if not results or not url_path(results[0]).endswith("/" + record["url"]):
            misses.append(
                {"query": query, "expected": record["url"], "got": [url_path(u) for u in results[:3]]}
            )
    rate = 1 - len(misses) / len(site.papers)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "search-titles.json").write_text(
        json.dumps({"rate": rate, "papers": len(site.papers), "misses": misses}, indent=1) + "\n",
        encoding="utf-8",
    )
    with capsys.disabled():
        print(
            f"\nsearch: {len(site.papers) - len(misses)}/{len(site.papers)} titles rank their paper first "
            f"({rate:.0%})"
        )
    assert len(site.papers) == 57
    assert rate >= SEARCH_HIT_RATE_REQUIRED, misses


# 8. Published under a subpath, as GitHub Pages serves a project site


def test_site_under_a_subpath_resolves_pages_assets_and_search(pages_tab: Tab, pages_site: Site) -> None:
    page, monitor = pages_tab.page, pages_tab.monitor
    base_path = url_path(pages_site.url)
    assert base_path == "/repo/"

    response = page.goto(pages_site.url)
    assert response is not None and response.status == 200
    settle(page)
    page.evaluate("window.__digestMarker = 1")

    # A paper with math, by instant navigation (it needs sitemap.xml's URLs to match the address).
    paper = next(p for p in pages_site.papers if '"arithmatex"' in _page_html(pages_site, p["url"]))
    page.locator(f'{CONTENT} a[href$="/{paper["url"]}"]').first.click()
    page.wait_for_url(pages_site.url + paper["url"])
    expect_heading(page, paper["title"])
    wait_for_math(page)
    assert page.evaluate("window.__digestMarker") == 1, "instant navigation fell back to a full reload"
    assert heading_text(page) == title_without_math(paper["title"])

    # A keyword page, loaded directly.
    keyword_page = next((pages_site.root / "keywords").glob("*/index.html")).parent.name
    response = page.goto(f"{pages_site.url}keywords/{keyword_page}/")
    assert response is not None and response.status == 200
    assert heading_text(page).startswith("Keyword: ")
    settle(page)

    # Search, from the keyword page, for another paper's title.
    target = pages_site.papers[-1]
    open_search(page)
    results = search_for(page, " ".join(re.findall(r"\w+", target["title"])))
    assert results and url_path(results[0]) == base_path + target["url"]
    page.locator(f"{SEARCH_RESULT} > a").first.click()
    page.wait_for_url(lambda url: url_path(url) == base_path + target["url"])
    expect_heading(page, target["title"][:20])
    settle(page)

    loaded = monitor.requested
    for kind in (".css", ".js", ".woff", ".pagefind", ".pf_fragment", "sitemap.xml"):
        assert any(urlsplit(u).path.endswith(kind) for u in loaded), f"no {kind} was loaded"
    outside = [u for u in loaded if not url_path(u).startswith(base_path)]
    assert outside == [], "requests outside the site's folder"
    assert monitor.same_origin_errors() == []
    assert monitor.third_party == [], "a digest loads nothing from third parties"


def test_site_under_a_subpath_serves_its_404_page(pages_tab: Tab, pages_site: Site) -> None:
    page, monitor = pages_tab.page, pages_tab.monitor
    assert (pages_site.root / "404.html").is_file()
    missing = pages_site.url + "no/such/paper/"
    response = page.goto(missing)
    assert response is not None and response.status == 404
    settle(page)
    expect(page.locator("h1")).to_have_text("404 - Not found")
    # Styled and working: its CSS and scripts come from the site's folder, not the server's root.
    assert page.evaluate("getComputedStyle(document.querySelector('.md-header')).position") == "sticky"
    logo = page.locator("a.md-header__button.md-logo").get_attribute("href") or ""
    assert url_path(page.evaluate("href => new URL(href, location.href).href", logo)) == "/repo/"
    assert any(url_path(u).endswith(".css") for u in monitor.requested)
    assert [e for e in monitor.same_origin_errors() if not e.endswith(missing)] == []
    assert all(url_path(u).startswith("/repo/") for u in monitor.requested)


def _page_html(site: Site, url: str) -> str:
    return (site.root / url / "index.html").read_text(encoding="utf-8")


def _article_html(site: Site, url: str) -> str:
    return _page_html(site, url).split("<article", 1)[1].split("</article>", 1)[0]


_KEYWORD_LINK = re.compile(r'href="(?:\.\./)+keywords/[^"/]+/"')

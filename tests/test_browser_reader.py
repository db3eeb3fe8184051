"""What a reader does on a digest's pages, in headless Chromium: cite (BibTeX with its copy button, Google
Scholar tags), save (stars, My list, export and import), filter (Explore), follow (the Atom feed) and
scan search results; on a desktop and a phone, in light and dark, with hostile titles and names.

The digest is built from papers written here (authors, venues and years, which the bundled digest
lacks, plus tests/test_browser_hostile.py's hostile papers) with the hashing embedder, and built by
MkDocs twice into one server: under /repo/, as GitHub Pages serves a project site, and under /other/,
a second digest on the same host whose saved list must stay its own.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import bibtexparser
import feedparser
import pytest
from playwright.sync_api import Browser, Page, expect

from generator.build import BuildRequest, build_digest
from generator.model import TitledPaper
from generator.progress import Reporter
from generator.project.settings import load_settings
from generator.site.bibtex import bibtex_key
from generator.sources import read_collection
from tests.browser_support import (
    CONTENT,
    SEARCH_INPUT,
    SEARCH_RESULT,
    VIEWPORT,
    SiteServer,
    Tab,
    build_site_at,
    open_search,
    open_tab,
    settle,
    url_path,
    wait_for_answer,
    wait_for_math,
)
from tests.conftest import PROJECT_ROOT, SAMPLE_ABSTRACTS, FakeEmbedder
from tests.test_browser_hostile import HOSTILE_PAPERS

pytestmark = [pytest.mark.browser]

ARTIFACTS = PROJECT_ROOT / "test-artifacts"
SCREENSHOTS = PROJECT_ROOT / "docs" / "screenshots"
PHONE = {"width": 390, "height": 844}

LONG = (
    " We describe the experimental protocol, the datasets, the baselines and the ablations in detail,"
    " report the results with confidence intervals over five seeds, and discuss the limitations of"
    " the approach together with directions for future work on larger benchmarks."
)
PAPERS = [
    {
        "id": f"reader-{i}",
        "title": title,
        "authors": authors,
        "abstract": SAMPLE_ABSTRACTS[i % len(SAMPLE_ABSTRACTS)] + f" Study {i} of the setting." + LONG,
        "venue": venue,
        "year": year,
        "url": f"https://example.org/papers/{i}",
    }
    for i, (title, authors, venue, year) in enumerate(
        [
            (
                "GraphMix: semi-supervised node classification",
                ["Ada Lovelace", "Alan Turing"],
                "ICML 2024",
                2024,
            ),
            ("Oversmoothing in deep graph networks", ["Alan Turing"], "NeurIPS 2023", 2023),
            ("Controlled probability sampling for language models", ["Grace Hopper"], "ICML 2024", 2024),
            ("Reward-guided decoding", ["Grace Hopper", "Ada Lovelace"], "NeurIPS 2023", 2023),
            (
                "Momentum for convex optimization",
                ["Emmy Noether"],
                "Journal of Machine Learning Research",
                2022,
            ),
            (
                "Adaptive step sizes in smooth convex problems",
                ["Emmy Noether", "Alan Turing"],
                "ICML 2024",
                2024,
            ),
            ("Latent diffusion for image generation", ["Kurt Gödel"], "arXiv", 2024),
        ]
    )
] + [{**paper, "year": 2021} for paper in HOSTILE_PAPERS]
# The reader's own tags (a reference manager's), and one keyword in two spellings (issue 37).
PAPERS[0] |= {"tags": ["Unreviewed", "project A"], "keywords": ["deep-fake"]}
PAPERS[2] |= {"tags": ["Unreviewed"], "keywords": ["deepfake"]}
PAPERS[4] |= {"keywords": ["deepfake"]}


@dataclass
class Site:
    url: str
    """The digest's address, ending in /."""
    root: Path
    records: list[dict]

    def record(self, paper_id: str) -> dict:
        return next(r for r in self.records if r["id"] == paper_id)


@dataclass
class Sites:
    server: SiteServer
    repo: Site
    other: Site
    engine: str
    """The README's screenshots are the default engine's (``_shoot``)."""


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory, engine: str) -> Iterator[Sites]:
    root = tmp_path_factory.mktemp("reader")
    source = root / "reader.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in PAPERS), encoding="utf-8")
    settings = replace(load_settings(PROJECT_ROOT), cache_dir=root / "cache")
    request = BuildRequest((source,), root / "docs", None, "Reader <Digest>")
    build_digest(settings, request, Reporter(quiet=True), FakeEmbedder())
    served = root / "served"
    served.mkdir()
    server = SiteServer(served)
    try:
        built = {}
        for name in ("repo", "other"):
            url = f"{server.origin}/{name}/"
            build_site_at(PROJECT_ROOT / "mkdocs.yml", request.docs_dir, served / name, url, engine)
            records = json.loads((served / name / "papers.json").read_text(encoding="utf-8"))
            built[name] = Site(url, served / name, records)
        yield Sites(server, built["repo"], built["other"], engine)
    finally:
        server.close()


def _open(chromium: Browser, sites: Sites, viewport: dict | None = None, color_scheme: str = "light") -> Tab:
    return open_tab(
        chromium,
        sites.server.origin,
        viewport=viewport or VIEWPORT,
        color_scheme=color_scheme,
        accept_downloads=True,
        permissions=["clipboard-read", "clipboard-write"],
    )


@pytest.fixture
def tab(chromium: Browser, sites: Sites) -> Iterator[Tab]:
    opened = _open(chromium, sites)
    yield opened
    opened.page.context.close()


@pytest.fixture
def phone(chromium: Browser, sites: Sites) -> Iterator[Tab]:
    opened = _open(chromium, sites, viewport=PHONE, color_scheme="dark")
    yield opened
    opened.page.context.close()


def _shoot(page: Page, name: str, keep: bool = False, engine: str = "mkdocs") -> None:
    """A screenshot in the test artifacts (named after the engine but for the default one's), and,
    with ``keep``, the default engine's in the README's screenshots."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("document.fonts.ready.then(() => true)")
    name = name if engine == "mkdocs" else f"{engine}-{name}"
    page.screenshot(path=ARTIFACTS / name)
    if keep and engine == "mkdocs":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ARTIFACTS / name, SCREENSHOTS / name)


def _fits_the_screen(page: Page) -> bool:
    """Nothing makes the page scroll sideways (what sticks out is named in the failure)."""
    wider = page.evaluate(
        """() => document.scrollingElement.scrollWidth <= innerWidth + 1 ? [] :
            [...document.querySelectorAll('article *, .md-search-result *')]
              .filter(e => e.getBoundingClientRect().right > innerWidth + 1)
              .slice(0, 5).map(e => e.outerHTML.slice(0, 100))"""
    )
    assert wider == [], wider
    return True


def _no_markup_from_input(page: Page, where: str) -> None:
    """No element or handler from the hostile papers exists anywhere in the page, and none ran."""
    assert page.evaluate("window.__pwned") is None, where
    injected = page.evaluate(
        """() => [...document.querySelectorAll('article.md-content__inner *, head *')]
            .filter(e => ['IMG', 'IFRAME', 'DETAILS', 'B'].includes(e.tagName.toUpperCase())
                      || (e.tagName === 'SCRIPT' && /pwned/.test(e.textContent))
                      || [...e.attributes].some(a => a.name.startsWith('on'))
                      || (e.getAttribute('href') || '').trim().toLowerCase().startsWith('javascript:'))
            .map(e => e.outerHTML.slice(0, 120))"""
    )
    assert injected == [], (where, injected)


# 1. Cite


def test_bibtex_copies_and_parses_and_scholar_reads_the_meta_tags(tab: Tab, sites: Sites) -> None:
    page, site = tab.page, sites.repo
    inputs = {p.id: p for p in read_collection([sites.repo.root.parent.parent / "reader.jsonl"]).papers}
    for paper_id in ("script", "reader-4", "reader-6", "reader-0"):
        record = site.record(paper_id)
        paper = inputs[paper_id]
        page.goto(site.url + record["url"])
        settle(page)
        block = page.locator(f"{CONTENT} .paper-bibtex")
        expect(block).to_be_visible()
        block.hover()
        copy = block.locator("button[data-md-type=copy]")
        expect(copy).to_be_visible()
        copy.click()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.strip() == block.locator("code").inner_text().strip()
        library = bibtexparser.parse_string(copied)
        assert library.failed_blocks == []
        (entry,) = library.entries
        assert entry.key == bibtex_key(TitledPaper(paper, record["title"], False, ""))
        conference = paper_id in ("reader-0", "script")  # a venue that is no journal or preprint
        expected_type = "inproceedings" if conference else {"reader-4": "article"}.get(paper_id, "misc")
        assert entry.entry_type == expected_type, paper_id

        tags = page.eval_on_selector_all(
            "head meta[name^=citation_]", "tags => tags.map(t => [t.name, t.content])"
        )
        assert [value for name, value in tags if name == "citation_author"] == list(paper.authors)
        names = {name for name, _ in tags}
        assert "citation_title" in names and "citation_publication_date" in names
        assert ("citation_conference_title" in names) == conference
        assert ("citation_journal_title" in names) == (paper_id == "reader-4")
        if paper_id == "script":  # a hostile title and names are the tags' text, nothing more
            assert dict(tags)["citation_title"] == paper.title
            assert "<img" in copied and page.locator(f"{CONTENT} .paper-bibtex img").count() == 0
        _no_markup_from_input(page, record["url"])
    _shoot(page, "reader-cite.png", keep=True, engine=sites.engine)
    assert tab.monitor.errors == []


# 2. Save


def _star_count(page: Page) -> int:
    return page.locator(f'{CONTENT} .paper-star[aria-pressed="true"]').count()


def test_stars_survive_reload_and_navigation_and_my_list_exports_and_imports(
    tab: Tab, sites: Sites, tmp_path: Path
) -> None:
    page, site = tab.page, sites.repo
    page.goto(site.url)
    settle(page)
    page.evaluate("window.__digestMarker = 1")
    stars = page.locator(f"{CONTENT} li > .paper-star")
    assert stars.count() == len(PAPERS)
    for i in range(2):
        stars.nth(i).click()
    # The third from its own page, reached by instant navigation.
    third = page.locator(f"{CONTENT} li > a").nth(2)
    third_url = page.evaluate("href => new URL(href, location.href).href", third.get_attribute("href"))
    third.click()
    page.wait_for_url(third_url)
    page.locator(f"{CONTENT} .paper-actions .paper-star").click()
    expect(page.locator(f"{CONTENT} .paper-actions .paper-star")).to_have_attribute("aria-pressed", "true")
    page.reload()
    settle(page)
    expect(page.locator(f"{CONTENT} .paper-actions .paper-star")).to_have_attribute("aria-pressed", "true")

    page.goto(site.url)
    settle(page)
    assert _star_count(page) == 3
    page.evaluate("window.__digestMarker = 2")
    page.locator("nav.md-nav a", has_text="My list").first.click()
    page.wait_for_url(site.url + "saved/")
    expect(page.locator(".paper-saved__list > li")).to_have_count(3)
    assert page.evaluate("window.__digestMarker") == 2, "instant navigation fell back to a full reload"
    saved_titles = page.locator(".paper-saved__list > li > a").all_inner_texts()
    _shoot(page, "reader-my-list.png", keep=True, engine=sites.engine)

    with page.expect_download() as download:
        page.get_by_role("button", name="Export BibTeX").click()
    library = bibtexparser.parse_file(str(download.value.path()))
    assert len(library.entries) == 3 and library.failed_blocks == []
    with page.expect_download() as download:
        page.get_by_role("button", name="Export JSON").click()
    exported = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert exported["digest"] == site.url
    assert [p["title"] for p in exported["papers"]] == saved_titles
    kept = tmp_path / "my-papers.json"
    kept.write_text(json.dumps(exported), encoding="utf-8")

    # The other digest on this host has a list of its own.
    page.goto(sites.other.url + "saved/")
    expect(page.locator(".paper-saved__count")).to_contain_text("No saved papers")

    # Unstar everything here, then import the exported list back.
    page.goto(site.url + "saved/")
    expect(page.locator(".paper-saved__list > li")).to_have_count(3)
    while page.locator(".paper-saved__list .paper-star").count():
        page.locator(".paper-saved__list .paper-star").first.click()
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Import JSON").click()
    chooser.value.set_files(str(kept))
    expect(page.locator(".paper-saved__list > li")).to_have_count(3)
    expect(page.locator(".paper-saved__status")).to_contain_text("Imported 3 papers")
    assert page.locator(".paper-saved__list > li > a").all_inner_texts() == saved_titles
    assert tab.monitor.errors == []


def test_hostile_papers_stay_text_in_my_list_and_explore(tab: Tab, sites: Sites) -> None:
    page, site = tab.page, sites.repo
    page.goto(site.url)
    settle(page)
    for record in (site.record(p["id"]) for p in HOSTILE_PAPERS):
        page.locator(f'{CONTENT} li:has(a[href$="{record["url"]}"]) > .paper-star').click()
    page.goto(site.url + "saved/")
    expect(page.locator(".paper-saved__list > li")).to_have_count(len(HOSTILE_PAPERS))
    text = page.locator(".paper-saved").inner_text()
    assert "<script>window.__pwned='title'</script> Attacks on graph models" in text
    assert "<img src=x onerror=" in text
    _no_markup_from_input(page, "saved/")

    author = HOSTILE_PAPERS[0]["authors"][0]
    page.goto(site.url + record_link(site, "script"))
    settle(page)
    page.locator(f"{CONTENT} .paper-meta a", has_text=author).click()
    page.wait_for_url(re.compile(r"/explore/\?author="))
    expect(page.locator(".paper-explore")).to_have_attribute("data-count", "1")
    assert page.locator('input[name="author"]').input_value() == author
    # textContent, not innerText: the items are `content-visibility: auto`, and until Chromium has
    # laid them out once, innerText leaves them out.
    expect(page.locator(".paper-explore__results")).to_contain_text("<img src=x")
    _no_markup_from_input(page, "explore/")
    assert tab.monitor.errors == []


def record_link(site: Site, paper_id: str) -> str:
    return site.record(paper_id)["url"]


# 3. Filter


def _explore_count(page: Page) -> int:
    page.wait_for_selector(".paper-explore[data-count]")
    return int(page.locator(".paper-explore").get_attribute("data-count") or "-1")


def test_explore_filters_sorts_and_keeps_its_state_in_the_url(tab: Tab, sites: Sites) -> None:
    page, site = tab.page, sites.repo
    page.goto(site.url + "explore/?author=Alan+Turing&year=2024")
    settle(page)
    assert _explore_count(page) == 2  # Turing's 2024 papers: GraphMix, adaptive step sizes
    expect(page.locator(".paper-explore__count")).to_have_text(f"2 of {len(PAPERS)} papers")

    page.locator('select[name="year"]').select_option("")
    assert _explore_count(page) == 3
    assert parse_qs(urlsplit(page.url).query) == {"author": ["Alan Turing"]}
    page.locator('select[name="venue"]').select_option(label="NeurIPS 2023")
    assert _explore_count(page) == 1
    assert parse_qs(urlsplit(page.url).query) == {"author": ["Alan Turing"], "venue": ["NeurIPS 2023"]}

    page.locator(".paper-explore__clear").click()
    expect(page.locator(".paper-explore")).to_have_attribute("data-count", str(len(PAPERS)))
    assert urlsplit(page.url).query == ""
    page.locator('select[name="sort"]').select_option("title")
    titles = page.locator(".paper-explore__results > li > a").all_text_contents()
    assert len(titles) == len(PAPERS) and titles == sorted(titles, key=str.casefold)
    page.locator('select[name="sort"]').select_option("year")
    years = [site.record(r["id"])["id"] for r in site.records]  # every paper is listed
    assert len(page.locator(".paper-explore__results > li").all()) == len(years)

    # A shared link opens the same view; a topic filter narrows to that topic's papers.
    topic = page.locator('select[name="topic"] option').nth(1).inner_text()
    page.locator('select[name="topic"]').select_option(label=topic)
    shared = page.url
    count = _explore_count(page)
    members = sum(1 for r in site.records if r["topic"] == topic)
    assert count == members
    page.goto(shared)
    assert _explore_count(page) == members
    assert page.locator('select[name="topic"] option:checked').inner_text() == topic

    # Every author name and keyword on a paper page leads to its filtered view.
    page.goto(site.url + record_link(site, "reader-3"))
    settle(page)
    page.locator(f"{CONTENT} .paper-meta a", has_text="Grace Hopper").click()
    page.wait_for_url(re.compile(r"/explore/\?author=Grace\+Hopper$"))
    assert _explore_count(page) == 2
    # The README's "Explore, filtered by author".
    _shoot(page, "reader-explore.png", keep=True, engine=sites.engine)
    page.go_back()
    keyword_links = page.locator(f"{CONTENT} p", has=page.locator("strong", has_text="Keywords:")).locator(
        "a"
    )
    expect(keyword_links.first).to_be_visible()
    hrefs = keyword_links.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert hrefs and all("/keywords/" in h or "/explore/?keyword=" in h for h in hrefs)
    explore_links = [h for h in hrefs if "/explore/?keyword=" in h]
    if explore_links:
        page.locator(f'{CONTENT} a[href="{explore_links[0]}"]').click()
        page.wait_for_url(re.compile(r"/explore/\?keyword="))
        assert _explore_count(page) >= 1
    assert tab.monitor.errors == []


def test_tags_filter_explore_and_a_keyword_is_found_by_any_spelling(tab: Tab, sites: Sites) -> None:
    page, site = tab.page, sites.repo
    tagged = sum(1 for paper in PAPERS if "Unreviewed" in paper.get("tags", []))
    # A paper page lists the reader's tags apart from the keywords; each leads to Explore by tag.
    page.goto(site.url + record_link(site, "reader-0"))
    settle(page)
    tags = page.locator(f"{CONTENT} p", has=page.locator("strong", has_text="Tags:"))
    expect(tags).to_contain_text("Unreviewed · project A")
    authors_keywords = page.locator(f"{CONTENT} p", has=page.locator("strong", has_text="Authors' keywords:"))
    expect(authors_keywords).not_to_contain_text("Unreviewed")
    # The author's spelling, linked to the one page of the keyword however it is written.
    expect(authors_keywords.locator("a", has_text="deep-fake")).to_have_attribute(
        "href", re.compile(r"keywords/deepfake/$")
    )
    tags.locator("a", has_text="Unreviewed").click()
    page.wait_for_url(re.compile(r"/explore/\?tag=Unreviewed$"))
    assert _explore_count(page) == tagged == 2
    expect(page.locator('input[name="tag"]')).to_have_value("Unreviewed")
    page.locator('input[name="tag"]').fill("project a")  # as a keyword, a tag is found in any case
    page.locator('input[name="tag"]').dispatch_event("input")
    assert _explore_count(page) == 1
    # "deep-fake", as one author wrote it, finds the three papers of the keyword "deepfake".
    page.goto(site.url + "explore/?keyword=deep-fake")
    assert _explore_count(page) == 3
    page.goto(site.url + "keywords/deepfake/")
    expect(page.locator(CONTENT)).to_contain_text("Also written deep-fake")
    assert tab.monitor.errors == []


# 4. Follow


def test_feed_is_linked_from_every_page_and_valid(tab: Tab, sites: Sites) -> None:
    page, site = tab.page, sites.repo
    feeds = set()
    for path in ("", record_link(site, "reader-0"), "keywords/", "explore/", "saved/", "about/"):
        page.goto(site.url + path)
        settle(page)
        link = page.locator('head link[rel="alternate"][type="application/atom+xml"]')
        expect(link).to_have_count(1)
        feeds.add(page.evaluate("href => new URL(href, location.href).href", link.get_attribute("href")))
    assert feeds == {site.url + "feed.xml"}

    response = page.request.get(site.url + "feed.xml")
    assert response.status == 200
    headers = {"content-type": response.headers["content-type"], "content-location": site.url + "feed.xml"}
    feed = feedparser.parse(response.body(), response_headers=headers)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    assert len(feed.entries) == len(PAPERS)
    years = [int(e.updated[:4]) for e in feed.entries]
    assert years == sorted(years, reverse=True)
    hostile = next(e for e in feed.entries if "Attacks on graph models" in e.title)
    assert hostile.title == HOSTILE_PAPERS[0]["title"]  # the title as text
    assert [a.name for a in hostile.authors] == HOSTILE_PAPERS[0]["authors"]
    for entry in feed.entries[:3]:
        assert entry.link.startswith(site.url + "papers/")
        assert page.request.get(entry.link).status == 200
    assert tab.monitor.errors == []


# 5. Search results


def test_search_results_show_title_authors_and_a_short_excerpt(tab: Tab, sites: Sites) -> None:
    page, site = tab.page, sites.repo
    page.goto(site.url)
    settle(page)
    open_search(page)
    page.locator(SEARCH_INPUT).press_sequentially("oversmooths", delay=20)
    wait_for_answer(page, "oversmooths")
    first = page.locator(f"{SEARCH_RESULT} article").first
    expect(first.locator(".paper-search-excerpt mark")).to_have_count(1)
    excerpt = first.locator(".paper-search-excerpt").inner_text()
    assert len(excerpt) < 300 and "oversmooths" in excerpt
    abstract = next(p["abstract"] for p in PAPERS if p["id"] == "reader-1")
    assert len(excerpt) < len(abstract)
    assert first.locator("h1").inner_text() == site.record("reader-1")["title"]
    assert first.locator(".paper-search-authors").inner_text() == "Alan Turing"
    _shoot(page, "reader-search.png", keep=True, engine=sites.engine)

    # A formula in the abstract shows as plain text, not as TeX in its delimiters.
    box = page.locator(SEARCH_INPUT)
    box.fill("")
    box.press_sequentially("convergence rate", delay=20)
    wait_for_answer(page, "convergence rate")
    expect(page.locator(f"{SEARCH_RESULT} .paper-search-excerpt").first).to_be_visible()
    texts = page.locator(f"{SEARCH_RESULT} article").all_inner_texts()
    assert any("sqrt T" in t for t in texts), texts
    assert not any(re.search(r"\\[()\[\]]", t) for t in texts), texts
    assert tab.monitor.errors == []


# Phone, dark mode, subpath


def test_reader_pages_on_a_phone_in_dark_mode(phone: Tab, sites: Sites) -> None:
    page, site = phone.page, sites.repo
    assert url_path(site.url) == "/repo/"
    page.goto(site.url + record_link(site, "reader-4"))
    wait_for_math(page)
    settle(page)
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    page.locator(f"{CONTENT} .paper-actions .paper-star").click()
    assert _fits_the_screen(page)
    _shoot(page, "reader-paper-phone-dark.png", keep=True, engine=sites.engine)
    page.locator(f"{CONTENT} .paper-bibtex").scroll_into_view_if_needed()
    assert _fits_the_screen(page)
    _shoot(page, "reader-cite-phone-dark.png", engine=sites.engine)

    page.goto(site.url + "explore/?venue=ICML+2024")
    assert _explore_count(page) == 3
    assert _fits_the_screen(page)
    _shoot(page, "reader-explore-phone-dark.png", keep=True, engine=sites.engine)

    page.goto(site.url + "saved/")
    expect(page.locator(".paper-saved__list > li")).to_have_count(1)
    assert _fits_the_screen(page)
    _shoot(page, "reader-my-list-phone-dark.png", engine=sites.engine)

    page.goto(site.url)
    settle(page)
    page.locator("label.md-header__button[for=__search]").click()
    page.locator(SEARCH_INPUT).press_sequentially("diffusion", delay=20)
    wait_for_answer(page, "diffusion")
    expect(page.locator(f"{SEARCH_RESULT} .paper-search-excerpt").first).to_be_visible()
    assert _fits_the_screen(page)
    _shoot(page, "reader-search-phone-dark.png", engine=sites.engine)
    outside = [u for u in phone.monitor.requested if not url_path(u).startswith("/repo/")]
    assert outside == []
    assert phone.monitor.errors == [] and phone.monitor.third_party == []

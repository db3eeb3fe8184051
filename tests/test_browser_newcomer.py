"""What a newcomer with bare abstracts (a text file: no authors, venues, years, and too few papers
for topics) meets in the browser: Explore offers only what the papers have, the navigation and the
About page say nothing of topics, and a missing address offers search and the way home.

The digest is built with the hashing embedder and served under /repo/ with its 404.html for missing
paths, as GitHub Pages serves a project site.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from generator.build import BuildRequest, build_digest
from generator.progress import Reporter
from generator.project.settings import load_settings
from tests.browser_support import (
    CONTENT,
    SEARCH_INPUT,
    SEARCH_RESULT,
    SiteServer,
    Tab,
    build_site_at,
    open_tab,
    settle,
    url_path,
)
from tests.conftest import PROJECT_ROOT, SAMPLE_ABSTRACTS, FakeEmbedder, write_text_input

pytestmark = [pytest.mark.browser]

NAME = "Reading Group"
_WORDS = (  # noqa: SIM905 -- a sentence of words reads as one
    "sparse kernel bandit robust causal privacy quantum protein molecule audio speech vision "
    "retrieval ranking fairness federated pruning distillation tabular survival clinical weather "
    "traffic graph agent reward policy memory attention scaling benchmark compiler theorem proof"
).split()


def _unrelated_abstract(number: int) -> str:
    """A sentence of words chosen without any pattern: papers like these fall into no topics."""
    chosen = [_WORDS[(number * 7 + k * k * 3 + k) % len(_WORDS)] for k in range(12)]
    return f"We study {' '.join(chosen)} in setting {number} and report what we find about them."


ABSTRACTS = [SAMPLE_ABSTRACTS[0], *(_unrelated_abstract(n) for n in range(23))]
"""Enough papers for the test of structure (``generator.analysis.topics``), which they fail."""


@pytest.fixture(scope="module")
def bare_site(tmp_path_factory: pytest.TempPathFactory, engine: str) -> Iterator[tuple[str, Path]]:
    root = tmp_path_factory.mktemp("newcomer")
    source = write_text_input(root / "abstracts.txt", NAME, ABSTRACTS)
    settings = replace(load_settings(PROJECT_ROOT), cache_dir=root / "cache")
    request = BuildRequest((source,), root / "docs", None)
    digest = build_digest(settings, request, Reporter(quiet=True), FakeEmbedder()).digest
    assert not digest.topics, "the test needs a digest without topics"
    served = root / "served"
    server = SiteServer(served, not_found_page=served / "repo" / "404.html")
    try:
        url = f"{server.origin}/repo/"
        build_site_at(PROJECT_ROOT / "mkdocs.yml", request.docs_dir, served / "repo", url, engine)
        yield url, served / "repo"
    finally:
        server.close()


@pytest.fixture
def tab(chromium: Browser, bare_site: tuple[str, Path]) -> Iterator[Tab]:
    url = bare_site[0]
    opened = open_tab(chromium, url.split("/repo/")[0])
    yield opened
    opened.page.context.close()


def test_explore_shows_only_what_bare_abstracts_have(tab: Tab, bare_site: tuple[str, Path]) -> None:
    page = tab.page
    page.goto(bare_site[0] + "explore/")
    expect(page.locator(".paper-explore")).to_have_attribute("data-ready", "yes")
    labels = page.locator(".paper-explore__field > span").all_text_contents()
    assert labels == ["Keyword", "Sort by"]  # no Topic, Author, Venue, Track or Year
    sorts = page.locator(".paper-explore__field select[name=sort] option").all_text_contents()
    assert sorts == ["Digest order", "Title"]
    intro = page.locator(f"{CONTENT} p").first.inner_text()
    assert "by keyword." in intro and "author" not in intro and "year" not in intro
    # A link that names a facet the digest lacks filters to nothing, and breaks nothing.
    page.goto(bare_site[0] + "explore/?author=Ada+Lovelace")
    expect(page.locator(".paper-explore")).to_have_attribute("data-count", "0")
    page.locator(".paper-explore__clear").click()
    expect(page.locator(".paper-explore")).to_have_attribute("data-count", str(len(ABSTRACTS)))
    assert tab.monitor.same_origin_errors() == []


def test_navigation_and_about_say_nothing_of_topics(tab: Tab, bare_site: tuple[str, Path]) -> None:
    page = tab.page
    page.goto(bare_site[0] + "about/")
    settle(page)
    nav = page.locator(".md-nav--primary .md-nav__link").all_text_contents()
    nav = [" ".join(text.split()) for text in nav if text.strip()]
    assert "Papers" in nav and "Map" in nav and "About" in nav
    assert not any("Topic" in text for text in nav), nav
    about = page.locator(CONTENT).inner_text()
    assert "topic" not in about.lower() and "laid out on a map" in about
    # The topics page stays for old links, out of the navigation.
    assert (bare_site[1] / "topics" / "index.html").is_file()


def test_a_missing_address_offers_search_with_its_words_and_the_home_page(
    tab: Tab, bare_site: tuple[str, Path]
) -> None:
    page, url = tab.page, bare_site[0]
    missing = url + "papers/graphmix-semi-supervised-node-classification-c407fd/"
    response = page.goto(missing)
    assert response is not None and response.status == 404
    form = page.locator("form.paper-not-found")
    expect(form).to_be_visible()
    assert page.locator(".paper-star").count() == 0  # at a paper's address, but no paper to save
    query = form.locator("input")
    expect(query).to_have_value("graphmix semi supervised node classification")
    query.fill("graphmix")
    form.locator("button[type=submit]").click()
    expect(page.locator(SEARCH_INPUT)).to_have_value("graphmix")
    expect(page.locator(SEARCH_RESULT).first).to_be_visible()
    page.locator(f"{SEARCH_RESULT} > a").first.click()
    page.wait_for_url(re.compile(r"/repo/papers/"))
    expect(page.locator(f"{CONTENT} h1")).to_contain_text("GraphMix")

    # The way home works from any depth (the page's links are absolute).
    page.goto(url + "no/such/deep/page/")
    home = page.locator("a.paper-not-found__home")
    expect(home).to_have_text("Go to the home page")
    home.click()
    page.wait_for_url(lambda address: url_path(address) == "/repo/")
    expect(page.locator(f"{CONTENT} h1")).to_contain_text(NAME)
    # Nothing failed but the two missing addresses themselves (fetches a navigation cut short are not
    # counted by the monitor).
    missing_addresses = ("/no/such/deep/page/", "/graphmix-semi-supervised-node-classification-c407fd/")
    errors = tab.monitor.same_origin_errors()
    assert [e for e in errors if not any(address in e for address in missing_addresses)] == []

"""My list's "Recommended for you" in Chromium, on the bundled digest built with the real model: papers
starred on their pages bring recommendations to My list, each naming the saved paper it is closest
to, in the order the Python twin (``generator.site.recommendations``) gives over the site's own
vector file; starring a recommended paper or removing a star ranks them again."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from generator.site.recommendations import read_vectors, recommended
from tests.browser_support import CONTENT, Tab, open_tab, settle
from tests.test_browser import Site, site  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ITEMS = ".paper-recommended__list > li"
SHOWN = 20


@pytest.fixture
def tab(chromium: Browser, site: Site) -> Iterator[Tab]:  # noqa: F811
    parts = urlsplit(site.url)
    opened = open_tab(chromium, f"{parts.scheme}://{parts.netloc}")
    yield opened
    opened.page.context.close()


def _expected(site: Site, saved_ids: list[str]) -> list[tuple[str, str]]:  # noqa: F811
    """(address, closest saved paper's address) of each recommendation, from the site's files by the
    Python twin."""
    folder = site.root / "meaning"
    index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    ids = json.loads((folder / "ids.json").read_text(encoding="utf-8"))
    vectors = read_vectors((folder / "vectors-0.bin").read_bytes(), index["dimensions"])
    places = [ids.index(paper_id) for paper_id in saved_ids]
    address = {p["id"]: site.url + p["url"] for p in site.papers}
    return [(address[ids[r.place]], address[ids[r.closest]]) for r in recommended(vectors, places, SHOWN)]


def _shown(page: Page) -> list[tuple[str, str]]:
    """(address, closest saved paper's address) of each recommendation on the page."""
    pairs = page.eval_on_selector_all(
        ITEMS,
        """items => items.map(item => [
             item.querySelector(':scope > a').href,
             item.querySelector('.paper-recommended__because a').href])""",
    )
    return [(address, closest) for address, closest in pairs]


def _shows(page: Page, expected: list[tuple[str, str]], timeout: float = 20.0) -> bool:
    """Whether the recommendations come to be ``expected`` (they are ranked again after each star)."""
    deadline = time.monotonic() + timeout
    while _shown(page) != expected:
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(100)
    return True


def _star_on_its_page(page: Page, site: Site, paper: dict) -> None:  # noqa: F811
    page.goto(site.url + paper["url"])
    settle(page)
    star = page.locator(f"{CONTENT} .paper-actions .paper-star")
    star.click()
    expect(star).to_have_attribute("aria-pressed", "true")


def test_starred_papers_bring_recommendations_that_follow_the_stars(tab: Tab, site: Site) -> None:  # noqa: F811
    page = tab.page
    page.goto(site.url + "saved/")
    settle(page)
    expect(page.locator(".paper-saved__count")).to_contain_text("No saved papers")
    assert page.locator(".paper-recommended").is_hidden()

    first, second = site.papers[3], site.papers[30]
    for paper in (first, second):
        _star_on_its_page(page, site, paper)
    page.locator("nav.md-nav a", has_text="My list").first.click()
    page.wait_for_url(site.url + "saved/")
    heading = page.get_by_role("heading", name="Recommended for you")
    expect(heading).to_be_visible()
    expect(page.locator(ITEMS)).to_have_count(SHOWN)
    expected = _expected(site, [first["id"], second["id"]])
    assert _shows(page, expected), _shown(page)
    assert {closest for _, closest in expected} <= {site.url + first["url"], site.url + second["url"]}
    # Each names the saved paper by its title.
    because = page.locator(ITEMS).first.locator(".paper-recommended__because")
    expect(because).to_contain_text("Closest to your saved paper")
    assert because.locator("a").inner_text() in {
        page.locator(".paper-saved__list > li > a").nth(i).inner_text() for i in range(2)
    }
    # A list in a named region, each recommendation a link and a star button, reachable by keyboard.
    region = page.get_by_role("region", name="Recommended for you")
    assert region.get_by_role("list").count() == 1
    assert region.get_by_role("link").count() == 2 * SHOWN
    assert region.get_by_role("button").count() == SHOWN

    # Starring the first recommendation moves it to the list and ranks the rest again.
    third = site.record_at(expected[0][0])
    page.locator(ITEMS).first.locator(".paper-star").click()
    expect(page.locator(".paper-saved__list > li")).to_have_count(3)
    expected = _expected(site, [first["id"], second["id"], third["id"]])
    assert _shows(page, expected), _shown(page)
    assert site.url + third["url"] not in [address for address, _ in expected]

    # Removing a star (in the saved list) ranks them again from the two left.
    page.locator(".paper-saved__list > li").first.locator(".paper-star").click()
    expect(page.locator(".paper-saved__list > li")).to_have_count(2)
    expected = _expected(site, [second["id"], third["id"]])
    assert _shows(page, expected), _shown(page)
    assert site.url + first["url"] not in {closest for _, closest in expected}

    # The last star removed: no recommendations.
    while page.locator(".paper-saved__list .paper-star").count():
        page.locator(".paper-saved__list .paper-star").first.click()
    expect(page.locator(".paper-recommended")).to_be_hidden()
    assert tab.monitor.errors == []

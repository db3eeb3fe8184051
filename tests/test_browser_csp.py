"""The Content-Security-Policy in a real browser: every kind of page works under it without one
violation reported (math, the map, search and its worker, instant navigation, the 404 page, under
``/repo/`` too), and a script written into a built page is refused.

The kinds of page are found in the built site (its home, 404 page and every top-level folder of
pages), so a new kind of page is covered once it is built. Violations are watched two ways: the
``securitypolicyviolation`` events the page fires, and Chromium's console lines about the policy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page

from generator.finish.csp import inline_scripts
from tests.browser_support import (
    CONTENT,
    SEARCH_INPUT,
    VIEWPORT,
    PageMonitor,
    block_third_parties,
    expect_heading,
    settle,
    url_path,
    wait_for_answer,
    wait_for_math,
    wait_until,
)
from tests.test_browser import Site, _served_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

POLICY_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')
NOT_PAGES = {"assets", "javascripts", "stylesheets", "search"}
"""Top-level folders of the built site that hold no pages."""
MAP_DRAWN = "() => Number(document.querySelector('.paper-map')?.dataset.drawn) > 0"

RECORD_VIOLATIONS = """
document.addEventListener('securitypolicyviolation', event => window.__cspViolation({
  page: location.href, directive: event.violatedDirective, blocked: event.blockedURI,
  sample: event.sample, source: event.sourceFile, line: event.lineNumber,
}));
"""


@dataclass
class WatchedTab:
    page: Page
    monitor: PageMonitor
    violations: list[dict] = field(default_factory=list)
    """``securitypolicyviolation`` events and console lines about the policy, from every page."""

    def policy_problems(self) -> list[str]:
        return [json.dumps(v, sort_keys=True) for v in self.violations]


def _watched_tab(chromium: Browser, site: Site) -> WatchedTab:
    context: BrowserContext = chromium.new_context(viewport=VIEWPORT)
    context.set_default_timeout(20_000)
    parts = urlsplit(site.url)
    origin = f"{parts.scheme}://{parts.netloc}"
    monitor = PageMonitor(origin)
    tab = WatchedTab(context.new_page(), monitor)
    context.expose_function("__cspViolation", lambda violation: tab.violations.append(violation))
    context.add_init_script(RECORD_VIOLATIONS)

    def console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            tab.violations.append({"console": message.type, "text": message.text, "page": tab.page.url})

    tab.page.on("console", console)
    monitor.attach(tab.page)
    block_third_parties(tab.page, origin)
    return tab


@pytest.fixture(scope="module")
def root_site(
    bundled_build: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, engine: str
) -> Iterator[Site]:
    server, built = _served_site(tmp_path_factory, bundled_build["docs"], f"csp-root-{engine}", "", engine)
    yield built
    server.close()


@pytest.fixture(scope="module")
def repo_site(
    bundled_build: dict[str, Path], tmp_path_factory: pytest.TempPathFactory, engine: str
) -> Iterator[Site]:
    server, built = _served_site(
        tmp_path_factory, bundled_build["docs"], f"csp-pages-{engine}", "repo", engine
    )
    yield built
    server.close()


@pytest.fixture(params=["root", "repo"])
def served(request: pytest.FixtureRequest, engine: str) -> Site:
    # ``engine`` named here so that the tests are parametrized by it: the site asked for by name
    # below is built with it.
    return request.getfixturevalue(f"{request.param}_site")


@pytest.fixture
def watched(chromium: Browser, served: Site) -> Iterator[WatchedTab]:
    tab = _watched_tab(chromium, served)
    yield tab
    tab.page.context.close()


def page_kinds(site: Site) -> dict[str, str]:
    """One page of every kind in the built site, by kind: the home page, a paper with math, the
    first page of every top-level folder and of its first subfolder (a keyword's page beside the
    keyword index), and a missing page (the 404 page)."""
    kinds = {"home": ""}
    math_paper = next(p for p in site.papers if '"arithmatex"' in _html(site, p["url"]))
    kinds["paper with math"] = math_paper["url"]
    for folder in sorted(p for p in site.root.iterdir() if p.is_dir() and p.name not in NOT_PAGES):
        if (folder / "index.html").is_file():
            kinds[folder.name] = f"{folder.name}/"
        inner = sorted(p for p in folder.iterdir() if (p / "index.html").is_file())
        if inner:
            kinds[f"{folder.name}/…"] = f"{folder.name}/{inner[0].name}/"
    kinds["404"] = "no/such/page/"
    return kinds


def _html(site: Site, url: str) -> str:
    return (site.root / url / "index.html").read_text(encoding="utf-8")


def test_every_built_page_carries_the_policy_first_with_its_scripts_hashes(served: Site) -> None:
    pages = sorted(served.root.rglob("*.html"))
    # 57 papers, their keyword pages (4 since a paper shows fewer keywords rather than weak ones), lists
    # and the site's own pages
    assert len(pages) > 65
    for path in pages:
        html = path.read_text(encoding="utf-8")
        head = html.split("<head>", 1)[1].lstrip()
        assert head.startswith('<meta charset="utf-8"><meta http-equiv="Content-Security-Policy"'), path
        policy = POLICY_META.search(html)
        assert policy is not None and len(POLICY_META.findall(html)) == 1, path
        script_src = next(d for d in policy.group(1).split("; ") if d.startswith("script-src "))
        assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src
        for script in inline_scripts(html):
            assert script.source in script_src.split(), (path, script.text[:60])


def test_no_policy_violation_on_any_kind_of_page(watched: WatchedTab, served: Site) -> None:
    page = watched.page
    kinds = page_kinds(served)
    assert {"papers", "keywords", "topics", "map", "about"} <= {k.rstrip("/…") for k in kinds}, kinds
    visited = []
    for kind, path in kinds.items():
        response = page.goto(served.url + path)
        assert response is not None and response.status == (404 if kind == "404" else 200), kind
        if kind == "paper with math":
            wait_for_math(page)
        if kind == "map":
            wait_until(page, MAP_DRAWN)
        settle(page)
        assert page.evaluate(
            "() => !!document.querySelector('head > meta[http-equiv=\"Content-Security-Policy\"]')"
        ), kind
        visited.append(kind)
        assert watched.policy_problems() == [], f"on the {kind} page"
    assert watched.monitor.third_party == []
    assert [e for e in watched.monitor.errors if "404" not in e] == []


def test_search_and_instant_navigation_work_under_the_policy(watched: WatchedTab, served: Site) -> None:
    page = watched.page
    page.goto(served.url)
    settle(page)
    page.evaluate("window.__digestMarker = 'home'")

    # Search runs Pagefind's WebAssembly in a web worker: it must start and answer.
    target = served.papers[-1]
    page.locator(SEARCH_INPUT).click()
    query = " ".join(re.findall(r"\w+", target["title"]))
    page.locator(SEARCH_INPUT).press_sequentially(query, delay=10)
    wait_for_answer(page, query)  # Enter opens the first result of the whole query's answer
    assert any("/pagefind/pagefind-entry.json" in u for u in watched.monitor.requested)
    assert any(u.endswith("/pagefind/wasm.en.pagefind") for u in watched.monitor.requested)
    assert any(u.endswith("/pagefind/pagefind-worker.js") for u in watched.monitor.requested), "the worker"
    page.keyboard.press("Enter")  # opens the first result; the form is never submitted
    page.wait_for_url(lambda url: url_path(url).endswith("/" + target["url"]))
    expect_heading(page, target["title"][:20])

    # Instant navigation: a paper with math, then the map, without a reload; their scripts run.
    page.go_back()
    page.wait_for_url(served.url)
    settle(page)
    math_paper = next(p for p in served.papers if '"arithmatex"' in _html(served, p["url"]))
    page.locator(f'{CONTENT} a[href$="/{math_paper["url"]}"]').first.click()
    page.wait_for_url(lambda url: url_path(url).endswith("/" + math_paper["url"]))
    wait_for_math(page)
    page.locator('nav a.md-nav__link[href$="map/"]').first.click()
    page.wait_for_url(lambda url: url_path(url).endswith("/map/"))
    wait_until(page, MAP_DRAWN)
    settle(page)
    assert page.evaluate("window.__digestMarker") == "home", "instant navigation fell back to a reload"
    assert watched.policy_problems() == []
    assert watched.monitor.errors == []
    assert watched.monitor.third_party == []


def test_a_script_written_into_a_built_page_is_refused(chromium: Browser, repo_site: Site) -> None:
    """An escaping slip, simulated: an inline script, an event handler and a ``javascript:`` link
    written into a built paper page. Under its policy none runs; the same page without the policy
    runs them (so the test can tell)."""
    paper = next(p for p in repo_site.papers if '"arithmatex"' in _html(repo_site, p["url"]))
    html = _html(repo_site, paper["url"])
    injected = (
        "<script>window.__injected = (window.__injected || []).concat('inline')</script>"
        '<img src="data:," onerror="window.__injected = (window.__injected || []).concat(\'handler\')">'
        '<a id="injected-link" href="javascript:window.__injected = [\'link\']">link</a>'
    )
    assert html.count("</article>") == 1
    with_injection = html.replace("</article>", injected + "</article>")
    without_policy = POLICY_META.sub("", with_injection)
    for name, text in (("csp-injected", with_injection), ("csp-injected-no-policy", without_policy)):
        (repo_site.root / "papers" / name).mkdir(exist_ok=True)
        (repo_site.root / "papers" / name / "index.html").write_text(text, encoding="utf-8")

    tab = _watched_tab(chromium, repo_site)
    page = tab.page
    try:
        page.goto(repo_site.url + "papers/csp-injected/")
        wait_for_math(page)  # the site's own scripts run
        settle(page)
        page.locator("#injected-link").click()
        page.wait_for_timeout(200)
        assert page.evaluate("window.__injected") is None
        refused = {v.get("directive") for v in tab.violations}
        assert {"script-src-elem", "script-src-attr"} <= refused, tab.violations
        assert any(v.get("blocked") == "inline" for v in tab.violations)

        tab.violations.clear()
        page.goto(repo_site.url + "papers/csp-injected-no-policy/")
        settle(page)
        assert set(page.evaluate("window.__injected") or []) == {"handler", "inline"}
        assert tab.violations == []
    finally:
        page.context.close()

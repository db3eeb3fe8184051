"""axe-core, the accessibility engine of Lighthouse and of browsers' developer tools, run in Chromium
on a built site: one page of every kind, in the light and dark schemes, on a desktop and a phone.

axe-core comes from npm (``tests/axe/package.json`` pins it; ``npm ci --prefix tests/axe`` installs
it, as ``.ci/run`` does), or from the file named by ``AXE_CORE_JS``. Shared by the browser test
(``tests/test_browser_a11y.py``, which requires no violation) and ``benchmarks/axe_audit.py`` (which
counts them, for a site built elsewhere).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, Page

from generator.site.redirects import redirect_files
from generator.site.render import PageRenderer
from generator.sources.identity import PageNote, Redirect
from tests.browser_support import SEARCH_INPUT, block_third_parties, settle, wait_for_answer, wait_until

AXE_FOLDER = Path(__file__).with_name("axe")
AXE_INSTALL = "npm ci --prefix tests/axe"

VIEWS = {
    "desktop light": {"viewport": {"width": 1280, "height": 800}, "color_scheme": "light"},
    "desktop dark": {"viewport": {"width": 1280, "height": 800}, "color_scheme": "dark"},
    "phone light": {"viewport": {"width": 390, "height": 844}, "color_scheme": "light", "is_mobile": True},
    "phone dark": {"viewport": {"width": 390, "height": 844}, "color_scheme": "dark", "is_mobile": True},
}
"""How each kind of page is audited: Material follows ``prefers-color-scheme`` (the digest's palette
has a light and a dark scheme), and a 390x844 phone gets the drawer navigation and the narrow layout."""

REMOVED_PAPER = "removed-paper-a11y000"
MOVED_PAPER = "moved-paper-a11y000"


def axe_source() -> str | None:
    """axe-core's script, or ``None`` when it is not installed."""
    named = os.environ.get("AXE_CORE_JS")
    path = Path(named) if named else AXE_FOLDER / "node_modules" / "axe-core" / "axe.min.js"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def axe_version() -> str:
    package = AXE_FOLDER / "node_modules" / "axe-core" / "package.json"
    return json.loads(package.read_text(encoding="utf-8"))["version"] if package.is_file() else "?"


REMOVED_NOTE = PageNote("A removed paper on $\\alpha$-nets", False, "https://example.org/removed-paper")
"""What the removed paper's page was: a title with math, and a link to the paper."""


def with_redirect_pages(docs: Path, copy: Path, papers_dir: str = "papers") -> Path:
    """``copy``: a copy of the generated docs folder ``docs`` (its files linked, not copied) with the
    pages a build leaves at a removed paper's and a moved paper's old address (the bundled digest has
    none), written by the generator's own code, to be built like the rest."""
    shutil.copytree(docs, copy, copy_function=_linked)
    target = sorted(p.stem for p in (copy / papers_dir).glob("*.md"))[0]
    moves = [Redirect(REMOVED_PAPER, None, REMOVED_NOTE), Redirect(MOVED_PAPER, target)]
    files = redirect_files(moves, papers_dir) | PageRenderer().removed_paper_pages(moves)
    for relative, text in files.items():
        path = copy / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)  # a link to the original's file, which stays as it is
        path.write_text(text, encoding="utf-8")
    return copy


def _linked(source: str, destination: str) -> None:
    try:
        os.link(source, destination)
    except OSError:  # another file system
        shutil.copy2(source, destination)


def page_kinds(site: Path) -> dict[str, str]:
    """One page of every kind in the built site ``site``, by kind, as addresses relative to its root."""
    kinds = {"home": ""}
    papers = sorted(
        p for p in (site / "papers").iterdir() if (p / "index.html").is_file() and p.name != REMOVED_PAPER
    )
    papers = [p for p in papers if p.name != MOVED_PAPER]
    with_math = [p for p in papers if '"arithmatex"' in (p / "index.html").read_text(encoding="utf-8")]
    kinds["paper"] = f"papers/{papers[0].name}/"
    if with_math:
        kinds["paper with math"] = f"papers/{with_math[0].name}/"
    for folder, kind in (("keywords", "keyword"), ("topics", "topic")):
        if (site / folder / "index.html").is_file():
            kinds[f"{kind} index"] = f"{folder}/"
        inner = sorted(p.name for p in (site / folder).glob("*/") if (p / "index.html").is_file())
        if inner:
            kinds[kind] = f"{folder}/{inner[0]}/"
    for folder, kind in (("explore", "Explore"), ("map", "map"), ("saved", "My list"), ("about", "About")):
        if (site / folder / "index.html").is_file():
            kinds[kind] = f"{folder}/"
    kinds["404"] = "no/such/page/"
    if (site / "papers" / REMOVED_PAPER / "index.html").is_file():
        kinds["removed paper"] = f"papers/{REMOVED_PAPER}/"
    return kinds


@dataclass
class Finding:
    """One axe rule a page breaks, with the elements that break it."""

    kind: str
    view: str
    rule: str
    impact: str
    help: str
    targets: list[str]

    def __str__(self) -> str:
        shown = ", ".join(self.targets[:4]) + (" …" if len(self.targets) > 4 else "")
        where = f"{self.kind} ({self.view})"
        return f"{where}: {self.rule} [{self.impact}] {self.help}: {len(self.targets)} × {shown}"


def audit(
    chromium: Browser, site_url: str, kinds: dict[str, str], source: str, views: dict = VIEWS
) -> Iterator[Finding]:
    """axe's violations on each page of ``kinds`` in each of ``views``: the page loaded, its scripts
    settled (search, math, the map, the reader's lists drawn), then axe run on the whole document."""
    origin = site_url.split("/", 3)[:3]
    origin_text = "/".join(origin)
    for view, options in views.items():
        # bypass_csp: the site's policy refuses inline scripts, and axe is added as one.
        context = chromium.new_context(device_scale_factor=1, bypass_csp=True, **options)
        context.set_default_timeout(30_000)
        try:
            page = context.new_page()
            block_third_parties(page, origin_text)
            for kind, address in kinds.items():
                yield from _audited_page(page, site_url + address, kind, view, source)
                if kind == "home":
                    yield from _audited_search(page, view, source)
                if kind == "paper":
                    # My list, audited later, then shows a saved paper (and the star its pressed state).
                    page.locator(".paper-star").first.click()
        finally:
            context.close()


def _audited_page(page: Page, url: str, kind: str, view: str, source: str) -> Iterator[Finding]:
    page.goto(url)
    settle(page)
    if page.locator("span.arithmatex").count():
        wait_until(page, "() => document.querySelector('mjx-container') !== null")
    if page.locator(".paper-map").count():
        wait_until(page, "() => Number(document.querySelector('.paper-map')?.dataset.drawn) > 0")
    yield from _axe_findings(page, kind, view, source)


SEARCHED = "learning"
"""What the audit asks the search box: a word in many of any digest's papers, so results and their
matched words are shown."""


def _audited_search(page: Page, view: str, source: str) -> Iterator[Finding]:
    """The page already loaded, with its search box open and answering (on a phone, opened by the
    header's search button), as a reader sees it while searching."""
    opener = page.locator("label.md-header__button[for='__search']").first
    box = page.locator(f".paper-search {SEARCH_INPUT}")
    if opener.is_visible():  # a phone: the header shows the button, not the box
        opener.click()
    else:
        box.click()
    box.fill(SEARCHED)
    wait_for_answer(page, SEARCHED)
    yield from _axe_findings(page, "search results", view, source)


def _axe_findings(page: Page, kind: str, view: str, source: str) -> Iterator[Finding]:
    page.evaluate(source)
    result = page.evaluate(
        """async () => {
      const found = await axe.run(document, {resultTypes: ['violations']});
      return found.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                         targets: v.nodes.map(n => n.target.join(' '))}));
    }"""
    )
    for violation in result:
        yield Finding(
            kind, view, violation["id"], violation["impact"] or "", violation["help"], violation["targets"]
        )

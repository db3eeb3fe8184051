"""Helpers for the browser tests: a static file server that behaves like GitHub Pages, a recorder of
what a page logs and loads, and small waits for Material for MkDocs and MathJax."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Browser, ConsoleMessage, Page, Request, Response
from playwright.sync_api import Error as PlaywrightError

from generator.analysis.text import find_math_spans

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 800}


@contextlib.contextmanager
def launched_chromium() -> Iterator[Browser]:
    """Debian's Chromium under Playwright, with this machine's flags; skips the test if it is missing."""
    import pytest
    from playwright.sync_api import sync_playwright

    executable = chromium_executable()
    if executable is None:
        pytest.skip("Chromium not found: apt-get install chromium (the tests never use `playwright install`)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def chromium_executable() -> str | None:
    """Debian's Chromium (never a browser downloaded by ``playwright install``)."""
    for candidate in (os.environ.get("PAPER_DIGEST_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves files under ``directory``; a missing file gets ``not_found_page`` with status 404,
    as GitHub Pages does with a site's 404.html."""

    not_found_page: Path | None = None

    def __init__(self, *args, not_found_page: Path | None = None, **kwargs) -> None:
        self.not_found_page = not_found_page
        super().__init__(*args, **kwargs)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        if code != 404 or self.not_found_page is None or not self.not_found_page.is_file():
            super().send_error(code, message, explain)
            return
        body = self.not_found_page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # every test sees the files as built
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        pass


class SiteServer:
    """``http.server`` on 127.0.0.1 and a free port, in a background thread."""

    def __init__(self, root: Path, not_found_page: Path | None = None) -> None:
        handler = functools.partial(_Handler, directory=str(root), not_found_page=not_found_page)
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@contextlib.contextmanager
def environment(**values: str | None) -> Iterator[None]:
    """Set (or, with ``None``, remove) environment variables for the duration of the block."""
    saved = {name: os.environ.get(name) for name in values}
    try:
        for name, value in values.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def build_site_at(
    config_file: Path, docs_dir: Path, site_dir: Path, site_url: str, engine: str = "mkdocs"
) -> None:
    """The site of an already generated docs folder (rendered by ``engine``, then finished) for the
    address it will be served at, as the Pages workflow builds it: mkdocs.yml reads SITE_URL from
    the environment."""
    from generator.site_build import build_site

    with environment(SITE_URL=site_url, REPO_URL=None):
        build_site(config_file, docs_dir, site_dir, engine=engine)


@dataclass
class PageMonitor:
    """Everything a page reports that a reader would count as broken, plus every URL it requested."""

    origin: str
    errors: list[str] = field(default_factory=list)
    requested: list[str] = field(default_factory=list)
    third_party: list[str] = field(default_factory=list)
    responses: dict[str, int] = field(default_factory=dict)

    def attach(self, page: Page) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        page.on("requestfailed", self._failed)
        page.on("request", self._request)
        page.on("response", self._response)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            location = message.location.get("url", "") if message.location else ""
            self.errors.append(f"console error: {message.text} ({location})")

    def _failed(self, request: Request) -> None:
        # A request the browser gave up because the page moved on (a MathJax font still loading when
        # the test clicks a link) is net::ERR_ABORTED: nothing a reader sees fail, so not counted.
        # A refused, missing or broken file fails otherwise (its own error or an HTTP status).
        if request.url.startswith(self.origin) and request.failure != "net::ERR_ABORTED":
            self.errors.append(f"request failed: {request.url} ({request.failure})")

    def _request(self, request: Request) -> None:
        if request.url.startswith(self.origin + "/"):
            self.requested.append(request.url)
        elif not request.url.startswith(("data:", "blob:", "about:")):
            self.third_party.append(request.url)

    def _response(self, response: Response) -> None:
        self.responses[response.url] = response.status
        if response.status >= 400 and response.url.startswith(self.origin):
            self.errors.append(f"HTTP {response.status}: {response.url}")

    def same_origin_errors(self) -> list[str]:
        """Failed or 4xx/5xx requests to the site itself (console lines about them are left out)."""
        return [e for e in self.errors if e.startswith(("request failed", "HTTP"))]


def block_third_parties(page: Page, origin: str) -> None:
    """Abort every request that leaves the test server, so the tests never depend on the internet
    (the monitor still records that the request was made)."""
    page.context.route(
        lambda url: not url.startswith((origin + "/", "data:", "blob:")),
        lambda route: route.abort("blockedbyclient"),
    )


def settle(page: Page) -> None:
    """Wait until the page has loaded and stopped fetching (search index, fonts, sitemap)."""
    page.wait_for_load_state("networkidle")


CONTENT = "article.md-content__inner"
"""The page's own article (search results are articles too)."""
HEADING = f"{CONTENT} h1"

MATH_TYPESET = """() => {
  const spans = [...document.querySelectorAll('article.md-content__inner span.arithmatex')];
  return spans.length > 0 && spans.every(span => span.querySelector('mjx-container'));
}"""


def wait_until(page: Page, expression: str, arg: object = None, timeout: float = 20_000) -> None:
    """Wait until ``expression`` (JavaScript, a function of ``arg`` or an expression) is true in the page.

    Playwright's ``wait_for_function`` polls with a function it compiles from a string inside the
    page, which the site's Content-Security-Policy refuses (no ``'unsafe-eval'``) and reports as a
    violation. ``page.evaluate`` runs through the DevTools protocol, which the policy does not
    govern, so the waiting is done from here."""
    deadline = time.monotonic() + timeout / 1000
    while not _evaluated(page, expression, arg):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout / 1000:.0f} s for: {expression[:200]}")
        page.wait_for_timeout(50)


def _evaluated(page: Page, expression: str, arg: object) -> object:
    try:
        return page.evaluate(expression, arg)
    except PlaywrightError as error:
        if "context was destroyed" in str(error) or "navigat" in str(error):
            return False  # a page is loading: ask the next one
        raise


def wait_for_math(page: Page, timeout: float = 20_000) -> None:
    """Wait until MathJax has typeset every arithmatex span in the article."""
    wait_until(page, MATH_TYPESET, timeout=timeout)


def raw_math_left(text: str) -> list[str]:
    """TeX still in its delimiters, i.e. math MathJax did not render."""
    found = [text[start:end] for start, end in find_math_spans(text)]
    found += re.findall(r"\\[(\[].{0,40}", text)
    return found


def article_text(page: Page) -> str:
    """The article's text as a reader reads it, without the BibTeX entry (TeX source on purpose)."""
    return "\n".join(page.locator(f"{CONTENT} > :not(.paper-bibtex)").all_inner_texts())


def heading_text(page: Page) -> str:
    """The page's h1 as a reader sees it: without the ¶ permalink and without typeset math."""
    return page.locator(HEADING).first.evaluate(
        """h1 => {
          const copy = h1.cloneNode(true);
          copy.querySelectorAll('.headerlink, mjx-container, .arithmatex').forEach(e => e.remove());
          return copy.textContent.replace(/\\s+/g, ' ').trim();
        }"""
    )


def expect_heading(page: Page, title: str) -> None:
    """Wait until the page's h1, read as ``heading_text`` does, contains ``title`` without its math."""
    expected = title_without_math(title)
    wait_until(
        page,
        """expected => {
          const h1 = document.querySelector('article.md-content__inner h1');
          if (!h1) return false;
          const copy = h1.cloneNode(true);
          copy.querySelectorAll('.headerlink, mjx-container, .arithmatex').forEach(e => e.remove());
          return copy.textContent.replace(/\\s+/g, ' ').trim().includes(expected);
        }""",
        arg=expected,
    )


def title_without_math(title: str) -> str:
    pieces, last = [], 0
    for start, end in find_math_spans(title):
        pieces.append(title[last:start])
        last = end
    pieces.append(title[last:])
    return " ".join("".join(pieces).split())


def url_path(url: str) -> str:
    return urlsplit(url).path


SEARCH_INPUT = "input.md-search__input"
SEARCH_RESULT = ".md-search-result__item"


def open_search(page: Page) -> None:
    page.locator(SEARCH_INPUT).click()


def wait_for_answer(page: Page, query: str) -> None:
    """Wait until the search box shows its answer to the whole of ``query``, drawn: its count line
    records which query its results answer (``data-query``), so an answer to the first letters typed,
    or to the previous query, never passes for it."""
    wait_until(
        page,
        f"""query => {{
              const meta = document.querySelector('.md-search-result__meta');
              return meta?.dataset.query === query
                && (document.querySelectorAll('{SEARCH_RESULT}').length > 0
                    || /^No matching/.test(meta.textContent));
            }}""",
        query.strip(),
    )


def search_for(page: Page, query: str) -> list[str]:
    """Run one query through the search box and return the result links, best first (those of
    this query: the box is cleared first, and the answer to the whole query awaited)."""
    box = page.locator(SEARCH_INPUT)
    box.fill("")
    wait_until(page, f"document.querySelectorAll('{SEARCH_RESULT}').length === 0")
    box.fill(query)
    wait_for_answer(page, query)
    return page.eval_on_selector_all(f"{SEARCH_RESULT} > a", "links => links.map(a => a.href)")


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    if header[:8] != b"\x89PNG\r\n\x1a\n":
        raise AssertionError(f"{path} is not a PNG")
    width, height = struct.unpack(">II", header[16:24])
    return width, height


@dataclass
class Tab:
    """A page in its own browser context, with what it reports watched."""

    page: Page
    monitor: PageMonitor


def open_tab(chromium: Browser, origin: str, **context_options: object) -> Tab:
    """A new context (the desktop viewport, light scheme unless given) and page, watched by a
    ``PageMonitor`` and kept from any other origin than the test server's."""
    options = {"viewport": VIEWPORT, "color_scheme": "light", "device_scale_factor": 1, **context_options}
    context = chromium.new_context(**options)
    context.set_default_timeout(20_000)
    page = context.new_page()
    monitor = PageMonitor(origin)
    monitor.attach(page)
    block_third_parties(page, origin)
    return Tab(page, monitor)

"""``paper-digest serve``: a saved change rebuilds the site and reaches the served page; a bad edit is
shown on the page and the last good site stays; builds beside the preview take turns with it."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from generator.build import BuildRequest, build_digest
from generator.errors import DigestError
from generator.preview import (
    BANNER_CLASS,
    Preview,
    PreviewTarget,
    changed_files,
    describe_changes,
    file_states,
    parse_address,
    served_site_url,
    with_banner,
)
from generator.progress import Reporter
from generator.project.settings import Settings, load_settings
from generator.site.output import build_lock
from generator.sources.identity import ADDRESS_RECORD
from tests.conftest import PROJECT_ROOT, SAMPLE_ABSTRACTS, FakeEmbedder, write_text_input

NEW_ABSTRACT = (
    "We describe Quokkanet, a marsupial-inspired network for counting quokkas in aerial photographs "
    "of Rottnest Island, and show that Quokkanet counts quokkas better than people do."
)
NEW_WORD = "quokkas"  # in the new paper's derived title (the method's name may or may not lead it)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, timeout: float = 60) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def wait_for(condition: Callable[[], bool], timeout: float = 60, what: str = "") -> float:
    """Seconds until ``condition`` held."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"waited {timeout:.0f} s for {what or condition}")
        time.sleep(0.1)
    return time.monotonic() - start


def served_epoch(page: str) -> int:
    """The site version the live-reload script in a served page knows (``livereload(EPOCH, …)``)."""
    found = re.search(r"livereload\((\d+), \d+\);", page)
    assert found, "no live-reload script in the served page"
    return int(found[1])


@dataclass
class Running:
    preview: Preview
    origin: str
    source: Path
    settings: Settings
    request: BuildRequest
    terminal: io.StringIO

    def page(self, path: str = "") -> str:
        status, text = fetch(f"{self.origin}/{path}")
        assert status == 200, (status, path)
        return text


@pytest.fixture
def running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    """A preview of a small digest (the fake embedder), served on a free port in a thread."""
    yield from _running(tmp_path, monkeypatch, "mkdocs")


@pytest.fixture
def running_zensical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    """The same preview, the site rendered by Zensical (``serve --engine zensical``)."""
    yield from _running(tmp_path, monkeypatch, "zensical")


def _running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str) -> Iterator[Running]:
    monkeypatch.delenv("SITE_URL", raising=False)  # mkdocs.yml's local default then applies
    settings = replace(load_settings(PROJECT_ROOT), cache_dir=tmp_path / "cache", engine=engine)
    inputs = tmp_path / "abstracts"
    inputs.mkdir()
    source = write_text_input(inputs / "in.txt", "Test Digest", SAMPLE_ABSTRACTS)
    request = BuildRequest((inputs,), tmp_path / "out" / "docs", tmp_path / "out" / "site")
    terminal = io.StringIO()
    address = f"127.0.0.1:{free_port()}"
    preview = Preview(
        lambda: PreviewTarget(settings, request), Reporter(terminal, quiet=True), address, FakeEmbedder()
    )
    preview.start()
    thread = threading.Thread(target=preview.serve, daemon=True)
    thread.start()
    origin = f"http://{address}"
    wait_for(lambda: _answers(origin), 30, "the server to answer")
    try:
        yield Running(preview, origin, source, settings, request, terminal)
    finally:
        preview.shutdown()
        thread.join(timeout=10)
    assert not thread.is_alive()


def _answers(origin: str) -> bool:
    try:
        return fetch(origin + "/", timeout=5)[0] == 200
    except OSError:
        return False


def save(path: Path, abstracts: list[str]) -> None:
    """A save that a watcher polling modification times sees even within the same clock tick."""
    write_text_input(path, "Test Digest", abstracts)


def test_a_saved_edit_rebuilds_the_site_and_reloads_the_page(running: Running) -> None:
    first = running.page()
    assert NEW_WORD not in first
    # Served on a free port, not mkdocs.yml's 127.0.0.1:8000: the pages say where they really are
    # (Material's instant navigation follows only the addresses the sitemap names).
    assert f'<link rel="canonical" href="{running.origin}/"' in first
    sitemap = (running.request.site_dir / "sitemap.xml").read_text(encoding="utf-8")
    assert f"<loc>{running.origin}/</loc>" in sitemap and "127.0.0.1:8000" not in sitemap
    save(running.source, [*SAMPLE_ABSTRACTS, NEW_ABSTRACT])
    seconds = wait_for(lambda: NEW_WORD in running.page(), 30, "the new paper on the home page")
    assert seconds < 20
    # The open pages are told to reload (the site is swapped in a moment before they are told).
    wait_for(lambda: served_epoch(running.page()) > served_epoch(first), 10, "a new site version")
    later = running.page()
    # What the preview adds is added as the page is sent, never written into the site.
    built = (running.request.site_dir / "index.html").read_text(encoding="utf-8")
    assert NEW_WORD in built and "livereload(" not in built
    # The page's policy lets exactly that script run, by its hash.
    script = later.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    from generator.finish.csp import InlineScript

    assert InlineScript(script, 0).source in later.split("script-src", 1)[1].split(";", 1)[0]
    assert f"rebuilt after {running.source} changed in " in running.terminal.getvalue()
    assert "papers: site in" in running.terminal.getvalue()


def test_a_saved_edit_rebuilds_the_zensical_site_and_reloads_the_page(running_zensical: Running) -> None:
    running = running_zensical
    first = running.page()
    assert NEW_WORD not in first and "zensical" in first.lower()
    save(running.source, [*SAMPLE_ABSTRACTS, NEW_ABSTRACT])
    wait_for(lambda: NEW_WORD in running.page(), 60, "the new paper on the home page")
    wait_for(lambda: served_epoch(running.page()) > served_epoch(first), 10, "a new site version")
    built = (running.request.site_dir / "index.html").read_text(encoding="utf-8")
    assert NEW_WORD in built and "livereload(" not in built
    assert f"rebuilt after {running.source} changed in " in running.terminal.getvalue()


def test_pages_are_sent_while_a_rebuild_runs(running: Running, monkeypatch: pytest.MonkeyPatch) -> None:
    from generator import preview

    rebuilding = threading.Event()

    def slow_build(*arguments, **options):
        rebuilding.set()
        time.sleep(4)
        return build_digest(*arguments, **options)

    monkeypatch.setattr(preview, "build_digest", slow_build)
    epoch = served_epoch(running.page())
    save(running.source, [*SAMPLE_ABSTRACTS, NEW_ABSTRACT])
    wait_for(rebuilding.is_set, 30, "the rebuild to start")
    start = time.monotonic()
    meanwhile = running.page()
    assert time.monotonic() - start < 2  # not held back until the rebuild is done
    assert NEW_WORD not in meanwhile and served_epoch(meanwhile) == epoch  # the last site, told to reload
    wait_for(lambda: NEW_WORD in running.page(), 30, "the rebuilt site")
    wait_for(lambda: served_epoch(running.page()) > epoch, 10, "a new site version")


def test_a_bad_edit_is_shown_on_the_page_and_the_last_site_stays(running: Running) -> None:
    before = running.page()
    site_before = (running.request.site_dir / "index.html").read_bytes()
    added = running.source.with_name("more.csv")
    header = "title,abstract\n"
    added.write_text(header + 'Quokkanet,"' + NEW_ABSTRACT + "\n", encoding="utf-8")  # an unclosed quote
    wait_for(lambda: BANNER_CLASS in running.page(), 30, "the error banner")
    page = running.page()
    assert f"{added}:2: not a readable CSV row" in page
    assert page.count(BANNER_CLASS) == 1
    # The last good site, with the banner on it.
    listed = re.findall(r'<a href="papers/[^"]+/">', before)
    assert listed and all(link in page for link in listed) and "Quokkanet" not in page.split("</div>", 1)[1]
    assert (running.request.site_dir / "index.html").read_bytes() == site_before
    terminal = running.terminal.getvalue()
    assert f"error: {added}:2: not a readable CSV row" in terminal
    assert "the preview keeps serving the last site that built" in terminal
    assert BANNER_CLASS in running.page("about/")  # every page says so
    added.write_text(header + 'Quokkanet,"' + NEW_ABSTRACT + '"\n', encoding="utf-8")
    wait_for(lambda: BANNER_CLASS not in running.page(), 30, "the banner to go")
    assert "Quokkanet" in running.page()


def test_a_rebuild_due_while_another_build_runs_waits_for_it_and_the_server_answers(
    running: Running,
) -> None:
    with build_lock(running.request.docs_dir):  # another build holds the docs folder
        save(running.source, [*SAMPLE_ABSTRACTS, NEW_ABSTRACT])
        wait_for(lambda: "the preview rebuilds when it has finished" in running.terminal.getvalue(), 30)
        start = time.monotonic()
        assert NEW_WORD not in running.page()
        assert time.monotonic() - start < 5  # answered, not held back
    wait_for(lambda: NEW_WORD in running.page(), 30, "the rebuild after the other build finished")


def test_a_build_beside_the_preview_is_followed(running: Running) -> None:
    epoch = served_epoch(running.page())
    other = replace(running.request, name="Renamed Beside", wait_for_lock=True)
    answered: list[float] = []
    stop = threading.Event()

    def keep_asking() -> None:
        while not stop.is_set():
            start = time.monotonic()
            running.page("about/")
            answered.append(time.monotonic() - start)
            time.sleep(0.05)

    asker = threading.Thread(target=keep_asking, daemon=True)
    asker.start()
    try:
        build_digest(running.settings, other, Reporter(io.StringIO(), quiet=True), FakeEmbedder())
        # The preview reloads the open pages, rebuilding its own site (its name) over the other one.
        wait_for(lambda: served_epoch(running.page()) > epoch, 30, "the pages to be told to reload")
    finally:
        stop.set()
        asker.join(timeout=10)
    assert answered and max(answered) < 10
    assert "rebuilt after another build" in running.terminal.getvalue()
    assert "Traceback" not in running.terminal.getvalue()


def test_a_first_build_that_fails_serves_the_last_site_with_the_error(tmp_path: Path) -> None:
    settings = replace(load_settings(PROJECT_ROOT), cache_dir=tmp_path / "cache")
    source = write_text_input(tmp_path / "in.txt", "Test Digest", SAMPLE_ABSTRACTS)
    request = BuildRequest((source,), tmp_path / "docs", tmp_path / "site")
    address = f"127.0.0.1:{free_port()}"

    def preview() -> Preview:
        target = PreviewTarget(settings, request)
        return Preview(lambda: target, Reporter(io.StringIO(), quiet=True), address, FakeEmbedder())

    source.write_text("", encoding="utf-8")
    with pytest.raises(DigestError, match="file is empty"):  # no site yet: nothing to serve
        preview().start()
    write_text_input(source, "Test Digest", SAMPLE_ABSTRACTS)
    build_digest(settings, request, Reporter(io.StringIO(), quiet=True), FakeEmbedder())
    source.write_text("", encoding="utf-8")
    started = preview()
    try:
        started.start()
        assert started.failure is not None and "file is empty" in started.failure
    finally:
        started.shutdown()


def test_a_template_folder_made_while_serving_is_watched_and_used(tmp_path: Path) -> None:
    settings = replace(
        load_settings(PROJECT_ROOT),
        cache_dir=tmp_path / "cache",
        project_root=tmp_path,
        mkdocs_config=PROJECT_ROOT / "mkdocs.yml",
    )
    source = write_text_input(tmp_path / "in.txt", "Test Digest", SAMPLE_ABSTRACTS)
    request = BuildRequest((source,), tmp_path / "docs", tmp_path / "site")
    address = f"127.0.0.1:{free_port()}"
    target = PreviewTarget(settings, request)
    preview = Preview(lambda: target, Reporter(io.StringIO(), quiet=True), address, FakeEmbedder())
    preview.start()
    thread = threading.Thread(target=preview.serve, daemon=True)
    thread.start()
    try:
        wait_for(lambda: _answers(f"http://{address}"), 30, "the server to answer")
        templates = tmp_path / "site_templates"
        assert templates not in target.sources()
        templates.mkdir()
        (templates / "about.md.j2").write_text("# About\n\nA page of the owner's own.\n", encoding="utf-8")
        wait_for(
            lambda: "of the owner" in fetch(f"http://{address}/about/")[1], 60, "the owner's template in use"
        )
    finally:
        preview.shutdown()
        thread.join(timeout=10)


def test_an_address_in_use_is_refused_before_the_build(tmp_path: Path) -> None:
    settings = replace(load_settings(PROJECT_ROOT), cache_dir=tmp_path / "cache")
    source = write_text_input(tmp_path / "in.txt", "Test Digest", SAMPLE_ABSTRACTS)
    request = BuildRequest((source,), tmp_path / "docs", tmp_path / "site")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        target = PreviewTarget(settings, request)
        preview = Preview(lambda: target, Reporter(io.StringIO(), quiet=True), address, FakeEmbedder())
        with pytest.raises(DigestError, match=r"cannot serve on 127\.0\.0\.1"):
            preview.start()
    assert not (tmp_path / "site").exists()


def test_a_build_waits_for_the_lock_when_asked_to(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    told: list[str] = []
    entered = threading.Event()

    def second_build() -> None:
        with build_lock(docs, told.append):
            entered.set()

    with build_lock(docs):
        waiter = threading.Thread(target=second_build)
        waiter.start()
        wait_for(lambda: bool(told), 10, "the waiting message")
        assert not entered.is_set()
        assert told == [str(os.getpid())]
    waiter.join(timeout=10)
    assert entered.is_set()


def test_changes_are_found_and_named(tmp_path: Path) -> None:
    folder = tmp_path / "abstracts"
    folder.mkdir()
    (folder / "a.txt").write_text("a")
    (folder / "b.txt").write_text("b")
    before = file_states([folder])
    (folder / "a.txt").write_text("a, edited")
    (folder / "b.txt").unlink()
    (folder / "c.csv").write_text("c")
    changed = changed_files(before, file_states([folder]))
    assert [path.name for path in changed] == ["a.txt", "b.txt", "c.csv"]
    assert describe_changes(changed, tmp_path) == "abstracts/a.txt, abstracts/b.txt, abstracts/c.csv changed"
    assert describe_changes(changed, tmp_path, shown=1) == "abstracts/a.txt and 2 more changed"
    assert changed_files(before, before) == []


def test_a_preview_on_another_local_address_builds_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SITE_URL", raising=False)
    local = "http://127.0.0.1:8000/"
    assert served_site_url(local, ("127.0.0.1", 8000)) is None
    assert served_site_url(local, ("127.0.0.1", 8001)) == "http://127.0.0.1:8001/"
    assert served_site_url("http://localhost:8000/digest/", ("::1", 9000)) == "http://[::1]:9000/digest/"
    assert served_site_url("https://owner.github.io/repo/", ("127.0.0.1", 8001)) is None
    assert served_site_url(None, ("127.0.0.1", 8001)) is None
    monkeypatch.setenv("SITE_URL", "http://127.0.0.1:8000/")
    assert served_site_url(local, ("127.0.0.1", 8001)) is None  # given to serve: it wins


def test_addresses_are_read_or_refused() -> None:
    assert parse_address("127.0.0.1:8000") == ("127.0.0.1", 8000)
    assert parse_address("[::1]:8001") == ("::1", 8001)
    for wrong in ("8000", "localhost", "host:port", ":80", "h:70000"):
        with pytest.raises(DigestError, match="HOST:PORT"):
            parse_address(wrong)


def test_the_banner_is_escaped_and_first_in_the_body() -> None:
    page = with_banner('<html><body class="x"><p>site</p></body></html>', "bad <script>alert(1)</script>")
    assert page.startswith(f'<html><body class="x"><div class="{BANNER_CLASS}"')
    assert "<script>" not in page and "&lt;script&gt;" in page


@pytest.mark.browser
def test_the_open_page_changes_without_a_manual_reload(running: Running, chromium) -> None:
    from tests.browser_support import open_tab, wait_until

    tab = open_tab(chromium, running.origin)
    page = tab.page
    page.goto(running.origin + "/")
    page.wait_for_load_state("load")
    page.evaluate("() => { window.notReloaded = true; }")
    save(running.source, [*SAMPLE_ABSTRACTS, NEW_ABSTRACT])
    wait_until(page, "() => document.body?.innerText.includes('quokkas')", timeout=30_000)
    assert page.evaluate("() => window.notReloaded === undefined"), "the page was not reloaded"

    running.source.write_text("", encoding="utf-8")
    banner = page.locator(f".{BANNER_CLASS}")
    wait_until(page, f"() => document.querySelector('.{BANNER_CLASS}') !== null", timeout=30_000)
    assert banner.is_visible() and "file is empty" in banner.inner_text()
    box = banner.bounding_box()
    assert box is not None and box["y"] + box["height"] <= page.viewport_size["height"] + 1
    assert NEW_WORD in page.locator("article").inner_text()  # the last good site, still there

    save(running.source, SAMPLE_ABSTRACTS)
    wait_until(
        page,
        f"""() => document.querySelector('.{BANNER_CLASS}') === null
              && document.body && !document.body.innerText.includes('quokkas')""",
        timeout=30_000,
    )
    refused = [error for error in tab.monitor.errors if "Content Security Policy" in error]
    assert refused == []


@pytest.mark.slow
def test_serve_and_build_side_by_side_from_the_command_line(
    bundled_build: dict[str, Path], tmp_path: Path
) -> None:
    """As a user runs them, in two terminals: serve keeps answering while a build runs beside it, an
    edit made after it reaches the page, and neither prints a traceback."""
    import shutil
    import signal
    import subprocess
    import sys

    digest = tmp_path / "digest"
    digest.mkdir()
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", digest / "mkdocs.yml")
    shutil.copytree(PROJECT_ROOT / "abstracts", digest / "abstracts")
    cache = tmp_path / "cache"
    shutil.copytree(bundled_build["cache"], cache)  # the embeddings are made once per test session
    environment = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "HF_HUB_OFFLINE": "1"}
    environment.pop("SITE_URL", None)
    common = ["--project", str(digest), "--cache-dir", str(cache)]
    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "w") as output:
        serve = subprocess.Popen(
            [sys.executable, "-m", "generator", "serve", *common, "--dev-addr", f"127.0.0.1:{port}"],
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    origin = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: "serving the digest on" in log.read_text(), 300, "serve's first build")
        assert fetch(origin + "/about/")[0] == 200
        beside = subprocess.Popen(
            [sys.executable, "-m", "generator", "build", *common, "--name", "Built Beside"],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        answered = []
        while beside.poll() is None:
            start = time.monotonic()
            answered.append((fetch(origin + "/about/")[0], time.monotonic() - start))
            time.sleep(0.2)
        build_output = beside.communicate()[0]
        assert beside.returncode == 0, build_output
        assert answered and all(status == 200 for status, _ in answered)
        assert max(seconds for _, seconds in answered) < 10
        # That build's site (another name) was served, then serve's own again (the name it was given).
        wait_for(lambda: "rebuilt after another build" in log.read_text(), 120, "serve to follow the build")
        assert "Built Beside" not in fetch(origin + "/")[1]

        first = sorted((digest / "abstracts").glob("*.txt"))[0]
        record = json.loads((digest / ADDRESS_RECORD).read_text(encoding="utf-8"))
        (address,) = [
            paper["address"]
            for paper in record["papers"]
            if paper["file"] == f"abstracts/{first.name}" and paper["position"] == 0
        ]
        name, _, rest = first.read_text(encoding="utf-8").partition("\n\n")
        first.write_text(f"{name}\n\nQuokka survey: {rest}", encoding="utf-8")
        # The edited paper keeps its address, and its page shows the new text.
        page = f"{origin}/papers/{address}/"
        wait_for(lambda: "Quokka survey" in fetch(page)[1], 120, "the edit on the paper's page")
        wait_for(lambda: "rebuilt after abstracts/" in log.read_text(), 30, "serve to report the rebuild")
    finally:
        serve.send_signal(signal.SIGINT)
        code = serve.wait(timeout=60)
    text = log.read_text()
    assert "Traceback" not in text and "KeyError" not in text, text
    assert code == 130 and "interrupted" in text

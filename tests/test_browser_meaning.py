"""Search by meaning in Chromium, on the bundled digest built with the real model: the search box ranks
by meaning as it opens (the quick encoder), so a question that shares no word with a paper finds it
without pressing anything; the full model and runtime are fetched only when the reader presses "Full
model", a choice remembered on the next pages; all from the site itself, under the
Content-Security-Policy; under ``/repo/``, across instant navigation and on a phone. The count never
claims more papers than the digest has, the stated download is the real one, and the browser's
tokenizer, quick encoder and vectors match the build's."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page

from generator.project.scaffold import EXAMPLE_DIR
from generator.site.meaning_index import read_encoder_files, read_vectors_file, search_files
from generator.sources import read_collection
from tests.browser_support import (
    SEARCH_INPUT,
    SEARCH_RESULT,
    SiteServer,
    Tab,
    open_tab,
    settle,
    wait_until,
)
from tests.test_browser import Site, pages_site, site  # noqa: F401  (fixtures)
from tests.test_browser_csp import RECORD_VIOLATIONS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

INFLUENCERS_ID = next(
    paper.id
    for paper in read_collection([EXAMPLE_DIR]).papers
    if "social media influencers" in paper.abstract
)
"""The bundled paper on social-media influencers, by its id: its derived title is the title model's."""
NO_SHARED_WORDS = "famous online personalities raise scholarly attention"
"""A question about the influencers paper that shares none of its words."""
MEANING_SWITCH = ".paper-search .paper-search-meaning"
META = ".paper-search .md-search-result__meta"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LOADED_FOR_MEANING = ("/meaning/", "/onnxruntime-web/")
FULL_MODEL_FILES = ("/model.onnx", ".wasm", "/ort.wasm.bundle.min.mjs")
QUICK_DOWNLOAD_LIMIT = 6_000_000
"""What the quick encoder may fetch beyond Pagefind (issue 39: at most 6 MB, at ICML 2024's size)."""


def _tab(chromium: Browser, served: Site, **options: object) -> Iterator[tuple[Tab, list]]:
    parts = urlsplit(served.url)
    opened = open_tab(chromium, f"{parts.scheme}://{parts.netloc}", **options)
    opened.page.context.set_default_timeout(60_000)
    violations: list = []
    opened.page.context.expose_function("__cspViolation", lambda violation: violations.append(violation))
    opened.page.context.add_init_script(RECORD_VIOLATIONS)

    def console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            violations.append(message.text)

    opened.page.on("console", console)
    yield opened, violations
    opened.page.context.close()


@pytest.fixture
def watched(chromium: Browser, site: Site) -> Iterator[tuple[Tab, list]]:  # noqa: F811
    yield from _tab(chromium, site)


def _meaning_requests(tab: Tab) -> list[str]:
    return [url for url in tab.monitor.requested if any(part in url for part in LOADED_FOR_MEANING)]


def _full_model_requests(tab: Tab) -> list[str]:
    return [url for url in tab.monitor.requested if url.endswith(FULL_MODEL_FILES)]


def _type_query(page: Page, query: str) -> None:
    box = page.locator(f".paper-search {SEARCH_INPUT}")
    box.click()
    box.fill("")
    box.type(query)


def _results_by_meaning(page: Page, full: bool = True) -> list[str]:
    """Set the full model's switch (pressed for ``full``) and wait for the fused ranking of that encoder
    for the whole question in the box (not an answer to the first letters typed); the result links, best
    first."""
    switch = page.locator(MEANING_SWITCH)
    if (switch.get_attribute("aria-pressed") == "true") != full:
        switch.click()
    wait_until(
        page,
        f"""mode => document.querySelector('{META}')?.dataset.mode === mode
              && document.querySelector('{META}').dataset.query
                 === document.querySelector('.paper-search {SEARCH_INPUT}').value.trim()
              && /nearest in meaning/.test(document.querySelector('{META}').textContent)
              && document.querySelectorAll('.paper-search {SEARCH_RESULT}').length > 0""",
        "full" if full else "quick",
        timeout=120_000,
    )
    return page.eval_on_selector_all(f".paper-search {SEARCH_RESULT} > a", "links => links.map(a => a.href)")


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def test_a_question_sharing_no_word_finds_the_paper_by_meaning_as_the_box_opens(
    watched: tuple[Tab, list],
    site: Site,  # noqa: F811
) -> None:
    tab, violations = watched
    page = tab.page
    paper = next(p for p in site.papers if p["id"] == INFLUENCERS_ID)
    text = (site.root / "meaning" / "papers-0.json").read_text(encoding="utf-8")
    row = next(r for r in json.loads(text) if r[0] == paper["id"])
    abstract = (site.root / paper["url"] / "index.html").read_text(encoding="utf-8")
    assert not _words(NO_SHARED_WORDS) & _words(
        row[2] + " " + re.sub(r"<[^>]+>", " ", abstract).split("Related")[0]
    )

    page.goto(site.url)
    settle(page)
    assert page.locator(MEANING_SWITCH).get_attribute("aria-pressed") == "false"
    _type_query(page, NO_SHARED_WORDS)
    # Nothing pressed: the quick encoder answers, and no page has every word of the question.
    links = _results_by_meaning(page, full=False)
    assert links[0].endswith("/" + paper["url"]), links[:3]
    assert page.locator(META).text_content().startswith("No page has every word")
    settle(page)
    assert _full_model_requests(tab) == [], "the default box must not fetch the full model"
    quick = _meaning_requests(tab)
    assert any("/meaning/encoder-" in url for url in quick)
    assert page.evaluate("() => window.paperMeaning.fetched.bytes") <= QUICK_DOWNLOAD_LIMIT

    links = _results_by_meaning(page, full=True)
    assert links[0].endswith("/" + paper["url"]), links[:3]
    fetched = _meaning_requests(tab)
    assert sum(url.endswith("/model.onnx") for url in fetched) == 1
    assert sum(url.endswith(".wasm") for url in fetched) == 1
    assert len(set(quick)) == len(quick), "each quick file is fetched once"

    # The next question reuses the loaded model: nothing of it is fetched again.
    _type_query(page, "qubit speedups for summed objective minimisation")
    links = _results_by_meaning(page)
    assert "quantum" in links[0]
    assert _meaning_requests(tab) == fetched
    assert tab.monitor.third_party == []
    assert violations == []
    assert tab.monitor.errors == []


def _switch_looks(page: Page) -> dict:
    return page.eval_on_selector(
        MEANING_SWITCH,
        """b => ({pressed: b.getAttribute('aria-pressed'), text: b.textContent, title: b.title,
                  background: getComputedStyle(b).backgroundColor, color: getComputedStyle(b).color})""",
    )


def test_the_full_model_switch_shows_its_state_and_is_remembered_across_pages(
    watched: tuple[Tab, list],
    site: Site,  # noqa: F811
) -> None:
    tab, violations = watched
    page = tab.page
    page.goto(site.url)
    settle(page)
    _type_query(page, "privacy of training data")
    _results_by_meaning(page, full=False)
    off = _switch_looks(page)
    assert off["pressed"] == "false" and not off["text"].startswith("\u2713")
    _results_by_meaning(page, full=True)
    on = _switch_looks(page)
    # Pressed reads as pressed without colour (a tick) and with it (filled: another background).
    assert on["pressed"] == "true" and on["text"].startswith("\u2713")
    assert on["background"] != off["background"] and on["color"] != off["color"]

    # Another page, loaded whole: the choice holds, and the box answers with the full model at once.
    page.goto(site.url + site.papers[3]["url"])
    settle(page)
    assert _switch_looks(page)["pressed"] == "true"
    _type_query(page, "privacy of training data")
    _results_by_meaning(page, full=True)
    # Released: the quick encoder again, on this page and the next.
    _results_by_meaning(page, full=False)
    page.goto(site.url)
    settle(page)
    assert _switch_looks(page)["pressed"] == "false"
    assert violations == [] and tab.monitor.errors == []


def test_the_count_and_the_stated_download_are_right(
    watched: tuple[Tab, list],
    site: Site,  # noqa: F811
) -> None:
    tab, _ = watched
    page = tab.page
    page.goto(site.url)
    settle(page)
    papers = len(site.papers)
    for query in ("learning", "privacy of training data", NO_SHARED_WORDS):
        _type_query(page, query)
        _results_by_meaning(page, full=False)
        text = page.locator(META).text_content()
        total = page.evaluate(
            """async q => {
                 const pagefind = await import(new URL('pagefind/pagefind.js', location.href).href);
                 return (await pagefind.search(window.paperSearch.cleaned(q + ' ').text)).results.length;
               }""",
            query,
        )
        found = re.search(r"(\d+) more of the (\d+) papers nearest in meaning", text)
        assert found, text
        added, nearest = int(found[1]), int(found[2])
        assert added <= nearest <= papers, text
        if total:
            assert text.startswith(f"{total} matching document"), (text, total)
        else:
            assert text.startswith("No page has every word"), text
        # Every word match and every added paper is in the list, nothing else.
        shown = page.evaluate(
            f"""async () => {{
                  let more;
                  while ((more = document.querySelector('.paper-search .paper-search-more button'))) {{
                    more.click();
                    await new Promise(r => setTimeout(r, 50));
                  }}
                  return document.querySelectorAll('.paper-search {SEARCH_RESULT}').length;
                }}"""
        )
        assert shown == total + added, (text, shown)
    # The switch states the full model's download: the model, the runtime's WebAssembly and script.
    real = sum(
        (site.root / path).stat().st_size
        for path in (
            "meaning/model.onnx",
            "javascripts/vendor/onnxruntime-web/ort-wasm-simd-threaded.wasm",
            "javascripts/vendor/onnxruntime-web/ort.wasm.bundle.min.mjs",
        )
    )
    assert f"({real / 1e6:.1f} MB, fetched once)" in _switch_looks(page)["title"]


def test_the_browser_tokenizer_and_vectors_match_the_build(
    watched: tuple[Tab, list],
    site: Site,  # noqa: F811
) -> None:
    from transformers import AutoTokenizer

    from generator.analysis.embed import SentenceTransformerEmbedder
    from generator.analysis.onnx_export import model_location

    texts = [
        "Making Transformers cheaper at inference",
        "Why does Adam generalise worse than SGD?",
        "Café naïve Ångström — déjà vu; x_1^2 + α·β ≤ 3.5%",
        "GPT-4's in-context learning (ICL) [1], e.g. 10x faster!!",
        "中文 tokens and 日本語 mixed with ASCII",
        "antidisestablishmentarianism " + "a" * 120,
        "tab\tnew\nline   spaces\u00a0nbsp",
        "word " * 400,
    ]
    page = watched[0].page
    page.goto(site.url)
    settle(page)
    tokenizer = AutoTokenizer.from_pretrained(model_location("all-MiniLM-L6-v2"))
    for text in texts:
        expected = tokenizer(text, truncation=True, max_length=256)["input_ids"]
        assert page.evaluate("text => window.paperMeaning.tokenIds(text)", text) == expected, text
    browser = np.array(
        [page.evaluate("async t => Array.from(await window.paperMeaning.embed(t))", t) for t in texts]
    )
    build = SentenceTransformerEmbedder(precision="float32").embed(texts)
    assert (browser * build).sum(axis=1).min() >= 0.99

    # The quick encoder: the browser's vectors are the build's files read in Python (the same int8
    # values), over the same tokens, for tricky strings and for ones whose tokens it does not keep.
    files = {
        f"meaning/{path.name}": path.read_bytes()
        for path in (site.root / "meaning").iterdir()
        if path.is_file()
    }
    encoder = read_encoder_files(files)
    assert encoder is not None
    tricky = [*texts[:-1], "Schrödinger's cat-like qubits: a ∂/∂t-free Ansatz", "xyzzyq", "", "ℵ₀ ∞ ∑"]
    for text in tricky:
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        assert page.evaluate("t => window.paperMeaning.tokenIds(t)", text) == [
            tokenizer.cls_token_id,
            *ids,
            tokenizer.sep_token_id,
        ], text
        expected = encoder.encode([ids])[0]
        found = page.evaluate(
            "async t => { const v = await window.paperMeaning.embedQuick(t); return v && Array.from(v); }",
            text,
        )
        if not expected.any():
            assert found is None, text
        else:
            assert found is not None, text
            assert float(np.dot(found, expected)) >= 0.9999, text


@pytest.fixture
def pages_watched(chromium: Browser, pages_site: Site) -> Iterator[tuple[Tab, list]]:  # noqa: F811
    yield from _tab(chromium, pages_site)


def test_meaning_search_under_a_subpath_across_instant_navigation(
    pages_watched: tuple[Tab, list],
    pages_site: Site,  # noqa: F811
) -> None:
    tab, violations = pages_watched
    page = tab.page
    page.goto(pages_site.url)
    settle(page)
    _type_query(page, NO_SHARED_WORDS)
    links = _results_by_meaning(page)
    assert all(urlsplit(link).path.startswith("/repo/") for link in links)
    paper = pages_site.record_at(links[0])
    assert paper["id"] == INFLUENCERS_ID
    page.locator(f".paper-search {SEARCH_RESULT} > a").first.click()
    wait_until(page, "expected => location.pathname === expected", urlsplit(links[0]).path)
    # The header (and the loaded model) stay: the next question is answered on the new page.
    _type_query(page, "qubit speedups for summed objective minimisation")
    links = _results_by_meaning(page)
    assert "quantum" in links[0] and urlsplit(links[0]).path.startswith("/repo/")
    assert sum(url.endswith("/model.onnx") for url in tab.monitor.requested) == 1
    assert tab.monitor.same_origin_errors() == [] and tab.monitor.third_party == []
    assert violations == []


def test_meaning_search_on_a_phone(
    chromium: Browser,
    site: Site,  # noqa: F811
) -> None:
    for tab, violations in _tab(chromium, site, **PHONE):
        page = tab.page
        page.goto(site.url)
        settle(page)
        page.locator("label.md-header__button[for='__search']").first.click()
        box = page.locator(f".paper-search {SEARCH_INPUT}")
        box.type(NO_SHARED_WORDS)
        assert page.locator(MEANING_SWITCH).is_visible()
        # On screen once the full-screen search has slid in (Material animates it).
        wait_until(
            page,
            f"""() => {{
              const box = document.querySelector('{MEANING_SWITCH}').getBoundingClientRect();
              return box.width > 0 && box.left >= 0 && box.right <= window.innerWidth;
            }}""",
        )
        links = _results_by_meaning(page, full=False)
        assert site.record_at(links[0])["id"] == INFLUENCERS_ID
        assert violations == [] and tab.monitor.third_party == []


def test_explore_sorts_by_closeness_in_meaning_to_a_question(
    watched: tuple[Tab, list],
    site: Site,  # noqa: F811
) -> None:
    tab, violations = watched
    page = tab.page
    page.goto(site.url + "explore/")
    wait_until(page, "() => document.querySelector('.paper-explore')?.dataset.ready === 'yes'")
    assert _meaning_requests(tab) == []
    page.select_option(".paper-explore select[name=sort]", "near")
    near = page.locator(".paper-explore input[name=near]")
    assert near.is_visible()
    near.fill(NO_SHARED_WORDS)
    near.press("Enter")
    wait_until(
        page,
        """title => document.querySelector('.paper-explore__results li')?.textContent.includes(title)""",
        next(p["title"] for p in site.papers if p["id"] == INFLUENCERS_ID),
        timeout=120_000,
    )
    assert "near=" in page.url and "sort=near" in page.url
    assert page.locator(".paper-explore__results li").count() > 1  # every paper, closest first
    assert violations == [] and tab.monitor.third_party == []


@pytest.fixture
def partitioned_site(
    site: Site,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[Site, dict[str, bytes]]]:
    """The bundled site with its meaning files rewritten as a digest past ``SINGLE_CLUSTER_PAPERS``
    writes them (clusters of 8, a probe of about half the codes): the browser's IVF-PQ path."""
    from generator.analysis.onnx_export import OnnxModel
    from generator.site import meaning_index

    folder = tmp_path / "site"
    shutil.copytree(site.root, folder)
    meaning = folder / "meaning"
    index = json.loads((meaning / "index.json").read_text(encoding="utf-8"))
    vectors = read_vectors_file((meaning / "vectors-0.bin").read_bytes(), index["dimensions"])
    names = sorted(meaning.glob("papers-*.json"), key=lambda name: int(name.stem.split("-")[1]))
    rows = [row for name in names for row in json.loads(name.read_text(encoding="utf-8"))]
    papers = [meaning_index.MeaningPaper(*row) for row in rows]
    monkeypatch.setattr(meaning_index, "SINGLE_CLUSTER_PAPERS", 10)
    monkeypatch.setattr(meaning_index, "PAPERS_PER_CLUSTER", 8)
    monkeypatch.setattr(meaning_index, "MAX_CODE_BYTES", len(papers) * meaning_index.CODE_BYTES // 2)
    monkeypatch.setattr(meaning_index, "RERANK", 12)
    exported = OnnxModel(tmp_path / "model", **index["tokenizer"])
    exported.folder.mkdir()
    shutil.copy(meaning / "model.onnx", exported.model_file)
    shutil.copy(meaning / "vocab.txt", exported.vocabulary_file)
    encoder = read_encoder_files({f"meaning/{path.name}": path.read_bytes() for path in meaning.iterdir()})
    for old in meaning.glob("*"):
        if old.suffix in (".bin", ".json"):
            old.unlink()
    files = meaning_index.meaning_files(papers, vectors, exported, encoder)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    server = SiteServer(folder, not_found_page=folder / "404.html")
    try:
        yield Site(f"{server.origin}/", folder, site.papers), files
    finally:
        server.close()


EMBED = "async text => Array.from(await window.paperMeaning.embed(text))"
CLOSEST = "async text => Array.from((await window.paperMeaning.closeness(text, 'full')).keys())"
EMBED_QUICK = "async text => Array.from(await window.paperMeaning.embedQuick(text))"
SEARCH_QUICK = "async t => (await window.paperMeaning.search(t, 10, 'quick')).map(r => r.id)"


def test_past_a_size_the_browser_reads_the_probed_codes_and_ranks_as_the_build_expects(
    chromium: Browser, partitioned_site: tuple[Site, dict[str, bytes]]
) -> None:
    served, files = partitioned_site
    index = json.loads(files["meaning/index.json"])
    assert len(index["clusters"]) > 4 and 1 < index["probe"] < len(index["clusters"])
    for tab, violations in _tab(chromium, served):
        page = tab.page
        page.goto(served.url)
        settle(page)
        ids = json.loads(files["meaning/ids.json"])
        for question in (NO_SHARED_WORDS, "privacy of training data", "robots learning to walk"):
            query = np.array(page.evaluate(EMBED, question), dtype=np.float32)
            found = page.evaluate(
                "async t => (await window.paperMeaning.search(t, 10, 'full')).map(r => r.id)", question
            )
            expected, _ = search_files(files, query)
            assert found == [ids[place] for place in expected], question
            near = page.evaluate(CLOSEST, question)
            assert near[:10] == found
            assert len(found) == 10 and len(near) < len(ids)  # the probed clusters' papers only
            # The quick encoder reads the same partitioned files.
            query = np.array(page.evaluate(EMBED_QUICK, question), dtype=np.float32)
            found = page.evaluate(SEARCH_QUICK, question)
            expected, _ = search_files(files, query)
            assert found == [ids[place] for place in expected], question
        codes = [url for url in tab.monitor.requested if "/meaning/codes-" in url]
        assert 0 < len(set(codes)) <= 3 * index["probe"]
        assert not any("/meaning/vectors-" in url for url in tab.monitor.requested)
        assert violations == []

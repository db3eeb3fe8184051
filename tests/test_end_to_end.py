"""The bundled digest built with the real model (all-MiniLM-L6-v2, offline), checked as built."""

from __future__ import annotations

import json
import posixpath
import re
from collections import Counter
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from generator.analysis.keywords import MIN_KEYWORDS, repeats
from generator.analysis.text import find_math_spans
from generator.cli import main
from generator.site.render import MIN_PAPERS_PER_KEYWORD_PAGE, plain_title
from generator.site.search_text import readable_tex
from tests.conftest import PROJECT_ROOT, broken_links, search_records

pytestmark = pytest.mark.slow


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.section = "main"
        self.links: dict[str, list[str]] = {}
        self._heading = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h2":
            self._heading = True
            self.section = ""
        elif tag == "a" and self.section and not self._heading:
            href = dict(attrs).get("href") or ""
            if not href.startswith("#"):
                self.links.setdefault(self.section, []).append(href)

    def handle_endtag(self, tag: str) -> None:
        if tag == "h2":
            self._heading = False

    def handle_data(self, data: str) -> None:
        if self._heading and data.strip() and not self.section:
            self.section = data.strip()


def _resolve(site: Path, page_url: str, href: str) -> Path:
    target = posixpath.normpath(posixpath.join(page_url, href))
    path = site / target
    return path / "index.html" if href.endswith("/") or path.is_dir() else path


def test_bundled_digest(bundled_build: dict[str, Path]) -> None:
    site = bundled_build["site"]
    export = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    assert len(export) == 57
    assert len({record["id"] for record in export}) == 57

    abstracts = {p.name: p for p in (PROJECT_ROOT / "abstracts").iterdir()}
    assert len(abstracts) == 3

    searched = {record["url"]: record for record in search_records(site)}
    # Only paper pages are searched (the other pages' front matter says search: exclude).
    assert sorted(searched) == sorted(f"/{record['url']}" for record in export)
    indexed_titles = {record["meta"]["title"] for record in searched.values()}
    pages_with_math = 0
    by_id = {record["id"]: record for record in export}
    keyword_use = Counter(k for record in export for k in record["keywords"])
    # Fewer keywords rather than weak or stray ones (issue 36): most papers keep at least MIN_KEYWORDS,
    # more where strong; a paper whose only candidates a reader would call stray shows none.
    assert sum(len(record["keywords"]) >= MIN_KEYWORDS for record in export) >= 0.9 * len(export)
    assert sum(len(record["keywords"]) for record in export) > MIN_KEYWORDS * len(export)

    for record in export:
        page = site / record["url"] / "index.html"
        assert page.is_file(), record["url"]
        html = page.read_text(encoding="utf-8")
        # Five at most, fewer when the abstract has no five different things worth showing (issue 36).
        assert len(record["keywords"]) <= 5
        shown = record["keywords"]
        assert not any(repeats(a, b) for i, a in enumerate(shown) for b in shown[i + 1 :]), shown
        assert all(k.strip() and "*" not in k for k in record["keywords"])
        assert len(record["related"]) == 5
        assert record["id"] not in [r["id"] for r in record["related"]]
        for related in record["related"]:
            assert related["id"] in by_id
            # shared keyphrases come from the digest's keyword vocabulary, not only this paper's five
            assert set(related["shared_keywords"]) <= set(keyword_use)
            assert 0 < related["score"] <= 1 and 0 < related["closeness"] <= 1

        article = html.split("<article", 1)[1].split("</article>", 1)[0]
        links = _Links()
        links.feed(article)
        related_links = links.links.get("Related papers", [])
        assert len(related_links) == 5
        for href in related_links:
            assert _resolve(site, record["url"], href).is_file(), href
        expected = [by_id[r["id"]]["url"] for r in record["related"]]
        assert [posixpath.normpath(posixpath.join(record["url"], h)) + "/" for h in related_links] == expected
        keyword_links = [h for h in links.links.get("main", []) if "/keywords/" in h]
        assert len(keyword_links) == sum(
            1 for k in record["keywords"] if keyword_use[k] >= MIN_PAPERS_PER_KEYWORD_PAGE
        ), record["url"]
        for href in keyword_links:
            assert _resolve(site, record["url"], href).is_file(), href

        # The index holds titles and text with formulas as plain text (generator/site/search_text.py),
        # without the related papers' titles or the BibTeX entry.
        indexed = searched[f"/{record['url']}"]
        assert "\\(" not in indexed["content"] and "@inproceedings" not in indexed["content"]
        assert "Related papers" not in indexed["content"]

        def same(title: str) -> str:
            # Pagefind keeps a title's text as the reader sees it, its entities decoded.
            return readable_tex(unescape(title)).replace(" ", "")

        assert same(plain_title(record["title"])) in {same(t) for t in indexed_titles}
        assert "<script" not in article
        # The BibTeX entry is TeX source on purpose.
        prose = re.sub(r'<div class="copy paper-bibtex".*?</div>', "", article, flags=re.S)
        text = re.sub(r"\\\(.*?\\\)|\\\[.*?\\\]", "", re.sub(r"<[^>]+>", "", prose), flags=re.S)
        if find_math_spans(text):
            pytest.fail(f"raw TeX delimiters left in {record['url']}")
        if '<span class="arithmatex">\\(' in html:
            pages_with_math += 1

    assert pages_with_math >= 5
    # The map says what its colours are only when there are topics to colour.
    map_page = (site / "map" / "index.html").read_text(encoding="utf-8")
    has_topics = any((site / "topics").glob("*/index.html"))
    assert ("colours are" in map_page) == has_topics
    assert ("share one colour" in map_page) != has_topics
    assert (site / "assets" / "mathjax" / "tex-mml-chtml.js").is_file()
    assert (bundled_build["docs"] / "screenshots" / "home.png").is_file()
    assert not (site / "screenshots").exists(), "the README's screenshots are not part of the site"
    # Theme and MathJax files no reader loads stay out too (the browser tests check math and search).
    assert not list(site.rglob("*.map")) and not (site / "assets" / "javascripts" / "lunr").exists()
    extensions = site / "assets" / "mathjax" / "input" / "tex" / "extensions"
    assert (extensions / "cancel.js").is_file() and not (extensions / "all-packages.js").exists()
    home = (site / "index.html").read_text(encoding="utf-8")
    assert home.count('href="papers/') >= 57
    assert "\n " not in home, "pages are written without their templates' indentation"
    assert len(list((site / "keywords").glob("*/index.html"))) >= 1
    assert broken_links(site) == []  # lists of links are HTML, which MkDocs does not check


def test_rebuild_keeps_every_url(bundled_build: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    site, docs = bundled_build["site"], bundled_build["docs"]
    before = (site / "papers.json").read_text(encoding="utf-8")
    written = {path: path.stat().st_mtime_ns for path in docs.rglob("*.md")}
    capsys.readouterr()
    assert main(bundled_build["arguments"]) == 0  # type: ignore[arg-type]
    assert "(nothing embedded, the last analysis reused)" in capsys.readouterr().err
    assert (site / "papers.json").read_text(encoding="utf-8") == before
    assert {path: path.stat().st_mtime_ns for path in docs.rglob("*.md")} == written
    # Analysed and fitted afresh from the cached embeddings: the same digest, nothing embedded.
    assert main([*bundled_build["arguments"], "--refit"]) == 0  # type: ignore[list-item]
    assert re.search(r"\(nothing embedded; [\d,]+ texts from the cache\)", capsys.readouterr().err)
    assert (site / "papers.json").read_text(encoding="utf-8") == before
    assert {path: path.stat().st_mtime_ns for path in docs.rglob("*.md")} == written

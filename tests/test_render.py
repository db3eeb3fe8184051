from __future__ import annotations

import json
import re
from pathlib import Path

import markdown
import pytest
import yaml

from generator.analysis.analyse import analyse
from generator.finish.pages import moved_head_tags, unwrapped_html
from generator.model import Collection, Paper, SourceLocation
from generator.progress import Reporter
from generator.site.render import (
    MIN_PAPERS_PER_KEYWORD_PAGE,
    PageRenderer,
    markdown_literal,
    markdown_text,
    markdown_title,
)
from tests.conftest import SAMPLE_ABSTRACTS


def to_html(text: str) -> str:
    """Markdown as the site shows it: the HTML the templates carry in comments, unwrapped."""
    html = markdown.markdown(
        text, extensions=["pymdownx.arithmatex"], extension_configs={"pymdownx.arithmatex": {"generic": True}}
    )
    return unwrapped_html(html)


def test_html_in_abstracts_is_shown_as_text() -> None:
    html = to_html(markdown_text('Hi <script>alert(1)</script> <img src=x onerror="alert(2)"> <!-- c'))
    assert "<script" not in html and "<img" not in html and "<!--" not in html
    assert "&lt;script&gt;" in html


def test_math_and_emphasis_survive() -> None:
    html = to_html(markdown_text("**C**ontrolled with $a < b$ and $x_1 * y_2$."))
    assert "<strong>C</strong>ontrolled" in html
    assert '<span class="arithmatex">\\(a \\lt  b\\)</span>' in html
    assert "\\(x_1 * y_2\\)" in html
    # A formula that is only "<": math, not "$\\lt $", which arithmatex would leave as text.
    assert '<span class="arithmatex">\\(\\lt\\)</span>' in to_html(markdown_text("order $<$ on a set"))


@pytest.mark.parametrize(
    "target", ["javascript:alert(1)", "data:text/html;base64,xx", "vbscript:x", "/local"]
)
def test_only_http_links_survive(target: str) -> None:
    html = to_html(markdown_text(f"See [here]({target}) and ![pic]({target})."))
    assert "<a " not in html and "<img" not in html
    assert "here" in html


def test_http_links_and_titles() -> None:
    assert '<a href="https://github.com/x">code</a>' in to_html(markdown_text("[code](https://github.com/x)"))
    html = to_html(markdown_title("[x](javascript:y) *not* $O(n)$ <b>"))
    assert "<a " not in html and "<em>" not in html and "<b>" not in html
    assert "\\(O(n)\\)" in html


def _digest(fake_embedder, papers: list[Paper]):
    collection = Collection("Test <Digest>", tuple(papers))
    return analyse(collection, fake_embedder, Reporter(quiet=True), 5, 3).complete()


def _papers() -> list[Paper]:
    location = SourceLocation(Path("x.txt"), 1)
    papers = [Paper(id=f"p{i}", abstract=a, source=location) for i, a in enumerate(SAMPLE_ABSTRACTS)]
    papers.append(
        Paper(
            id="evil",
            abstract="Hostile <script>window.pwned=1</script> text about graph neural networks {{ 7*7 }}.",
            source=location,
            title='Evil "title"\n---\nlayout: x <script>',
            authors=("<b>Mallory</b>", "Bob_the_*builder*"),
            url="javascript:alert(1)",
        )
    )
    return papers


def test_rendered_pages_are_consistent(fake_embedder) -> None:
    digest = _digest(fake_embedder, _papers())
    files = PageRenderer().render(digest)
    paper_pages = sorted(path for path in files if path.startswith("papers/"))
    assert len(paper_pages) == len(digest.papers)
    export = json.loads(files["papers.json"])
    assert [record["id"] for record in export] == [p.entry.paper.id for p in digest.papers]
    lines = files["papers.json"].splitlines()  # compact, one paper a line
    assert [json.loads(line.removesuffix(",")) for line in lines[1:-1]] == export
    for record in export:
        assert f"papers/{record['slug']}.md" in files
        assert record["url"] == f"papers/{record['slug']}/"
        assert len(record["related"]) == 3
        assert record["id"] not in [r["id"] for r in record["related"]]
    # A keyword page exists exactly for keywords shared by two or more papers.
    counts: dict[str, int] = {}
    for record in export:
        for keyword in record["keywords"]:
            counts[keyword] = counts.get(keyword, 0) + 1
    keyword_pages = {path for path in files if path.startswith("keywords/") and path != "keywords/index.md"}
    assert len(keyword_pages) == sum(1 for c in counts.values() if c >= MIN_PAPERS_PER_KEYWORD_PAGE)
    assert "index.md" in files and "about.md" in files


def test_hostile_paper_page_has_no_markup_from_input(fake_embedder) -> None:
    digest = _digest(fake_embedder, _papers())
    files = PageRenderer().render(digest)
    evil = next(p for p in digest.papers if p.entry.paper.id == "evil")
    page = files[f"papers/{evil.entry.slug}.md"]
    front_matter = yaml.safe_load(page.split("---\n")[1])
    assert set(front_matter) == {"title", "paper_id", "keywords", "template"}
    assert front_matter["template"] == "generated-page.html"
    assert front_matter["title"] == 'Evil "title" --- layout: x &lt;script&gt;'
    # The Google Scholar tags travel in the Markdown to the page's head, escaped as attributes.
    body, head = moved_head_tags(to_html(page.split("---\n", 2)[2]))
    assert (
        '<meta name="citation_title" content="Evil &#34;title&#34; --- layout: x &lt;script&gt;">' in head[0]
    )
    assert "paper-digest-head" not in body
    assert "<script" not in body and "<b>" not in body
    assert "{{ 7*7 }}" in body
    assert "javascript:" not in body
    assert "&lt;b&gt;Mallory&lt;/b&gt;" in body


def test_list_pages_paginate(fake_embedder) -> None:
    digest = _digest(fake_embedder, _papers())
    from generator.site.render import RenderOptions

    files = PageRenderer(RenderOptions(papers_per_list_page=3)).render(digest)
    assert {"index.md", "browse/2.md", "browse/3.md"} <= set(files)
    assert "browse/4.md" not in files
    assert 'href="../../papers/' in files["browse/2.md"]  # served at browse/2/
    for path in ("index.md", "browse/2.md", "browse/3.md"):
        html = to_html(files[path].split("---\n", 2)[2])
        # A list after the paragraph of page links; each paper with at most 3 keywords, unlinked.
        assert re.search(r"</p>\s*<ul>\s*<li>", html), path
        entries = re.findall(r"<li>(.*?)</li>", html, re.S)
        assert len(entries) == (2 if path == "browse/3.md" else 3), path
        assert all(entry.count('<a href="') == 1 and entry.count(" · ") <= 2 for entry in entries), path


def test_keyword_and_topic_pages_paginate(fake_embedder) -> None:
    digest = _digest(fake_embedder, _papers())
    from generator.site.render import RenderOptions

    files = PageRenderer(RenderOptions(papers_per_list_page=2)).render(digest)
    for folder in ("keywords", "topics"):
        first_pages = [p for p in files if re.fullmatch(rf"{folder}/[^/]+\.md", p)]
        for first in set(first_pages) - {f"{folder}/index.md"}:
            more = sorted(p for p in files if p.startswith(first.removesuffix(".md") + "/"))
            listed = 0
            for number, path in enumerate([first, *more], start=1):
                assert path == first or path.endswith(f"/{number}.md")
                html = to_html(files[path].split("---\n", 2)[2])
                entries = html.count("<li>")
                assert 1 <= entries <= 2, path
                listed += entries
                # served at keywords/x/2/ and keywords/x/
                assert ('href="../../../papers/' if number > 1 else 'href="../../papers/') in files[path]
                assert f"{folder}/index.md)" in files[path] or folder == "keywords"
            if folder == "keywords":
                assert f"{listed} papers in" in files[first]
            assert len(more) == (listed + 1) // 2 - 1
        assert any(p.count("/") == 2 for p in files if p.startswith(f"{folder}/")), "some list was split"


def test_keyword_index_paginates(fake_embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("generator.site.render.KEYWORDS_PER_LIST_PAGE", 2)
    monkeypatch.setattr("generator.site.render.MIN_PAPERS_PER_KEYWORD_PAGE", 2)  # pages enough to split
    digest = _digest(fake_embedder, _papers())
    files = PageRenderer().render(digest)
    pages = sorted(p for p in files if p.startswith("keyword-list/"))
    keyword_pages = [p for p in files if p.startswith("keywords/") and p != "keywords/index.md"]
    assert len(pages) == (len(keyword_pages) + 1) // 2 - 1 and pages
    assert 'href="../../keywords/' in files[pages[0]]
    assert 'href="../keyword-list/2/"' in files["keywords/index.md"]
    listed = sum(files[p].count('<li><a href="') for p in [*pages, "keywords/index.md"])
    assert listed == len(keyword_pages)


@pytest.mark.parametrize(
    ("venue", "year", "shown"),
    [
        ("ICML 2024", 2024, "Venue: ICML 2024"),
        ("ICML", 2024, "Venue: ICML 2024"),
        (None, 2024, "Year: 2024"),  # a year alone is no venue
        ("NeurIPS", None, "Venue: NeurIPS"),
    ],
)
def test_venue_line_says_the_year_once(
    fake_embedder, venue: str | None, year: int | None, shown: str
) -> None:
    location = SourceLocation(Path("x.jsonl"), 1)
    papers = [
        Paper(id=f"p{i}", abstract=a, source=location, venue=venue, year=year)
        for i, a in enumerate(SAMPLE_ABSTRACTS)
    ]
    digest = _digest(fake_embedder, papers)
    page = PageRenderer().render(digest)[f"papers/{digest.papers[0].entry.slug}.md"]
    (line,) = [line for line in page.splitlines() if line.startswith(("<strong>Venue:", "<strong>Year:"))]
    assert re.sub(r"<[^>]+>", "", line).strip() == shown
    # Venue and year each become a link to Explore filtered by them (reader.js makes it).
    assert ("<span data-venue>" in line) == bool(venue)


def test_a_tilde_reads_as_written() -> None:
    # Python-Markdown has no "\~" escape: an escaped tilde would show its backslash.
    assert to_html(markdown_title("~1 B params") + ", " + markdown_literal("Jo~ ~Doe")) == (
        "<p>~1 B params, Jo~ ~Doe</p>"
    )


def test_a_long_list_links_a_few_pages_and_every_page_is_reachable() -> None:
    """Each page's pager shows the first, the last and its neighbours, with a gap mark where pages
    are skipped; from the first page, following pager links reaches every page in a few steps."""
    from collections import deque

    from generator.site.render import _paginate, pager_numbers

    assert pager_numbers(3, 12) == list(range(1, 13))
    for total in (16, 27, 500, 4_321):
        shown = {page: pager_numbers(page, total) for page in range(1, total + 1)}
        assert max(map(len, shown.values())) <= 40  # grows with log(total)
        assert all({1, total, page} <= set(numbers) for page, numbers in shown.items())
        steps, queue = {1: 0}, deque([1])
        while queue:
            page = queue.popleft()
            for other in shown[page]:
                if other not in steps:
                    steps[other] = steps[page] + 1
                    queue.append(other)
        assert len(steps) == total and max(steps.values()) <= 12, (total, max(steps.values()))
    pages = _paginate(list(range(2_700)), 100, "index.md", "browse")
    links = pages[13].links
    assert [link["number"] for link in links] == [1, 10, 11, 12, 13, 14, 15, 16, 17, 20, 27]
    assert [link["number"] for link in links if link["gap"]] == [10, 20, 27]
    assert next(link for link in links if link["number"] == 15)["page"].endswith("browse/15.md")


def test_topics_are_mentioned_only_when_the_digest_has_some(fake_embedder, tmp_path: Path) -> None:
    from dataclasses import replace as replaced

    from generator.engine.settings import TOPICS_INDEX, complete_settings, has_topic_pages
    from generator.site.output import MANIFEST_NAME

    digest = _digest(fake_embedder, _papers())
    assert digest.topics  # eight papers in a few clear groups
    renderer = PageRenderer()
    with_topics = renderer.render(digest)
    for paper in digest.papers:
        paper.topic = None
    bare = renderer.render(replaced(digest, topics=[]))
    assert "[topics](topics/index.md)" in with_topics["about.md"]
    assert "topic" not in bare["about.md"].lower() and "laid out on a [map](map.md)" in bare["about.md"]
    assert "topics/index.md" not in bare["map.md"] and "by topic" in with_topics["map.md"]
    assert "../topics/" in with_topics["explore.md"] and "../topics/" not in bare["explore.md"]
    assert has_topic_pages(list(with_topics)) and not has_topic_pages(list(bare))

    def nav_for(files: list[str], docs: Path) -> list:
        """The navigation the complete settings give a build of docs whose manifest lists ``files``."""
        docs.mkdir()
        (docs / MANIFEST_NAME).write_text(json.dumps({"name": "N", "files": files}), encoding="utf-8")
        (docs.parent / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
        return complete_settings(docs.parent / "mkdocs.yml", docs, docs.parent / "site")["nav"]

    assert {"Topics": TOPICS_INDEX} in nav_for(list(with_topics), tmp_path / "with")
    nav = nav_for(list(bare), tmp_path / "bare")
    assert {"Topics": TOPICS_INDEX} not in nav and {"Map": "map.md"} in nav


def test_explore_names_only_the_facets_some_paper_has(fake_embedder) -> None:
    from generator.site.render import explore_facets

    location = SourceLocation(Path("x.txt"), 1)
    bare = [Paper(id=f"p{i}", abstract=a, source=location) for i, a in enumerate(SAMPLE_ABSTRACTS)]
    digest = _digest(fake_embedder, bare)
    assert explore_facets(digest) == ["topic", "keyword"]
    page = PageRenderer().render(digest)["explore.md"]
    assert "by\ntopic and keyword, in any combination." in page and "author" not in page
    one_with_a_year = [*bare[:-1], Paper(id="y", abstract=SAMPLE_ABSTRACTS[-1], source=location, year=2024)]
    assert explore_facets(_digest(fake_embedder, one_with_a_year)) == ["topic", "keyword", "year"]


def test_counts_read_as_english_for_one_and_many(fake_embedder) -> None:
    digest = _digest(fake_embedder, _papers())
    renderer = PageRenderer()
    pages = renderer.render(digest)
    assert f"{len(digest.papers)} papers, each" in pages["index.md"]
    assert f"fall into {len(digest.topics)} topics" in pages["topics/index.md"]
    single = renderer.render(_digest(fake_embedder, _papers()[:1]))
    assert "1 paper, each" in single["index.md"] and "1 papers" not in single["index.md"]
    counted = renderer.environment.from_string("{{ 1 | counted('topic') }}; {{ 1294 | counted('topic') }}")
    assert counted.render() == "1 topic; 1,294 topics"


def test_a_paper_without_keywords_shows_no_empty_keyword_line(fake_embedder) -> None:
    digest = _digest(fake_embedder, _papers())
    shown, bare = digest.papers[0], digest.papers[1]
    assert shown.keywords
    bare.keywords = []  # a reader would have called every candidate stray: none is shown
    files = PageRenderer().render(digest)
    assert "<strong>Keywords:</strong>" in unwrapped_html(to_html(files[f"papers/{shown.entry.slug}.md"]))
    assert "Keywords:" not in unwrapped_html(to_html(files[f"papers/{bare.entry.slug}.md"]))

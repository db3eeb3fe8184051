"""Addresses in the built site: the lists of links are HTML, so MkDocs no longer checks them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from generator.build import BuildRequest, build_digest
from generator.finish.pages import HTML_MARK
from generator.model import Paper, SourceLocation
from generator.progress import Reporter
from generator.project.settings import load_settings
from generator.site.render import PageRenderer, RenderOptions
from generator.sources import read_collection
from tests.conftest import PROJECT_ROOT, SAMPLE_ABSTRACTS, broken_links


@pytest.mark.parametrize("directory_urls", [True, False])
@pytest.mark.parametrize(
    ("link", "page"),
    [
        ("../keywords/graph.md", "papers/a.md"),
        ("../papers/b.md", "papers/a.md"),
        ("../map.md#paper=a", "papers/a.md"),
        ("../topics/index.md", "topics/t.md"),
        ("t/2.md", "topics/t.md"),
        ("../t.md", "topics/t/2.md"),
        ("3.md", "topics/t/2.md"),
        ("../../papers/a.md", "keywords/k/2.md"),
        ("../index.md", "browse/2.md"),
        ("browse/2.md", "index.md"),
        ("papers/a.md", "index.md"),
        ("index.md", "keywords/index.md"),
        ("../keyword-list/2.md", "keywords/index.md"),
        ("../keywords/index.md", "keyword-list/2.md"),
    ],
)
def test_addresses_are_the_ones_mkdocs_writes(link: str, page: str, directory_urls: bool) -> None:
    renderer = PageRenderer(RenderOptions(directory_urls=directory_urls))
    target, _, fragment = link.partition("#")
    here = File(page, "docs", "site", directory_urls)
    there = File(str(Path(page).parent / target), "docs", "site", directory_urls)
    expected = get_relative_url(there.url, here.url) + (f"#{fragment}" if fragment else "")
    assert renderer.site_href(link, page) == expected


def test_every_address_in_the_site_leads_somewhere(tmp_path: Path, fake_embedder, monkeypatch) -> None:
    """Pages of every kind, long lists split over several pages, a hostile title among the papers."""
    monkeypatch.setattr("generator.site.render.KEYWORDS_PER_LIST_PAGE", 1)
    source = tmp_path / "in.jsonl"
    location = SourceLocation(source, 1)
    # Enough papers sharing phrases that keyword pages, and the keyword list, run to a second page.
    more = [
        "Node classification with graph neural networks: message passing and node representations.",
        "Large language models on reasoning benchmarks: decoding with convex optimization of rewards.",
        "Stochastic gradient descent for large language models: convergence of message passing.",
    ]
    papers = [Paper(id=f"p{i}", abstract=a, source=location) for i, a in enumerate(SAMPLE_ABSTRACTS + more)]
    papers.append(
        Paper(
            id="odd",
            abstract=SAMPLE_ABSTRACTS[0] + " Hostile <script>x</script> [x](javascript:alert(1)).",
            source=location,
            title='Graph <b>"neural"</b> & networks ~ $a<b$ `x` [l](../../index.md)',
            author_keywords=("graph neural networks", "<i>node</i> & classification"),
        )
    )
    settings = replace(load_settings(PROJECT_ROOT), cache_dir=tmp_path / "cache", papers_per_list_page=2)
    request = BuildRequest((source,), tmp_path / "docs", tmp_path / "site")
    monkeypatch.setattr(
        "generator.build.read_collection",
        lambda inputs, name=None, options=None, fallback_name=None: replace(
            read_collection([_jsonl(source)]), papers=tuple(papers)
        ),
    )
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    site = request.site_dir
    kinds = {"papers", "keywords", "topics", "browse", "keyword-list"}
    assert kinds <= {p.parent.parent.relative_to(site).parts[0] for p in site.glob("*/*/index.html")}
    assert list(site.glob("keywords/*/2/index.html")) and list(site.glob("topics/*/2/index.html"))
    assert broken_links(site) == []
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<b>" not in html and "javascript:" not in html and "<i>node" not in html, page
        assert HTML_MARK.strip() not in html, page  # every list was unwrapped by the finishing stage
    for page in site.glob("papers/*/index.html"):
        related = page.read_text(encoding="utf-8").split('id="related-papers"', 1)[1]
        assert related.count("<li><a href=") == 5, page
    # The hostile title and keyword as text, in the lists written as HTML too.
    listed = "".join(p.read_text(encoding="utf-8") for p in site.glob("browse/*/index.html"))
    listed += (site / "index.html").read_text(encoding="utf-8")
    assert "Graph &lt;b&gt;&#34;neural&#34;&lt;/b&gt; &amp; networks ~" in listed
    odd = next(site.glob("papers/graph-b-neural-b-networks*/index.html")).read_text(encoding="utf-8")
    assert "&lt;i&gt;node&lt;/i&gt; &amp; classification" in odd


def _jsonl(path: Path) -> Path:
    path.write_text('{"id": "p", "abstract": "x"}\n', encoding="utf-8")
    return path

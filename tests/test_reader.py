"""The reader's features as files: BibTeX entries, Google Scholar tags, the Atom feed, the Explore data
and the readable search index (what Chromium does with them is tests/test_browser_reader.py)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import bibtexparser
import feedparser
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.finish.pages import FinishOptions, finish_site
from generator.model import Paper, SourceLocation, TitledPaper
from generator.site.bibtex import bibtex_entry, bibtex_key, venue_kind
from generator.site.feed import ATOM, FEED_NAME, FEED_SIZE, atom_feed
from generator.site.render import EXPLORE_DATA, PageRenderer, citation_meta, explore_facets
from generator.site.search_text import readable_math, readable_tex, searchable_page
from tests.conftest import SAMPLE_ABSTRACTS
from tests.test_render import _digest

LOCATION = SourceLocation(Path("x.jsonl"), 1)
HOSTILE_TITLE = 'Evil } {"title"} @misc{x, 100% & $a_{b}$ \\end <script>alert(1)</script>'
HOSTILE_AUTHORS = ("Ann <b>Bold</b> and Bob", "O'Brien, Jr.", "}{", "Zoë Ünal")


def _paper(**fields) -> Paper:
    values = {"id": "p1", "abstract": "An abstract.", "source": LOCATION} | fields
    return Paper(**values)


def _parsed(entry: str):
    library = bibtexparser.parse_string(entry)
    assert library.failed_blocks == [], entry
    (parsed,) = library.entries
    return parsed


# BibTeX (generator/site/bibtex.py is shared with papers.bib; tests/test_readers.py tests it too)


def _titled(paper: Paper, title: str | None = None) -> TitledPaper:
    return TitledPaper(paper, title or paper.title or "Untitled", False, paper.id)


@pytest.mark.parametrize(
    ("venue", "entry_type", "venue_field"),
    [
        ("ICML 2024", "inproceedings", "booktitle"),
        ("Journal of Machine Learning Research", "article", "journal"),
        ("arXiv preprint", "misc", "howpublished"),
        (None, "misc", None),
    ],
)
def test_entry_type_follows_the_venue(venue: str | None, entry_type: str, venue_field: str | None) -> None:
    paper = _titled(_paper(title="Graph networks", authors=("Ada Lovelace",), venue=venue, year=2024))
    parsed = _parsed(bibtex_entry(paper))
    assert parsed.entry_type == entry_type
    assert parsed.key == bibtex_key(paper) and parsed.key.startswith("lovelace2024graph-")
    if venue_field:
        assert parsed.fields_dict[venue_field].value == venue


def test_a_paper_without_authors_or_year_still_gets_a_valid_entry() -> None:
    parsed = _parsed(bibtex_entry(_titled(_paper(), "A derived title")))
    assert parsed.entry_type == "misc"
    assert set(parsed.fields_dict) == {"title"}


def test_the_given_doi_is_cited_beside_any_link() -> None:
    paper = _titled(_paper(title="Graphs", url="https://publisher.example/1", doi="10.1000/a_b%c"))
    on_site = _parsed(bibtex_entry(paper, url="https://digest.example/papers/graphs/"))
    assert on_site.fields_dict["doi"].value == r"10.1000/a_b\%c"
    assert on_site.fields_dict["url"].value == "https://publisher.example/1"
    assert on_site.fields_dict["digest-url"].value == "https://digest.example/papers/graphs/"
    alone = _parsed(bibtex_entry(paper))
    assert alone.fields_dict["url"].value == "https://publisher.example/1"
    assert alone.fields_dict["doi"].value == r"10.1000/a_b\%c"
    linked = _titled(_paper(title="Graphs", url="https://doi.org/10.1000/xyz"))
    assert _parsed(bibtex_entry(linked, url="https://d.example/")).fields_dict["doi"].value == "10.1000/xyz"
    assert "note" not in _parsed(bibtex_entry(linked, url="https://d.example/")).fields_dict


@settings(max_examples=150, deadline=None)
@given(
    title=st.text(min_size=1, max_size=80),
    authors=st.lists(st.text(max_size=30), max_size=4),
    venue=st.one_of(st.none(), st.text(max_size=30)),
    year=st.one_of(st.none(), st.integers(1900, 2100)),
)
def test_any_input_gives_one_parsable_entry(
    title: str, authors: list[str], venue: str | None, year: int | None
) -> None:
    names = tuple(name for name in (" ".join(a.split()) for a in authors) if name)
    paper = _titled(_paper(title=title, authors=names, venue=venue or None, year=year), title)
    parsed = _parsed(bibtex_entry(paper))
    assert parsed.entry_type in {"inproceedings", "article", "misc"}


def test_venue_kind() -> None:
    assert venue_kind("NeurIPS 2023") == "conference"
    assert venue_kind("Journal of Machine Learning Research") == "journal"
    assert venue_kind("bioRxiv") == "other"
    assert venue_kind(None) == "other"


# Google Scholar tags


def test_citation_tags_and_their_escaping(fake_embedder, tmp_path: Path) -> None:
    papers = [
        _paper(
            id=f"p{i}",
            abstract=abstract,
            title=HOSTILE_TITLE if i == 0 else None,
            authors=HOSTILE_AUTHORS if i == 0 else (),
            venue="ICML 2024",
            year=2024,
            url="https://example.org/paper.pdf" if i == 0 else "https://example.org/abs",
        )
        for i, abstract in enumerate(SAMPLE_ABSTRACTS)
    ]
    digest = _digest(fake_embedder, papers)
    tags = citation_meta(digest.papers[0])
    assert [name for name, _ in tags] == [
        "citation_title",
        *["citation_author"] * 4,
        "citation_publication_date",
        "citation_conference_title",
        "citation_pdf_url",
    ]
    assert [value for name, value in tags if name == "citation_author"] == list(HOSTILE_AUTHORS)
    assert dict(citation_meta(digest.papers[1]))["citation_abstract_html_url"] == "https://example.org/abs"

    # Through the Markdown, as the engine passes it on, and the finishing stage into the page's head.
    import markdown

    page = PageRenderer().render(digest)[f"papers/{digest.papers[0].entry.slug}.md"]
    site = tmp_path / "site"
    (site / "papers" / "x").mkdir(parents=True)
    (site / FEED_NAME).write_text("<feed/>", encoding="utf-8")  # the feed's link needs a feed
    body = markdown.markdown(page.split("---\n", 2)[2])
    built = f"<html><head><title>x</title></head><body><article>{body}</article></body></html>"
    (site / "papers" / "x" / "index.html").write_text(built, encoding="utf-8")
    finish_site(site, tmp_path / "docs", FinishOptions("A <b>", None, ()))
    head = (site / "papers" / "x" / "index.html").read_text(encoding="utf-8").split("</head>")[0]
    assert 'href="../../feed.xml"' in head and 'title="A &lt;b&gt;"' in head
    assert "<script" not in head and "<b>" not in head
    assert 'content="Ann &lt;b&gt;Bold&lt;/b&gt; and Bob"' in head
    assert "&#34;title&#34;" in head


# Atom feed


def _feed_papers(count: int) -> list[Paper]:
    years = [2021, None, 2024, 2023]
    return [
        _paper(
            id=f"p{i}",
            abstract=SAMPLE_ABSTRACTS[i % len(SAMPLE_ABSTRACTS)] + f" Variant {i}.",
            title=f"Paper {i} \x07 <b>bold</b> & co" if i == 2 else f"Paper {i}",
            authors=("Ann <b>", "Bob & Co") if i % 2 else (),
            year=years[i % 4],
        )
        for i in range(count)
    ]


def test_feed_is_valid_atom_with_the_newest_papers_first(fake_embedder) -> None:
    digest = _digest(fake_embedder, _feed_papers(60))
    urls = [f"papers/{p.entry.slug}/" for p in digest.papers]
    site_date = 1_733_011_200  # 2024-12-01
    text = atom_feed(digest, urls, site_date)

    root = ElementTree.fromstring(text.encode("utf-8"))
    tag = lambda name: f"{{{ATOM}}}{name}"  # noqa: E731
    assert root.tag == tag("feed")
    for name in ("id", "title", "updated"):  # RFC 4287 4.1.1: exactly one of each
        assert len(root.findall(tag(name))) == 1, name
    assert root.findall(tag("author")), "entries without authors need the feed's"
    entries = root.findall(tag("entry"))
    assert len(entries) == FEED_SIZE
    for entry in entries:
        for name in ("id", "title", "updated"):
            assert len(entry.findall(tag(name))) == 1, name
        assert [link.get("rel") for link in entry.findall(tag("link"))] == ["alternate"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", entry.findtext(tag("updated")) or "")
    ids = [entry.findtext(tag("id")) for entry in entries]
    assert len(set(ids)) == len(ids) and all(i.startswith("urn:uuid:") for i in ids)

    parsed = feedparser.parse(text)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    given = [e for e in parsed.entries if e.link not in {urls[i] for i in range(60) if i % 4 == 1}]
    years = [int(e.updated[:4]) for e in given]
    assert years == sorted(years, reverse=True)  # newest first
    in_2024 = [e.link for e in given if e.updated.startswith("2024-01-01")]
    assert in_2024 == [urls[i] for i in range(60) if i % 4 == 2]  # input order within a year
    # A paper without a year is dated by the site (when it was given), never 1970, and comes last.
    undated = [e for e in parsed.entries if e not in given]
    assert undated and parsed.entries[-len(undated) :] == undated
    assert {e.updated for e in undated} == {"2024-12-01T00:00:00Z"}
    assert root.findtext(tag("updated")) == "2024-12-01T00:00:00Z"  # the newest entry's
    hostile = next(e for e in parsed.entries if e.link == urls[2])
    assert hostile.title == "Paper 2 <b>bold</b> & co"  # text, the control character gone
    assert atom_feed(digest, urls, site_date) == text  # the same feed from the same papers


def test_the_renderer_dates_the_feed_by_the_site_date(fake_embedder) -> None:
    from generator.site.render import PageRenderer, RenderOptions

    digest = _digest(fake_embedder, _feed_papers(8))
    dated = PageRenderer(RenderOptions(site_date=1_733_011_200)).page_files(digest, "a-digest-key")
    feed = dated[FEED_NAME]
    assert "<updated>2024-12-01T00:00:00Z</updated>" in feed.render()
    # the date keys the feed alone: another date renders the feed again, and no page
    other = PageRenderer(RenderOptions(site_date=1_733_097_600)).page_files(digest, "a-digest-key")
    assert other[FEED_NAME].key != feed.key
    changed = [
        p
        for p in dated
        if p != FEED_NAME and getattr(dated[p], "key", dated[p]) != getattr(other[p], "key", other[p])
    ]
    assert changed == []


@settings(max_examples=60, deadline=None)
@given(title=st.text(min_size=1, max_size=60), author=st.text(max_size=20), abstract=st.text(max_size=200))
def test_feed_holds_any_text(title: str, author: str, abstract: str) -> None:
    from generator.model import AnalysedPaper, Digest, TitledPaper

    paper = _paper(title=title, authors=(author,) if author.strip() else (), abstract=abstract or "x")
    digest = Digest(title, [AnalysedPaper(TitledPaper(paper, title, False, "x"))], "model")
    root = ElementTree.fromstring(atom_feed(digest, ["papers/x/"], 0).encode("utf-8"))
    assert len(root.findall(f"{{{ATOM}}}entry")) == 1


# Explore data and the rendered files


def test_explore_data_holds_every_paper_compactly(fake_embedder) -> None:
    papers = [
        _paper(
            id=f"p{i}",
            abstract=abstract,
            authors=("Ann", "Bob") if i % 2 else ("Ann",),
            venue="ICML" if i < 3 else "NeurIPS",
            year=2020 + i,
        )
        for i, abstract in enumerate(SAMPLE_ABSTRACTS)
    ]
    digest = _digest(fake_embedder, papers)
    files = PageRenderer().render(digest)
    assert {FEED_NAME, EXPLORE_DATA, "explore.md", "saved.md"} <= set(files)
    data = json.loads(files[EXPLORE_DATA])
    assert (
        data["authors"] == ["Ann", "Bob"] and data["venues"] == ["ICML", "NeurIPS"] and data["tracks"] == []
    )
    assert len(data["papers"]) == len(digest.papers)
    for row, paper in zip(data["papers"], digest.papers, strict=True):
        url, _title, authors, keywords, topic, venue, year, paper_id, track = row
        assert track == -1  # these papers name no track
        assert url == f"papers/{paper.entry.slug}/" and paper_id == paper.entry.paper.id
        assert [data["authors"][i] for i in authors] == list(paper.entry.paper.authors)
        assert {data["keywords"][i] for i in keywords} >= {k.text for k in paper.keywords}
        assert year == paper.entry.paper.year and data["venues"][venue] == paper.entry.paper.venue
        assert topic == (-1 if paper.topic is None else paper.topic)
    page = files[f"papers/{digest.papers[1].entry.slug}.md"]
    assert '<p class="paper-meta" data-explore="../../explore/">' in page
    assert "<span data-author>Ann</span>, <span data-author>Bob</span>" in page
    assert re.search(
        r'<div class="copy paper-bibtex" data-pagefind-ignore>\s*<p>.*</p>\s*<pre><code>@inproceedings{', page
    )


def test_tags_are_a_filter_and_keyword_spellings_share_one_keyword(fake_embedder) -> None:
    """Issue 37: the reader's tags are no keywords (no pages, not "Authors' keywords") but a Tag filter
    and a link on the paper page; keywords written "deep-fake" and "deepfake" are one keyword."""
    keywords = [("deepfake", "video"), ("deep-fake",), ("Deep fakes", "videos"), ("deepfake",), ()]
    tags = [("Unreviewed",), ("Unreviewed", "Viewed"), (), ("Viewed",), ()]
    papers = [
        _paper(id=f"p{i}", abstract=abstract, author_keywords=keywords[i % 5], tags=tags[i % 5])
        for i, abstract in enumerate(SAMPLE_ABSTRACTS)
    ]
    digest = _digest(fake_embedder, papers)
    files = PageRenderer().render(digest)
    data = json.loads(files[EXPLORE_DATA])
    assert data["tags"] == ["Unreviewed", "Viewed"]
    for row, paper in zip(data["papers"], digest.papers, strict=True):
        assert [data["tags"][i] for i in row[9]] == list(paper.entry.paper.tags)
        assert not {"Unreviewed", "Viewed"} & set(paper.author_keywords)
    assert "Unreviewed" not in data["keywords"] and "deep-fake" not in data["keywords"]
    assert "deepfake" in data["keywords"] and "video" in data["keywords"] and "videos" not in data["keywords"]
    deepfake = data["keywords"].index("deepfake")
    assert ["deep-fake", deepfake] in data["keyword_variants"]
    assert not any("unreviewed" in path for path in files)
    page = files["keywords/deepfake.md"]
    assert "Also written" in page and "deep-fake" in page
    second = files[f"papers/{digest.papers[1].entry.slug}.md"]
    assert "<strong>Tags:</strong>\n<span data-tag>Unreviewed</span> · <span data-tag>Viewed</span>" in second
    assert "Authors&#39; keywords" in second and "Unreviewed</a>" not in second
    # The authors' own spelling on their paper's page, linked to the keyword's one page.
    assert '<a href="../../keywords/deepfake/">deep-fake</a>' in second
    assert "tag" in explore_facets(digest)


# Search index


def test_search_text_shows_formulas_as_plain_text() -> None:
    assert readable_math(r"up to \(3.1\times\) faster") == "up to 3.1 times faster"
    assert (
        readable_math(r"rate \(O(1/\sqrt{T})\) and \(\mathcal{O}(n^{2})\)") == "rate O(1/ sqrt T) and O(n^2)"
    )
    assert readable_tex(r"\bf{\Phi}_\textrm{Flow}: Differentiable") == "bf Phi_Flow: Differentiable"
    # arithmatex writes < and > as \lt and \gt; the page's text is HTML, so the signs stay escaped
    assert readable_math(r"an order \(\lt\) with \(a \gt b\)") == "an order &lt; with a &gt; b"
    assert readable_tex(r"a \lt b") == "a < b"


SEARCHED_PAGE = (
    '<html lang="de"><head><title>x</title></head><body><header>Site</header>'
    '<article class="md-content__inner md-typeset" data-pagefind-body>'
    '<h1 id="t">\\(\\delta\\)-nets<a class="headerlink" href="#t" title="Permanent link">&para;</a></h1>'
    '<p class="paper-meta"><strong>Authors:</strong> <span data-author>Ann &lt;b&gt;</span>, '
    "<span data-author>Bob</span><br />\n<strong>Venue:</strong> ICML</p>"
    "<p><em>The title was written by Paper Digest from the abstract.</em></p>"
    "<p>A \\(\\delta\\)-net covers.</p>"
    '<div class="copy paper-bibtex" data-search-exclude><pre><code>@misc{x}</code></pre></div>'
    '<h2 data-search-exclude id="related">Related papers</h2><ol><li>Another title</li></ol>'
    '<h3 id="n">Still excluded</h3><p>under the excluded heading</p>'
    '<h2 id="notes">Notes</h2><p>kept</p>'
    "</article><footer>Made with Material</footer></body></html>"
)


def test_searched_page_is_its_article_with_readable_math_and_authors() -> None:
    page = searchable_page(SEARCHED_PAGE)
    assert page is not None
    assert page.startswith('<!DOCTYPE html><html lang="de">')
    assert "Site" not in page and "Material" not in page, "only the article is indexed"
    assert '<h1 id="t">delta-nets</h1>' in page, "no TeX delimiters, no permalink"
    assert "A delta-net covers." in page
    assert '<span data-pagefind-meta="authors"><span data-author>Ann &lt;b&gt;</span>, ' in page
    assert '<div class="copy paper-bibtex" data-pagefind-ignore>' in page
    # An excluded heading takes its section with it, up to the next heading of its level.
    assert "Related" not in page and "Another title" not in page and "Still excluded" not in page
    # The authors line follows the text (a result's excerpt is the text after its title).
    assert '<h2 id="notes">Notes</h2><p>kept</p><p class="paper-meta">' in page
    assert page.endswith("<strong>Venue:</strong> ICML</p></article></body></html>")
    assert "<p data-pagefind-ignore><em>The title was written by Paper Digest" in page
    # Pages without the mark (search: exclude) are not searched.
    assert searchable_page(SEARCHED_PAGE.replace(" data-pagefind-body", "")) is None


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab \\(){}_^$<>&;x\n")), max_size=60))
def test_readable_math_keeps_words(text: str) -> None:
    once = readable_math(text)
    words = lambda value: set(re.findall(r"[a-z]+", value))  # noqa: E731
    assert words(once) <= words(text)

"""Rendering: the analysed digest -> Markdown pages (Jinja2 templates) and ``papers.json``.

Everything that came from an input file is data. It reaches Markdown only through
``markdown_text`` (prose that keeps Markdown emphasis and TeX math but never becomes HTML or a
link to anything but http(s)) or as an escaped plain string.
"""

from __future__ import annotations

import functools
import hashlib
import html
import importlib.metadata
import itertools
import json
import math
import posixpath
import re
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape
from pymdownx.arithmatex import RE_BRACKET_INLINE, RE_SMART_DOLLAR_INLINE

from generator import DISTRIBUTION, __version__, source_fingerprint
from generator.analysis.explain import closeness_text
from generator.analysis.text import find_math_spans, keyword_slug
from generator.model import AnalysedPaper, Digest
from generator.progress import plural
from generator.site.bibtex import bibtex_entry, bibtex_file, citation_of, citation_text
from generator.site.feed import FEED_NAME, atom_feed
from generator.site.output import LazyFile
from generator.site.plain_math import readable_title, with_math_as
from generator.sources.identity import Redirect

TEMPLATES_DIR = Path(__file__).with_name("templates")
"""The packaged page templates."""
PAPERS_DIR = "papers"
KEYWORDS_DIR = "keywords"
LIST_DIR = "browse"
KEYWORD_LIST_DIR = "keyword-list"
KEYWORDS_PER_LIST_PAGE = 300
"""About 60 bytes of HTML each: 300 keep a page of the keyword index under 40 KB."""
KEYWORDS_PER_LIST_ENTRY = 3
"""Keywords shown, as plain text, under each paper in the list of papers: with 3, a page of 100 papers
stays under 40 KB at a whole conference (all 5, or links, would not)."""
TOPICS_DIR = "topics"
MAP_PAGE = "map.md"
MAP_DATA = "assets/paper-map.js"
"""The map's points, loaded by the site's javascripts/map.js (in ``assets/`` here): kept out of the
page so it stays small, and a script rather than JSON so the map also works from a site opened
from disk (file:// forbids fetch)."""
MAP_DATA_PREFIX = "window.paperDigestMap = "
MAP_DECIMALS = 4
EXPORT_NAME = "papers.json"
DATA_FILES = (MAP_DATA, EXPORT_NAME)
"""The files that hold the papers' map positions (``PageRenderer.render_data``)."""
BIBTEX_EXPORT_NAME = "papers.bib"
"""Every paper as a BibTeX entry, for reference managers. No map positions in it, so it is written
with the pages, not after the map (``DATA_FILES``)."""
MIN_PAPERS_PER_KEYWORD_PAGE = 3
"""A keyword gets a page of its own when this many papers share it. A keyword of two papers links to
Explore filtered by it, which lists the same two: its own page would be 7 KB of the theme's header and
navigation around two links, and such keywords are the most numerous (602 of 1,421 keyword pages at
ICML 2024, 4.5 MB of its site)."""
EXPLORE_PAGE = "explore.md"
SAVED_PAGE = "saved.md"
EXPLORE_DATA = "assets/explore.json"
"""Every paper's title, authors, keywords, topic, venue and year, for the Explore and My list pages
(read by javascripts/reader.js): names are listed once and papers point at them by position."""

_LINK = re.compile(r"(!?)\[([^\[\]\n]*)\]\(((?:[^()\s]|\([^()\s]*\))*)(?:\s+\"[^\"]*\")?\)")
_ARITHMATEX_INLINE = re.compile(f"{RE_SMART_DOLLAR_INLINE}|{RE_BRACKET_INLINE}", re.S)
"""Inline math as arithmatex finds it (as configured in mkdocs.yml): the formula is group 3 or 6."""
_SAFE_URL = re.compile(r"^https?://[^\s<>\"']+$", re.I)
# Characters that would start Markdown structure inside inline text: escaped so titles, names and
# venues read literally. Emphasis (*, _) is left alone in prose on purpose. Not "~": the site's
# Markdown gives it no meaning, and does not unescape "\~", which would show its backslash.
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]{}#+!|$])")


def is_safe_url(url: str | None) -> bool:
    return bool(url) and bool(_SAFE_URL.match(url or ""))


def _escape_prose(text: str) -> str:
    """HTML-escape, keep links to http(s) (images become links), and make every other bracket
    literal, so no other link, image or reference definition can form."""

    def literal(part: str) -> str:
        return _escape_markdown_specials(html.escape(part, quote=False), "\\$[]{}")

    pieces = []
    last = 0
    for match in _LINK.finditer(text):
        pieces.append(literal(text[last : match.start()]))
        label, target = match.group(2), match.group(3)
        if is_safe_url(target):
            pieces.append(f"[{literal(label)}]({html.escape(target)})")
        else:
            pieces.append(literal(label))
        last = match.end()
    pieces.append(literal(text[last:]))
    return "".join(pieces)


def _escape_markdown_specials(text: str, characters: str) -> str:
    return "".join(f"\\{c}" if c in characters else c for c in text)


def _safe_math(math: str) -> str:
    """A math span (on one line) in a form arithmatex reads as inline math exactly where
    ``find_math_spans`` found it; anything else would leave its contents to Markdown, links
    included. ``$$…$$`` and ``\\[…\\]`` in running text become inline math (arithmatex reads them
    only as blocks), inner spaces trimmed as its ``$…$`` requires; a span that cannot be made so is
    shown as text: one arithmatex would not read whole, or one holding a backtick (Markdown reads code
    spans first, so a backtick would end the formula). ``<`` becomes TeX's ``\\lt``, so no span can
    open an HTML tag."""
    formula = math
    if math.startswith(("$$", "\\[")):
        inner = math[2:-2].strip()
        formula = f"${inner}$" if math.startswith("$$") else f"\\({inner}\\)"
    formula = formula.replace("<", "\\lt ")
    if formula.endswith("\\lt $"):  # arithmatex reads no "$…$" that ends in a space
        formula = formula[:-2] + "$"
    read = _ARITHMATEX_INLINE.fullmatch(formula)
    if read is None or not (read.group(3) or read.group(6)) or "`" in formula:
        return _escape_prose(math)
    return formula


def markdown_text(text: str) -> Markup:
    """Untrusted prose as Markdown: emphasis and ``$…$`` math kept, HTML shown as text."""
    pieces = []
    last = 0
    for start, end in find_math_spans(text):
        pieces.append(_escape_prose(text[last:start]))
        # On one line: a line break inside a formula could let Markdown end the block there (a
        # "---" line makes a heading), leaving the formula's contents to be read as Markdown, links
        # included. In TeX a line break is a space.
        pieces.append(_safe_math(" ".join(text[start:end].split("\n")).replace("\r", " ")))
        last = end
    pieces.append(_escape_prose(text[last:]))
    return Markup("".join(pieces))


def markdown_literal(text: str) -> Markup:
    """Untrusted short text (a name, a venue) that must read exactly as written."""
    escaped = html.escape(" ".join(text.split()), quote=False)
    return Markup(_MARKDOWN_PUNCTUATION.sub(r"\\\1", escaped))


def markdown_title(text: str) -> Markup:
    """A title: math kept, everything else literal, on one line."""
    text = " ".join(text.split())
    pieces = []
    last = 0
    for start, end in find_math_spans(text):
        pieces.append(_literal_segment(text[last:start]))
        pieces.append(_safe_math(text[start:end]))
        last = end
    pieces.append(_literal_segment(text[last:]))
    return Markup("".join(pieces))


def _literal_segment(text: str) -> str:
    """``markdown_literal`` for the text between formulas: the spaces next to a formula stay."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(re.sub(r"\s+", " ", text), quote=False))


def plain_title(text: str) -> str:
    """A title as plain text for the browser tab and search: math keeps its TeX, minus delimiters."""
    return with_math_as(text, lambda formula: formula, lambda words: words)


_ENTITY = re.compile(r"&(?:#[0-9]+|#x[0-9a-f]+|[0-9a-z]+);", re.I)
"""What Python-Markdown leaves unescaped in text as a character reference."""


def html_title(text: str) -> Markup:
    """A title as HTML, as Python-Markdown shows ``markdown_title(text)``: math as arithmatex hands it
    to MathJax, everything else escaped text. For the long lists of papers, which are written as HTML
    so that MkDocs need not parse thousands of Markdown links."""
    text = " ".join(text.split())
    pieces = []
    last = 0
    for start, end in find_math_spans(text):
        math = _safe_math(text[start:end])
        if not math.startswith(("$", "\\(")):  # shown as text, Markdown and all: rare, so ask Markdown
            return _markdown_inline(markdown_title(text))
        inner = math[1:-1] if math.startswith("$") else math[2:-2]
        # Markdown writes a formula's "&name;" as it is, so a browser reads an entity there: decoded
        # here, then escaped again with everything else.
        inner = _ENTITY.sub(lambda entity: html.unescape(entity.group()), inner)
        pieces.append(escape(text[last:start]))
        pieces.append(Markup('<span class="arithmatex">\\({}\\)</span>').format(inner))
        last = end
    pieces.append(escape(text[last:]))
    return Markup("").join(pieces)


def _markdown_inline(text: str) -> Markup:
    """One line of Markdown as HTML, with the extensions of the site's Markdown that inline text uses."""
    import markdown

    converted = markdown.markdown(
        text,
        extensions=["tables", "pymdownx.arithmatex"],
        extension_configs={"pymdownx.arithmatex": {"generic": True}},
    )
    return Markup(converted.removeprefix("<p>").removesuffix("</p>"))


@dataclass(frozen=True)
class RenderOptions:
    directory_urls: bool = True
    papers_per_list_page: int = 100
    site_url: str | None = None
    """Where the site is served (MkDocs' ``site_url``): papers.bib links each paper's page by it."""
    site_date: int | None = field(default=None, repr=False)
    """The site's date, seconds since 1970 (``generator.site.source_date``): the feed dates a paper
    without a year by it. ``None``: today. Out of the ``repr`` that keys every page: it keys the feed
    alone, so a new date re-renders no page."""


class PageRenderer:
    """Turns a ``Digest`` into ``{relative path: file content}`` for the docs folder."""

    def __init__(self, options: RenderOptions | None = None, templates_override: Path | None = None) -> None:
        """``templates_override``: a folder whose templates replace the packaged ones of the same name."""
        self.options = options or RenderOptions()
        loaders = [FileSystemLoader(str(templates_override))] if templates_override else []
        self.environment = Environment(
            loader=ChoiceLoader([*loaders, FileSystemLoader(str(TEMPLATES_DIR))]),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.environment.filters["md"] = markdown_literal
        self.environment.filters["counted"] = plural  # "1 paper", "2 papers", "1,294 papers"
        self.environment.filters["md_text"] = markdown_text
        self.environment.filters["md_title"] = markdown_title
        self.environment.filters["plain_title"] = plain_title
        self.environment.filters["html_title"] = html_title
        # A Markdown link in raw HTML is not rewritten by MkDocs: `link | href(page)` is the address
        # MkDocs would have written for it on the page `page` (a docs path).
        self.environment.filters["href"] = self.site_href
        self.environment.filters["yaml"] = lambda value: Markup(json.dumps(value, ensure_ascii=True))
        # MkDocs themes print a page's front-matter title as HTML, unescaped (Material's <title> and
        # header), so a title from the input is escaped before it goes there.
        self.environment.filters["title_meta"] = lambda value: Markup(
            json.dumps(html.escape(str(value), quote=False), ensure_ascii=True)
        )

    def _site_date(self) -> int:
        if self.options.site_date is not None:
            return self.options.site_date
        return int(time.time()) // 86400 * 86400  # today, from midnight: the same all day

    def site_path(self, markdown_path: str) -> str:
        """The URL path (relative to the site root) that MkDocs gives a Markdown file."""
        stem = markdown_path.removesuffix(".md")
        if not self.options.directory_urls:
            return f"{stem}.html"
        if stem == "index":
            return ""
        return f"{stem.removesuffix('/index')}/"

    def site_href(self, link: str, page: str) -> str:
        """The URL of the Markdown link ``link`` (a docs path relative to the page ``page``, maybe with
        a fragment) relative to the page's own URL, as MkDocs writes it."""
        from mkdocs.utils import get_relative_url

        target, hash_mark, fragment = link.partition("#")
        url = self.site_path(posixpath.normpath(posixpath.join(posixpath.dirname(page), target)))
        # MkDocs names the site's root "./", where ``site_path`` gives "".
        return get_relative_url(url or "./", self.site_path(page) or "./") + hash_mark + fragment

    def render(self, digest: Digest) -> dict[str, str]:
        """Every file: the pages and the data files."""
        return self.render_pages(digest) | self.render_data(digest)

    def render_data(self, digest: Digest) -> dict[str, str]:
        """The files that hold the papers' map positions, which may be laid out after the pages are
        built: the map's points and ``papers.json``."""
        return {path: file.render() for path, file in self.data_files(digest, None).items()}

    def data_files(self, digest: Digest, digest_key: str | None) -> dict[str, LazyFile]:
        """``render_data``'s files, each keyed by ``digest_key`` (see ``page_files``)."""
        paper_paths = _paper_paths(digest)
        return {  # the keys of DATA_FILES
            MAP_DATA: self._whole_digest_file(
                digest_key, MAP_DATA, lambda: self._map_data(digest, paper_paths, _topic_paths(digest))
            ),
            EXPORT_NAME: self._whole_digest_file(
                digest_key, EXPORT_NAME, lambda: self.export(digest, paper_paths)
            ),
        }

    def _whole_digest_file(
        self, digest_key: str | None, path: str, render: Callable[[], str], also_keyed_by: object = None
    ) -> LazyFile:
        """A file made from all of the digest: keyed by the digest's own key, when there is one (and
        by ``also_keyed_by``, what else it reads)."""
        if digest_key is None:
            return LazyFile(key=None, render=render)
        return LazyFile(key=_hashed((self._templates_key(), digest_key, path, also_keyed_by)), render=render)

    def render_pages(self, digest: Digest) -> dict[str, str]:
        """The Markdown pages; no page shows a map position."""
        return {
            path: page.render() if isinstance(page, LazyFile) else page
            for path, page in self.page_files(digest).items()
        }

    def _paper_template_key(self) -> str | None:
        """What every paper page's key starts with: the code, the options and every template as
        loaded. ``None`` when an override replaces the paper template: it may read anything of the
        digest, so only rendering it tells whether it changed."""
        return self._templates_key() if self._is_shipped("paper.md.j2") else None

    @functools.cache  # noqa: B019 -- as ``_templates_key``; asked once per page, it read the file each time
    def _is_shipped(self, template: str) -> bool:
        _, filename, _ = self.environment.loader.get_source(self.environment, template)
        return filename is not None and Path(filename).parent == TEMPLATES_DIR

    @functools.cache  # noqa: B019 -- one renderer renders one build; its templates do not change
    def _templates_key(self) -> str:
        loader, environment = self.environment.loader, self.environment
        seen = hashlib.sha256(source_fingerprint().encode() + repr(self.options).encode())
        # What a page is made with beyond this package: the escaping, Markdown and slug libraries.
        for package in _RENDERING_PACKAGES:
            seen.update(f"{package} {_version(package)}\0".encode())
        for name in sorted(environment.list_templates(extensions=["j2"])):
            seen.update(name.encode() + b"\0" + loader.get_source(environment, name)[0].encode() + b"\0")
        return seen.hexdigest()

    def _templated(self, digest: Digest, template: str, **context: Any) -> str | LazyFile:
        """A page of the shipped ``template`` as a ``LazyFile`` keyed by what it is given: the
        context, and of the digest only what the shipped templates read (its name, model and size).
        A template of the project's own may read anything of the digest, so it is always rendered."""
        render = functools.partial(self._template(template).render, digest=digest, **context)
        if not self._is_shipped(template):
            return render()
        inputs = (
            self._templates_key(),
            template,
            digest.name,
            digest.model_name,
            len(digest.papers),
            context,
        )
        return LazyFile(key=_hashed(inputs), render=render)

    def page_files(self, digest: Digest, digest_key: str | None = None) -> dict[str, str | LazyFile]:
        """The Markdown pages, each paper's page as a ``LazyFile``: keyed by everything it shows, so a
        rebuild renders only the papers whose page changed; so are the other pages of the shipped
        templates. ``digest_key`` names the whole digest exactly (a stored analysis reused as it
        is): the files made from all of it (Explore's data, the feed, ``papers.bib``) are then keyed
        by it, else they are rendered."""
        keyword_papers = _keyword_index(digest.papers)
        keyword_pages = {
            keyword: f"{KEYWORDS_DIR}/{keyword_slug(keyword)}.md"
            for keyword, members in keyword_papers.items()
            if len(members) >= MIN_PAPERS_PER_KEYWORD_PAGE
        }
        paper_paths = _paper_paths(digest)
        topic_paths = _topic_paths(digest)
        files: dict[str, str | LazyFile] = {}
        template_key = self._paper_template_key()

        for index, paper in enumerate(digest.papers):
            path = paper_paths[index]
            source = paper.entry.paper
            # Names, venue, year and keywords without a page of their own link to Explore filtered
            # by them: reader.js makes the links from this address (see paper.md.j2).
            explore = self.site_href(_relative(EXPLORE_PAGE, PAPERS_DIR) or EXPLORE_PAGE, path)

            def keyword_link(text: str, shown: str | None = None, path: str = path) -> dict[str, str | None]:
                """A keyword as ``shown`` (the authors' spelling), linked to the page of ``text``."""
                page = keyword_pages.get(text)
                return {
                    "text": shown or text,
                    "page": self.site_href(_relative(page, PAPERS_DIR) or page, path) if page else None,
                }

            as_given = paper.author_keywords_as_given
            shown = dict(
                paper=_paper_view(paper),
                authors=list(source.authors),
                explore=explore,
                keywords=[keyword_link(k.text) for k in paper.keywords],
                author_keywords=[
                    keyword_link(k, given)
                    for k, given in itertools.zip_longest(paper.author_keywords, as_given)
                    if k is not None
                ],
                tags=list(source.tags),
                topic=None
                if paper.topic is None
                else {
                    "label": digest.topics[paper.topic].label,
                    "page": _relative(topic_paths[paper.topic], PAPERS_DIR),
                },
                map_page=_relative(MAP_PAGE, PAPERS_DIR) + f"#paper={paper.entry.slug}",
                related=[
                    {
                        "title": digest.papers[r.index].entry.title,
                        "page": _relative(paper_paths[r.index], PAPERS_DIR),
                        "score": r.score,
                        "closeness": None if r.closeness is None else closeness_text(r.closeness),
                        "shared_keywords": list(r.shared_keywords),
                    }
                    for r in paper.related
                ],
            )
            page = LazyFile(
                key=_page_key(template_key, path, paper, shown) if template_key else None,
                render=functools.partial(self._paper_page, digest, paper, shown),
            )
            files[path] = page if page.key else page.render()
        files.update(self._topic_pages(digest, paper_paths, topic_paths))
        files[MAP_PAGE] = self._map_page(digest)

        for keyword, path in keyword_pages.items():
            members = keyword_papers[keyword]
            size = self.options.papers_per_list_page
            for page in _paginate(members, size, path, path.removesuffix(".md")):
                files[page.path] = self._templated(
                    digest,
                    "keyword.md.j2",
                    keyword=keyword,
                    variants=list(digest.keyword_variants.get(keyword, ())),
                    count=len(members),
                    **self._page_of_papers(digest, page, paper_paths),
                )
        files.update(self._keyword_list_pages(digest, keyword_pages, keyword_papers))
        files.update(self._list_pages(digest, paper_paths))
        files[EXPLORE_PAGE] = self._templated(
            digest,
            "explore.md.j2",
            data_url=self._root_of(EXPLORE_PAGE) + EXPLORE_DATA,
            facets=explore_facets(digest),
            has_topics=bool(digest.topics),
        )
        files[SAVED_PAGE] = self._templated(
            digest,
            "saved.md.j2",
            data_url=self._root_of(SAVED_PAGE) + EXPLORE_DATA,
            explore_page=EXPLORE_PAGE,
        )
        files[EXPLORE_DATA] = self._whole_digest_file(
            digest_key, EXPLORE_DATA, lambda: self.explore_data(digest, paper_paths, keyword_papers)
        )
        site_date = self._site_date()  # once: the key and the feed it names agree
        files[FEED_NAME] = self._whole_digest_file(
            digest_key,
            FEED_NAME,
            lambda: atom_feed(digest, [self.site_path(p) for p in paper_paths], site_date),
            also_keyed_by=site_date,
        )
        files[BIBTEX_EXPORT_NAME] = self._whole_digest_file(
            digest_key, BIBTEX_EXPORT_NAME, lambda: self.export_bibtex(digest, paper_paths)
        )
        files["about.md"] = self._templated(
            digest,
            "about.md.j2",
            version=__version__,
            has_topics=bool(digest.topics),
            keyword_page_count=len(keyword_pages),
            min_papers_per_keyword_page=MIN_PAPERS_PER_KEYWORD_PAGE,
        )
        return files

    def _paper_page(self, digest: Digest, paper: AnalysedPaper, shown: dict[str, Any]) -> str:
        source = paper.entry.paper
        return self._template("paper.md.j2").render(
            digest=digest,
            # A link that is not http(s) stays out of the entry, as it stays off the page.
            bibtex=bibtex_entry(
                paper.entry
                if not source.url or is_safe_url(source.url)
                else replace(paper.entry, paper=replace(source, url=None))
            ),
            citation=citation_meta(paper),
            **shown,
        )

    def removed_paper_pages(self, redirects: Sequence[Redirect]) -> dict[str, str]:
        """The page at each removed paper's address (a redirect to nowhere): a page of the site like
        the others, named as the paper's page was, linking the paper where its input gave a link, the
        home page and the search. Not searched, not in the navigation (``not_in_nav``), marked
        ``noindex``, and left out of the sitemap by the finishing stage (``assets/moved.json`` lists
        it)."""
        template = self._template("removed.md.j2")
        pages = {}
        for redirect in redirects:
            if redirect.target is not None:
                continue
            note = redirect.page
            if note is not None and note.link and not is_safe_url(note.link):
                note = replace(note, link=None)
            path = f"{PAPERS_DIR}/{redirect.address}.md"
            pages[path] = template.render(
                note=note,
                heading="This paper is no longer in the digest",
                home=_relative("index.md", PAPERS_DIR),
            )
        return pages

    def _root_of(self, markdown_path: str) -> str:
        """The site's root as a URL relative to the page of ``markdown_path``."""
        return "../" * self.site_path(markdown_path).count("/")

    def explore_data(
        self, digest: Digest, paper_paths: list[str], keyword_papers: dict[str, list[int]]
    ) -> str:
        """The compact data file of the Explore and My list pages: each name once, in lists the papers
        point into; a paper is ``[url, title, [authors], [keywords], topic, venue, year, id, track,
        [tags]]`` with positions in those lists (-1 or null when absent; ``[tags]`` only when some
        paper has tags). ``keyword_variants`` holds ``[spelling, keyword position]`` for the other
        spellings of a keyword, so Explore finds "deep-fake" as "deepfake"."""
        authors: dict[str, int] = {}
        venues: dict[str, int] = {}
        tracks: dict[str, int] = {}
        tags: dict[str, int] = {}
        tagged = any(paper.entry.paper.tags for paper in digest.papers)
        keywords = {keyword: position for position, keyword in enumerate(keyword_papers)}
        papers = []
        for paper, path in zip(digest.papers, paper_paths, strict=True):
            source = paper.entry.paper
            own_keywords = dict.fromkeys([k.text for k in paper.keywords] + paper.author_keywords)
            papers.append(
                [
                    self.site_path(path),
                    readable_title(paper.entry.title),
                    [authors.setdefault(name, len(authors)) for name in source.authors],
                    [keywords[k] for k in own_keywords],
                    -1 if paper.topic is None else paper.topic,
                    -1 if not source.venue else venues.setdefault(source.venue, len(venues)),
                    source.year,
                    source.id,
                    -1 if not source.track else tracks.setdefault(source.track, len(tracks)),
                ]
                + ([[tags.setdefault(tag, len(tags)) for tag in source.tags]] if tagged else [])
            )
        data = {
            "topics": [topic.label for topic in digest.topics],
            "authors": list(authors),
            "keywords": list(keywords),
            "venues": list(venues),
            "tracks": list(tracks),
            "tags": list(tags),
            "keyword_variants": [
                [spelling, keywords[shown]]
                for shown, spellings in digest.keyword_variants.items()
                if shown in keywords
                for spelling in spellings
            ],
            "papers": papers,
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"

    def export(self, digest: Digest, paper_paths: list[str]) -> str:
        records = [
            {
                "id": paper.entry.paper.id,
                "slug": paper.entry.slug,
                "title": paper.entry.title,
                "url": self.site_path(paper_paths[index]),
                "authors": list(paper.entry.paper.authors),
                "keywords": [k.text for k in paper.keywords],
                "topic": None if paper.topic is None else digest.topics[paper.topic].label,
                "map": _map_point(paper.map_position),
                "related": [
                    {
                        "id": digest.papers[r.index].entry.paper.id,
                        "score": r.score,
                        "closeness": r.closeness,
                        "shared_keywords": list(r.shared_keywords),
                    }
                    for r in paper.related
                ],
            }
            for index, paper in enumerate(digest.papers)
        ]
        # Compact, one paper a line: a third smaller than indented, and still readable and diffable.
        lines = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) for record in records)
        return "[\n" + ",\n".join(lines) + "\n]\n"

    def export_bibtex(self, digest: Digest, paper_paths: list[str]) -> str:
        """``papers.bib``: every paper with its page in the digest as ``url`` (absolute when the site's
        address is known, else from the site root)."""
        base = (self.options.site_url or "").rstrip("/") + "/"
        entries = [
            bibtex_entry(paper.entry, url=base + self.site_path(paper_paths[index]))
            for index, paper in enumerate(digest.papers)
        ]
        note = f"{digest.name}: {len(entries)} papers, from {DISTRIBUTION} {__version__}"
        return bibtex_file(entries, comment=note)

    def _list_pages(self, digest: Digest, paper_paths: list[str]) -> dict[str, str | LazyFile]:
        files = {}
        listing = _paginate(
            range(len(digest.papers)), self.options.papers_per_list_page, "index.md", LIST_DIR
        )
        for page in listing:
            view = self._page_of_papers(digest, page, paper_paths)
            for item, i in zip(view["papers"], page.items, strict=True):
                item["keywords"] = [k.text for k in digest.papers[i].keywords[:KEYWORDS_PER_LIST_ENTRY]]
            files[page.path] = self._templated(digest, "index.md.j2", **view)
        return files

    @staticmethod
    def _page_of_papers(digest: Digest, page: _ListPage, paper_paths: list[str]) -> dict[str, Any]:
        """What every template of a page of papers is given: where it stands in its list, and its papers
        linked from its own folder."""
        return {
            "path": page.path,
            "page_number": page.number,
            "pages": page.links,
            "first": page.start + 1,
            "last": page.start + len(page.items),
            "papers": [
                {"title": digest.papers[i].entry.title, "page": _relative(paper_paths[i], page.folder)}
                for i in page.items
            ],
        }

    def _topic_pages(
        self, digest: Digest, paper_paths: list[str], topic_paths: list[str]
    ) -> dict[str, str | LazyFile]:
        files = {}
        for topic, path in zip(digest.topics, topic_paths, strict=True):
            size = self.options.papers_per_list_page
            for page in _paginate(topic.members, size, path, path.removesuffix(".md")):
                files[page.path] = self._templated(
                    digest,
                    "topic.md.j2",
                    topic=topic,
                    map_page=_relative(MAP_PAGE, page.folder) + f"#topic={_slug_of(path)}",
                    topics_page=_relative(f"{TOPICS_DIR}/index.md", page.folder),
                    **self._page_of_papers(digest, page, paper_paths),
                )
        files[f"{TOPICS_DIR}/index.md"] = self._templated(
            digest,
            "topics_index.md.j2",
            path=f"{TOPICS_DIR}/index.md",
            map_page=_relative(MAP_PAGE, TOPICS_DIR),
            topics=[
                {"label": topic.label, "page": _relative(path, TOPICS_DIR), "count": len(topic.members)}
                for topic, path in zip(digest.topics, topic_paths, strict=True)
            ],
        )
        return files

    def _map_page(self, digest: Digest) -> str | LazyFile:
        """The map page names its data and the site root by URLs relative to itself, as raw HTML
        links are not rewritten by MkDocs."""
        root = "../" * self.site_path(MAP_PAGE).count("/")
        return self._templated(
            digest,
            "map.md.j2",
            data_url=root + MAP_DATA,
            root=root,
            has_topics=bool(digest.topics),
            topics_url=root + self.site_path(f"{TOPICS_DIR}/index.md"),
        )

    def _map_data(self, digest: Digest, paper_paths: list[str], topic_paths: list[str]) -> str:
        data = {
            "topics": [
                {"label": topic.label, "slug": _slug_of(path), "url": self.site_path(path)}
                for topic, path in zip(digest.topics, topic_paths, strict=True)
            ],
            # [x, y, topic, title, url] per paper: compact, since a digest may hold thousands
            "papers": [
                [
                    *(_map_point(paper.map_position) or [0.5, 0.5]),
                    -1 if paper.topic is None else paper.topic,
                    readable_title(paper.entry.title),
                    self.site_path(path),
                ]
                for paper, path in zip(digest.papers, paper_paths, strict=True)
            ],
        }
        return MAP_DATA_PREFIX + json.dumps(data, ensure_ascii=False, separators=(",", ":")) + ";\n"

    def _keyword_list_pages(
        self, digest: Digest, keyword_pages: dict[str, str], keyword_papers: dict[str, list[int]]
    ) -> dict[str, str | LazyFile]:
        """The keyword index, split into pages short enough to stay small at a whole conference."""
        ordered = sorted(keyword_pages.items(), key=lambda item: item[0].casefold())
        listing = _paginate(ordered, KEYWORDS_PER_LIST_PAGE, f"{KEYWORDS_DIR}/index.md", KEYWORD_LIST_DIR)
        files = {}
        for page in listing:
            files[page.path] = self._templated(
                digest,
                "keywords_index.md.j2",
                path=page.path,
                page_number=page.number,
                pages=page.links,
                min_papers=MIN_PAPERS_PER_KEYWORD_PAGE,
                explore_page=_relative(EXPLORE_PAGE, page.folder) or EXPLORE_PAGE,
                keywords=[
                    {
                        "text": keyword,
                        "page": _relative(path, page.folder),
                        "count": len(keyword_papers[keyword]),
                    }
                    for keyword, path in page.items
                ],
            )
        return files

    def _template(self, name: str):
        return self.environment.get_template(name)


@dataclass(frozen=True)
class _ListPage:
    """One page of a long list: where it goes, what it shows, and links to all pages of the list."""

    number: int
    path: str
    folder: str
    start: int
    """The position of its first item in the whole list."""
    items: list[Any]
    links: list[dict[str, Any]]
    """The pages its pager links (``pager_numbers``), each with ``gap`` when pages are skipped before it."""


PAGER_ALL_UP_TO = 15
PAGER_WINDOW = 3


def explore_facets(digest: Digest) -> list[str]:
    """What Explore can narrow this digest's papers by: only what some paper has (reader.js draws a
    control for each from the same data), so a digest of bare abstracts shows no empty Author, Venue
    or Year control."""
    sources = [paper.entry.paper for paper in digest.papers]
    present = {
        "topic": bool(digest.topics),
        "keyword": any(paper.keywords or paper.author_keywords for paper in digest.papers),
        "author": any(source.authors for source in sources),
        "venue": any(source.venue for source in sources),
        "track": any(source.track for source in sources),
        "tag": any(source.tags for source in sources),
        "year": any(source.year for source in sources),
    }
    return [facet for facet, found in present.items() if found]


def pager_numbers(current: int, total: int) -> list[int]:
    """The page numbers a pager shows: all of a short list; of a long one the first, the last, the
    pages next to ``current``, every multiple of the largest power of ten below ``total`` and, at each
    smaller power down to ten, its multiples near ``current``. So ICML's 27 pages of papers show
    7 to 11 links and 50,000 papers' 500 pages 14 to 22, not all 500 on each page (13 KB of a list
    page, O(N²) over the site), and any page is a few clicks away."""
    if total <= PAGER_ALL_UP_TO:
        return list(range(1, total + 1))
    shown = {1, total, *range(max(1, current - PAGER_WINDOW), min(total, current + PAGER_WINDOW) + 1)}
    step = 10 ** int(math.log10(total))
    shown.update(range(step, total + 1, step))
    while step > 10:
        step //= 10
        low, high = max(step, current - 5 * step), min(total, current + 5 * step)
        shown.update(range(low - low % step, high + 1, step))
    return sorted(n for n in shown if 1 <= n <= total)


def _paginate(items: Sequence[Any], size: int, first_path: str, more_folder: str) -> list[_ListPage]:
    """Split ``items`` into pages: the first at ``first_path``, the rest at ``more_folder/N.md``."""
    chunks = [list(items[start : start + size]) for start in range(0, len(items), size)] or [[]]
    paths = [first_path] + [f"{more_folder}/{number}.md" for number in range(2, len(chunks) + 1)]
    pages = []
    for number, (path, chunk) in enumerate(zip(paths, chunks, strict=True), start=1):
        folder = path.rpartition("/")[0]
        numbers = pager_numbers(number, len(paths))
        links = [
            {"number": n, "page": _relative(paths[n - 1], folder), "gap": i > 0 and n > numbers[i - 1] + 1}
            for i, n in enumerate(numbers)
        ]
        pages.append(_ListPage(number, path, folder, (number - 1) * size, chunk, links))
    return pages


_RENDERING_PACKAGES = ("jinja2", "markupsafe", "markdown", "pymdown-extensions", "mkdocs", "python-slugify")


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def _page_key(template_key: str, path: str, paper: AnalysedPaper, shown: dict[str, Any]) -> str:
    """A paper page's inputs, hashed: what the template is shown and the entry its BibTeX entry and
    citation tags are made from, without where in the input files the paper was read (moving a
    paper within a file does not change its page)."""
    entry = replace(paper.entry, paper=replace(paper.entry.paper, source=None))
    # Scores as the page shows them, so that a similarity moving in its third decimal keeps the page.
    related = [{**link, "score": round(link["score"], 2)} for link in shown["related"]]
    return _hashed((template_key, path, entry, {**shown, "related": related}))


def _hashed(inputs: tuple[Any, ...]) -> str:
    """A docs file's key: the start of the sha256 of what it is made from, as Python writes it."""
    return hashlib.sha256(repr(inputs).encode()).hexdigest()[:32]


def _paper_view(paper: AnalysedPaper) -> dict[str, Any]:
    source = paper.entry.paper
    return {
        "path": f"{PAPERS_DIR}/{paper.entry.slug}.md",
        "id": source.id,
        "title": paper.entry.title,
        "title_was_derived": paper.entry.title_was_derived,
        "abstract": source.abstract,
        "authors": list(source.authors),
        "venue": source.venue,
        "year": source.year,
        "track": source.track,
        "url": source.url if is_safe_url(source.url) else None,
        "author_keywords": list(paper.author_keywords),
    }


def _scholar_venue_tags(entry_type: str) -> tuple[tuple[str, str], ...]:
    """The Highwire Press tags that name the paper's venue, with the BibTeX fields they are read from:
    a ``journal`` is a journal whatever the entry type, a ``booktitle`` a book for a chapter and a
    conference otherwise."""
    book = (
        "citation_inbook_title" if entry_type in ("incollection", "inbook") else "citation_conference_title"
    )
    tags = [
        ("citation_journal_title", "journal"),
        ("citation_journal_title", "journaltitle"),
        (book, "booktitle"),
    ]
    if entry_type == "techreport":
        tags += [
            ("citation_technical_report_institution", "institution"),
            ("citation_technical_report_number", "number"),
        ]
    if entry_type in ("phdthesis", "mastersthesis"):
        tags.append(("citation_dissertation_institution", "school"))
    return tuple(tags)


SCHOLAR_FIELD_TAGS = (
    ("citation_publisher", "publisher"),
    ("citation_isbn", "isbn"),
    ("citation_issn", "issn"),
    ("citation_doi", "doi"),
)
_PAGE_RANGE = re.compile(r"^\s*([^-–—\s]+)\s*(?:[-–—]+\s*([^-–—\s]+))?\s*$")


def citation_meta(paper: AnalysedPaper) -> list[list[str]]:
    """The paper's Google Scholar (Highwire Press) tags as ``[name, content]`` pairs, in the order
    Scholar's inclusion guidelines list them; the page's Markdown carries them to the finishing
    stage, which writes them into the page's head. Only what the source gave: no ``citation_title``
    for a title Paper Digest derived, the venue tag its entry type calls for
    (``citation_journal_title`` for an ``@article`` …)."""
    source = paper.entry.paper
    citation = citation_of(paper.entry)
    tags = [] if paper.entry.title_was_derived else [["citation_title", readable_title(paper.entry.title)]]
    tags += [["citation_author", name] for name in source.authors]
    if source.year:
        tags.append(["citation_publication_date", str(source.year)])
    for tag, name in _scholar_venue_tags(citation.entry_type):
        if (value := citation_text(citation, name)) and tag not in {t for t, _ in tags}:
            tags.append([tag, value])
    if volume := citation_text(citation, "volume"):
        tags.append(["citation_volume", volume])
    if citation.entry_type == "article" and (issue := citation_text(citation, "number")):
        tags.append(["citation_issue", issue])
    if pages := _PAGE_RANGE.match(citation_text(citation, "pages") or ""):
        tags.append(["citation_firstpage", pages.group(1)])
        if pages.group(2):
            tags.append(["citation_lastpage", pages.group(2)])
    tags += [[tag, value] for tag, name in SCHOLAR_FIELD_TAGS if (value := citation_text(citation, name))]
    link = citation_text(citation, "url") if source.citation is not None else source.url
    if is_safe_url(link):
        pdf = re.search(r"\.pdf$|arxiv\.org/pdf/", link or "", re.I)
        tags.append(["citation_pdf_url" if pdf else "citation_abstract_html_url", link or ""])
    return tags


def _paper_paths(digest: Digest) -> list[str]:
    return [f"{PAPERS_DIR}/{p.entry.slug}.md" for p in digest.papers]


def _topic_paths(digest: Digest) -> list[str]:
    """A page per topic, named after its label (topics are rebuilt with the digest, so their
    addresses are not meant to last)."""
    taken: set[str] = set()
    paths = []
    for topic in digest.topics:
        base = keyword_slug(topic.label)
        slug = next(s for s in (base, *(f"{base}-{n}" for n in range(2, len(taken) + 3))) if s not in taken)
        taken.add(slug)
        paths.append(f"{TOPICS_DIR}/{slug}.md")
    return paths


def _slug_of(path: str) -> str:
    return path.rpartition("/")[2].removesuffix(".md")


def _map_point(position: tuple[float, float] | None) -> list[float] | None:
    return None if position is None else [round(position[0], MAP_DECIMALS), round(position[1], MAP_DECIMALS)]


def _keyword_index(papers: list[AnalysedPaper]) -> dict[str, list[int]]:
    """Papers by keyword, counting the authors' keywords too: both lead to the same keyword page."""
    index: dict[str, list[int]] = defaultdict(list)
    for position, paper in enumerate(papers):
        for keyword in dict.fromkeys([k.text for k in paper.keywords] + paper.author_keywords):
            index[keyword].append(position)
    return dict(index)


def _relative(path: str | None, from_dir: str) -> str | None:
    """A Markdown link from a page in ``from_dir`` to ``path`` (both relative to the docs root)."""
    if path is None:
        return None
    if not from_dir:
        return path
    depth = from_dir.count("/") + 1
    return "../" * depth + path

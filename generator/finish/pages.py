"""Finishing the HTML pages an engine rendered, knowing nothing of the engine: only the HTML files, the
docs folder they were made from and the templates that wrote them.

Each page the engine wrote in this build (not a file it copied from the docs folder as it was, such
as a moved paper's redirect page) gets, in this order:

- the HTML the Markdown carries in ``<!--paper-digest-html`` comments unwrapped (the templates write
  the long lists of links so: Markdown passes over a comment whole, where it would parse each link
  or tag; ``templates/paper.md.j2`` says more);
- the head tags the Markdown carries in a ``<!--paper-digest-head`` comment (a paper's Google Scholar
  tags) moved into ``<head>``, with the feed's link on every page and this tool named in the
  generator tag;
- its article marked for search (``generator.site.search_text.SEARCHED``), unless its Markdown says
  ``<!--paper-digest-not-searched-->`` (the generated pages that are not papers) or, for a page of
  the owner's, its front matter says ``search: exclude: true`` (as Material's search read it);
- minified; the theme's inline scripts and icons moved into shared files
  (``generator.finish.theme_script_files``, ``generator.finish.icons``); then its
  Content-Security-Policy (``generator.finish.csp``), hashing the inline scripts left.

``404.html`` (the theme's own page, served at any address, where a relative link to a shared file
would miss) is only minified and given its policy. Then the feed gets the site's address, the
removed papers' pages (``assets/moved.json`` in the docs lists them) leave the sitemap
(``generator.finish.sitemap``), and the whole site is indexed for search
(``generator.finish.search_index``).
"""

from __future__ import annotations

import html
import logging
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from generator import DISTRIBUTION, __version__
from generator.finish.csp import theme_scripts, with_policy
from generator.finish.icons import ICONS_FOLDER, share_icons, write_icon_file
from generator.finish.minify import minify_html
from generator.finish.search_index import SearchIndexReport, write_search_index
from generator.finish.shared_files import write_shared_file
from generator.finish.sitemap import leave_out_of_sitemap
from generator.finish.theme_script_files import SCRIPTS_FOLDER, share_theme_scripts
from generator.site.feed import FEED_NAME
from generator.site.output import read_manifest
from generator.site.redirects import MOVED_DATA, removed_addresses
from generator.site.search_text import SEARCHED

log = logging.getLogger("paper_digest.finish")

HTML_MARK = "<!--paper-digest-html\n"
"""Opens a comment holding HTML that belongs in the page (``templates/paper.md.j2`` says why)."""
HEAD_MARK = "<!--paper-digest-head\n"
"""Opens a comment holding tags that belong in the page's ``<head>``."""
NOT_SEARCHED_MARK = "<!--paper-digest-not-searched-->"
"""In a page's Markdown: the page is left out of the search index."""
PAGE_TEMPLATES = ("main.html", "generated-page.html")
"""The templates pages are rendered with (Material's, and Paper Digest's for papers and keywords)."""
NOT_FOUND_PAGE = "404.html"

_WRAPPED_HTML = re.compile(re.escape(HTML_MARK) + r"(.*?)\n-->", re.S)
_HEAD_TAGS = re.compile(re.escape(HEAD_MARK) + r"(.*?)\n-->\n?", re.S)
_ARTICLE = '<article class="md-content__inner md-typeset">'
# The engine names itself (and Material) in the page's generator tag; the site names this tool beside them.
_GENERATOR_META = re.compile(r'(?<=<meta name="generator" content=")[^"]*')
_FEED_ROOT = re.compile(r'<feed xmlns="http://www\.w3\.org/2005/Atom"(?: xml:base="[^"]*")?>')
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)(?:---|\.\.\.)[ \t]*\n", re.S)


@dataclass(frozen=True)
class FinishOptions:
    site_name: str
    """The digest's name (plain text), the feed link's title."""
    site_url: str | None
    template_dirs: Sequence[Path]
    """Where the pages' templates were looked up, in order: which inline scripts are the theme's."""


@dataclass(frozen=True)
class FinishReport:
    pages: int
    """Pages finished in this build."""
    refused_scripts: int
    """Inline scripts left out of their page's policy (browsers will not run them)."""
    search: SearchIndexReport


PageStates = Mapping[str, tuple[int, int]]


def page_states(site_dir: Path) -> dict[str, tuple[int, int]]:
    """Each HTML file of the site with its modification time and size: taken before an engine updates
    a copied site, so that only the pages it wrote are finished again."""
    states: dict[str, tuple[int, int]] = {}
    root = str(site_dir)
    for folder, _, names in os.walk(site_dir):
        for name in names:
            if name.endswith(".html"):
                path = os.path.join(folder, name)
                status = os.stat(path)
                states[os.path.relpath(path, root).replace(os.sep, "/")] = (
                    status.st_mtime_ns,
                    status.st_size,
                )
    return states


def finish_site(
    site_dir: Path, docs_dir: Path, options: FinishOptions, before: PageStates | None = None
) -> FinishReport:
    """Finish the pages the engine wrote into ``site_dir`` (all of them, or with ``before``, those
    that changed since), then the feed and the search index."""
    page_theme = theme_scripts([str(folder) for folder in options.template_dirs], PAGE_TEMPLATES)
    not_found_theme = theme_scripts([str(folder) for folder in options.template_dirs], (NOT_FOUND_PAGE,))
    unsearched = _owner_pages_not_searched(docs_dir)
    has_feed = (site_dir / FEED_NAME).is_file()
    finished = refused = 0
    for relative, state in sorted(page_states(site_dir).items()):
        if before is not None and before.get(relative) == state:
            continue
        if (docs_dir / relative).is_file():
            continue  # copied as it was (a redirect page, the owner's own HTML)
        path = site_dir / relative
        text = path.read_text(encoding="utf-8")
        if relative == NOT_FOUND_PAGE:
            page, count = _policed(minify_html(text), not_found_theme, relative)
        else:
            page, count = _finished_page(
                text, relative, site_dir, options, page_theme, has_feed, relative not in unsearched
            )
        _replace(path, page)
        finished += 1
        refused += count
    _feed_base(site_dir / FEED_NAME, options.site_url)
    moved = docs_dir / MOVED_DATA
    if moved.is_file():
        leave_out_of_sitemap(site_dir, removed_addresses(moved.read_text(encoding="utf-8")))
    search = write_search_index(site_dir)
    return FinishReport(finished, refused, search)


def _finished_page(
    text: str,
    relative: str,
    site_dir: Path,
    options: FinishOptions,
    theme,
    has_feed: bool,
    owner_searched: bool,
) -> tuple[str, int]:
    root = "../" * relative.count("/")
    text, head = moved_head_tags(unwrapped_html(text))
    if has_feed:
        title = html.escape(options.site_name or "Papers", quote=True)
        head.insert(
            0, f'<link rel="alternate" type="application/atom+xml" title="{title}" href="{root}{FEED_NAME}">'
        )
    text = _GENERATOR_META.sub(rf"\g<0>, {DISTRIBUTION}-{__version__}", text, count=1)
    if head and "</head>" in text:
        text = text.replace("</head>", "\n".join(head) + "\n</head>", 1)
    searched = owner_searched
    if NOT_SEARCHED_MARK in text:
        searched = False
        text = text.replace(NOT_SEARCHED_MARK, "")
    if searched:
        text = text.replace(_ARTICLE, _ARTICLE[:-1] + f" {SEARCHED}>", 1)
    # Without its templates' indentation: the same page, a sixth smaller. The theme's inline scripts
    # move into shared files; then the policy, hashing the inline scripts left as they are written
    # (minifying leaves scripts as they are).
    text = minify_html(text)
    shared = share_theme_scripts(text, theme, f"{root}{SCRIPTS_FOLDER}")
    for file_name, script in shared.files.items():
        write_shared_file(site_dir, f"{SCRIPTS_FOLDER}/{file_name}", script)
    text, refused = _policed(shared.html, theme, relative)
    # The theme's icons once in the site, not in every page.
    icons = share_icons(text, f"{root}{ICONS_FOLDER}")
    write_icon_file(site_dir, icons)
    return icons.html, refused


def unwrapped_html(text: str) -> str:
    """The HTML the Markdown carried in ``<!--paper-digest-html`` comments made part of the page."""
    return _WRAPPED_HTML.sub(r"\1", text) if HTML_MARK in text else text


def moved_head_tags(text: str) -> tuple[str, list[str]]:
    """The page less its ``<!--paper-digest-head`` comments, and the tags they held."""
    if HEAD_MARK not in text:
        return text, []
    return _HEAD_TAGS.sub("", text), [match.group(1) for match in _HEAD_TAGS.finditer(text)]


def _policed(text: str, theme, relative: str) -> tuple[str, int]:
    page = with_policy(text, theme)
    for script in page.refused:
        log.warning(
            f"{relative}: an inline script that is not the theme's is left out of the page's "
            f"Content-Security-Policy, so browsers will not run it (put scripts in a file listed "
            f"under extra_javascript): {script.text[:80]!r}"
        )
    return page.html, len(page.refused)


def _owner_pages_not_searched(docs_dir: Path) -> set[str]:
    """The pages of the owner's Markdown (not the generator's) whose front matter says
    ``search: exclude: true``, by their HTML file in the site."""
    import yaml

    generated = set(read_manifest(docs_dir).get("files") or [])
    pages: set[str] = set()
    for path in docs_dir.rglob("*.md"):
        relative = path.relative_to(docs_dir).as_posix()
        if relative in generated:
            continue
        try:
            match = _FRONT_MATTER.match(path.read_text(encoding="utf-8"))
            meta = yaml.safe_load(match.group(1)) if match else None
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        search = meta.get("search") if isinstance(meta, dict) else None
        if isinstance(search, dict) and search.get("exclude") is True:
            pages.add(page_file(relative))
    return pages


def page_file(markdown: str) -> str:
    """The HTML file a Markdown file becomes with directory addresses (``use_directory_urls``)."""
    stem = markdown.removesuffix(".md")
    folder, _, name = stem.rpartition("/")
    if name in ("index", "README"):
        return f"{folder}/index.html" if folder else "index.html"
    return f"{stem}/index.html"


def _feed_base(path: Path, site_url: str | None) -> None:
    """The feed's relative links resolved against the site's address, when the site has one."""
    if not site_url or not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    base = html.escape(site_url if site_url.endswith("/") else site_url + "/", quote=True)
    root = f'<feed xmlns="http://www.w3.org/2005/Atom" xml:base="{base}">'
    _replace(path, _FEED_ROOT.sub(root, text, count=1))


def _replace(path: Path, text: str) -> None:
    """Written to a new file, not in place: a site being updated may share its files with the last
    one (hard links)."""
    staged = path.with_name(path.name + ".new")
    staged.write_text(text, encoding="utf-8")
    staged.replace(path)

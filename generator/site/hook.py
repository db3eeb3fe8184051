"""MkDocs hook (listed under ``hooks:`` in mkdocs.yml): names the site after the digest (and leaves
Topics out of its navigation when it has none), unwraps the
lists of links the templates write as HTML, writes each paper's Google Scholar tags and the feed's
link into the page's head, marks the pages search finds and indexes them with Pagefind once the site is
built (``generator.site.search_index``), minifies every page, writes its Content-Security-Policy
(``generator.site.csp``) and moves the theme's icons and inline scripts into shared files
(``generator.site.icons``, ``generator.site.theme_script_files``).

The generator records the collection's name in the docs folder's manifest, so a plain
``mkdocs build``, ``mkdocs serve`` or ``mkdocs gh-deploy`` shows the same title as
``paper-digest build``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.utils import get_relative_url

from generator import DISTRIBUTION, __version__
from generator.errors import DigestError
from generator.site.csp import theme_scripts, with_policy
from generator.site.feed import FEED_NAME
from generator.site.icons import ICONS_FOLDER, share_icons, write_icon_file
from generator.site.minify import minify_html
from generator.site.mkdocs_config import TOPICS_INDEX, has_topic_pages, nav_without
from generator.site.output import MANIFEST_NAME
from generator.site.search_index import write_search_index
from generator.site.search_text import SEARCHED
from generator.site.shared_files import write_shared_file
from generator.site.theme_script_files import SCRIPTS_FOLDER, share_theme_scripts

THEME_FOLDER = Path(__file__).with_name("theme")
"""Page templates of Paper Digest's own (``generated-page.html``), looked up after the owner's
``custom_dir`` and before the theme."""


def on_config(config):
    dirs = config["theme"].dirs
    if str(THEME_FOLDER) not in dirs:
        dirs.insert(1 if config["theme"].custom_dir else 0, str(THEME_FOLDER))
    manifest = Path(config["docs_dir"]) / MANIFEST_NAME
    try:
        recorded = json.loads(manifest.read_text(encoding="utf-8"))
        name, files = recorded.get("name"), recorded.get("files")
    except (OSError, ValueError, AttributeError):
        return config
    if isinstance(name, str) and name.strip():
        # Themes print site_name as HTML, unescaped; the name comes from an input file.
        config["site_name"] = html.escape(name.strip(), quote=False)
    if isinstance(files, list) and config["nav"] and not has_topic_pages(files):
        # A digest whose papers fall into no topics: its topics page only says so, so the
        # navigation leaves it out (the page stays, for links made when there were topics).
        config["nav"] = nav_without(config["nav"], TOPICS_INDEX)
    return config


HTML_MARK = "<!--paper-digest-html\n"
"""Opens a comment holding HTML that belongs in the page (``templates/paper.md.j2`` says why)."""
_WRAPPED_HTML = re.compile(re.escape(HTML_MARK) + r"(.*?)\n-->", re.S)


def on_page_content(content, page, config, files):
    # The templates' lists of links, which Markdown passed over as comments, become part of the page.
    return _WRAPPED_HTML.sub(r"\1", content) if HTML_MARK in content else content


log = get_plugin_logger("paper-digest")


def on_post_page(output, page, config):
    output = _GENERATOR_META.sub(rf"\g<0>, {DISTRIBUTION}-{__version__}", output, count=1)
    head = _head_tags(page, config)
    if head and "</head>" in output:
        output = output.replace("</head>", head + "</head>", 1)
    output = _searched(output, page)
    # The theme's icons and inline scripts once in the site, not in every page (404.html keeps its
    # own: it is served at any address, where a relative link to a file would miss).
    page_url = page.url or "./"
    output = _finished_page(
        output,
        page.file.src_uri,
        page.meta.get("template", "main.html"),
        config,
        scripts_href=get_relative_url(SCRIPTS_FOLDER, page_url),
    )
    shared = share_icons(output, get_relative_url(ICONS_FOLDER, page_url))
    write_icon_file(Path(config["site_dir"]), shared)
    return shared.html


def _head_tags(page, config) -> str:
    """The feed's link on every page; on a paper page, its Google Scholar (Highwire Press) tags,
    given by the template in the page's front matter. Every value is escaped as an attribute."""
    tags = []
    if (Path(config["docs_dir"]) / FEED_NAME).is_file():
        href = get_relative_url(FEED_NAME, page.url or "./")
        title = html.escape(str(config.get("site_name") or "Papers"), quote=True)
        tags.append(f'<link rel="alternate" type="application/atom+xml" title="{title}" href="{href}">')
    citation = page.meta.get("citation") if page.meta else None
    if isinstance(citation, list):
        for pair in citation:
            if isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair):
                name, content = (html.escape(v, quote=True) for v in pair)
                tags.append(f'<meta name="{name}" content="{content}">')
    return "\n".join(tags) + "\n" if tags else ""


_ARTICLE = '<article class="md-content__inner md-typeset">'
# Material names MkDocs and itself in the page's generator tag; the site names this tool beside them.
_GENERATOR_META = re.compile(r'(?<=<meta name="generator" content=")[^"]*')


def _searched(output: str, page) -> str:
    """The page's article marked for the search index, unless its front matter says
    ``search: exclude: true`` (as Material's search read it)."""
    search = page.meta.get("search") if page.meta else None
    if isinstance(search, dict) and search.get("exclude") is True:
        return output
    return output.replace(_ARTICLE, _ARTICLE[:-1] + f" {SEARCHED}>", 1)


@event_priority(-50)  # after every other plugin has written its pages
def on_post_build(config):
    site = Path(config["site_dir"])
    _feed_base(site / FEED_NAME, config.get("site_url"))
    try:
        report = write_search_index(site)
    except DigestError as error:
        raise PluginError(str(error)) from None
    log.info(f"search index: {report.pages} pages, {report.size / 1e6:.2f} MB in {report.seconds:.1f}s")


_FEED_ROOT = re.compile(r'<feed xmlns="http://www\.w3\.org/2005/Atom"(?: xml:base="[^"]*")?>')


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


def on_post_template(output, template_name, config):
    # The theme's own pages (404.html) get the same treatment; sitemap.xml is no page.
    if not template_name.endswith(".html"):
        return output
    return _finished_page(output, template_name, template_name, config)


def _finished_page(output: str, name: str, template: str, config, scripts_href: str | None = None) -> str:
    # Without its templates' indentation: the same page, a sixth smaller. With ``scripts_href``, the
    # theme's inline scripts move into shared files there. Then the policy, hashing the inline
    # scripts left as they are written (minifying leaves scripts as they are).
    theme = theme_scripts(config["theme"].dirs, (template,))
    html_text = minify_html(output)
    if scripts_href is not None:
        shared = share_theme_scripts(html_text, theme, scripts_href)
        for file_name, text in shared.files.items():
            write_shared_file(Path(config["site_dir"]), f"{SCRIPTS_FOLDER}/{file_name}", text)
        html_text = shared.html
    page = with_policy(html_text, theme)
    for script in page.refused:
        log.warning(
            f"{name}: an inline script that is not the theme's is left out of the page's "
            f"Content-Security-Policy, so browsers will not run it (put scripts in a file listed "
            f"under extra_javascript): {script.text[:80]!r}"
        )
    return page.html

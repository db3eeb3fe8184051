"""Pages left at the addresses of papers that moved or were removed, so old links, bookmarks and My-list
entries keep working (``generator.sources.identity`` says which addresses those are).

Each is a small HTML file of its own, written into the docs folder where the paper's page was
(``papers/<address>/index.html``): the engine copies it as it is, so it is no page of the site's: not
in the sitemap, not in the navigation, and not in the search index (Pagefind indexes only the pages
the finishing stage marks; it leaves files copied from the docs as they are). A moved paper's page
sends the reader on at once with ``<meta http-equiv="refresh">``, which
needs no script, so the page's Content-Security-Policy refuses every script and every other source. A
removed paper's page says so and links the home page; it does not go there by itself, since a timed
refresh moves a reader on before they may have read the note (WCAG 2.2.1, axe's meta-refresh).

``assets/moved.json`` lists the same addresses for My list (``javascripts/reader.js``): a saved
paper that moved is kept under its new address, one that was removed is shown as no longer here.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

from generator.sources.identity import PageNote, Redirect

MOVED_DATA = "assets/moved.json"
POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'"
"""Nothing to load and nothing to run: the page is its text, its links and the refresh."""


def redirect_files(redirects: Sequence[Redirect], papers_dir: str) -> dict[str, str]:
    """Each redirect's page by its path in the docs folder, and ``MOVED_DATA``."""
    files = {f"{papers_dir}/{r.address}/index.html": redirect_page(r, papers_dir) for r in redirects}
    moved = {
        f"{papers_dir}/{r.address}/": None if r.target is None else f"{papers_dir}/{r.target}/"
        for r in redirects
    }
    files[MOVED_DATA] = json.dumps({"moved": moved}, ensure_ascii=False, sort_keys=True) + "\n"
    return files


def removed_paper_text(page: PageNote | None) -> str:
    """What the note at a removed paper's address says of it, as HTML: its name, and where the paper
    itself is when its input gave a link."""
    if page is None:
        return "A paper's page was here; the paper has since been removed from the digest."
    name = html.escape(page.title)
    said = (
        f"This page was “{name}” (a title the digest chose from its abstract)"
        if page.title_was_derived
        else f"This page was the paper “{name}”"
    )
    text = f"{said}; it has since been removed from the digest."
    if page.link:
        link = html.escape(page.link, quote=True)
        text += f' The paper itself is still at <a href="{link}">{html.escape(page.link)}</a>.'
    return text


def redirect_page(redirect: Redirect, papers_dir: str) -> str:
    """The page at a paper's old address (``<papers_dir>/<address>/``)."""
    home = "../" * (papers_dir.count("/") + 2)
    if redirect.target is not None:
        target = html.escape(f"../{redirect.target}/", quote=True)
        title = "This paper has moved"
        refresh = f"0; url={target}"
        body = f'<p>This paper has a new address: <a href="{target}">go to its page</a>.</p>'
        canonical = f'<link rel="canonical" href="{target}">\n'
    else:
        title = "This paper is no longer in the digest"
        refresh = None
        body = (
            f"<p>{removed_paper_text(redirect.page)}</p>\n"
            f'<p><a href="{home}">Go to the home page</a> to find other papers, or search them there.</p>'
        )
        canonical = ""
    refresh_tag = f'<meta http-equiv="refresh" content="{refresh}">\n' if refresh else ""
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n{refresh_tag}'
        '<meta name="robots" content="noindex">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n{canonical}'
        f"<title>{title}</title>\n</head>\n<body>\n<main>\n<h1>{title}</h1>\n{body}\n</main>\n</body>\n</html>\n"
    )

"""Pages left at the addresses of papers that moved or were removed, so old links, bookmarks and My-list
entries keep working (``generator.sources.identity`` says which addresses those are).

A moved paper's page is a small HTML file of its own, written into the docs folder where the paper's
page was (``papers/<address>/index.html``): the engine copies it as it is, so it is no page of the
site's: not in the sitemap, not in the navigation, and not in the search index (Pagefind indexes
only the pages the finishing stage marks; it leaves files copied from the docs as they are). It
sends the reader on at once with ``<meta http-equiv="refresh">``, which needs no script, so the
page's Content-Security-Policy refuses every script and every other source.

A removed paper's page is a page of the site, in its theme (``PageRenderer.removed_paper_pages``,
``templates/removed.md.j2``): it names the paper and links it, the home page and the search. It
does not go anywhere by itself, since a timed refresh moves a reader on before they may have read
the note (WCAG 2.2.1, axe's meta-refresh).

``assets/moved.json`` lists the same addresses for My list (``javascripts/reader.js``): a saved
paper that moved is kept under its new address, one that was removed is shown as no longer here.
The finishing stage reads it too, to keep the removed papers' pages out of the sitemap.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

from generator.sources.identity import Redirect

MOVED_DATA = "assets/moved.json"
POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'"
"""A moved paper's page: nothing to load and nothing to run, only its text, its link and the refresh."""


def redirect_files(redirects: Sequence[Redirect], papers_dir: str) -> dict[str, str]:
    """Each moved paper's page by its path in the docs folder, and ``MOVED_DATA`` (moved and removed)."""
    files = {
        f"{papers_dir}/{r.address}/index.html": redirect_page(r, papers_dir)
        for r in redirects
        if r.target is not None
    }
    moved = {
        f"{papers_dir}/{r.address}/": None if r.target is None else f"{papers_dir}/{r.target}/"
        for r in redirects
    }
    files[MOVED_DATA] = json.dumps({"moved": moved}, ensure_ascii=False, sort_keys=True) + "\n"
    return files


def removed_addresses(moved_json: str) -> list[str]:
    """The removed papers' addresses (paths from the site's root) in ``MOVED_DATA``'s text."""
    moved = json.loads(moved_json).get("moved") or {}
    return sorted(address for address, target in moved.items() if target is None)


def redirect_page(redirect: Redirect, papers_dir: str) -> str:
    """The page at a moved paper's old address (``<papers_dir>/<address>/``), sending the reader on."""
    if redirect.target is None:
        raise ValueError(f"{redirect.address}: a removed paper's page is rendered with the site's pages")
    target = html.escape(f"../{redirect.target}/", quote=True)
    title = "This paper has moved"
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
        f'<meta http-equiv="refresh" content="0; url={target}">\n'
        '<meta name="robots" content="noindex">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<link rel="canonical" href="{target}">\n'
        f"<title>{title}</title>\n</head>\n<body>\n<main>\n<h1>{title}</h1>\n"
        f'<p>This paper has a new address: <a href="{target}">go to its page</a>.</p>\n'
        "</main>\n</body>\n</html>\n"
    )

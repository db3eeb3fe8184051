"""The theme's inline scripts kept once in the site, as files, instead of in every page.

Material writes three small scripts into every page: the storage scope in ``<head>``, the colour
palette restored before the page is drawn, and the content tabs' anchor check: about 1.2 KB a page
with their hashes in the page's Content-Security-Policy, some 5 MB of a 4,000-page conference site.
Each becomes ``<script src="…/assets/javascripts/theme/HASH.js"></script>`` at the same place,
holding the same text: a classic script runs where it stands and blocks the parser as the inline one
did, so the palette is still set before the page is shown, and the browser fetches each file once.
Material's instant navigation re-inserts the scripts of the page it swaps in, ``src`` and all.

Only scripts the theme's templates write are moved (``ThemeScripts``, the same test the policy uses
to allow an inline script); anything else stays inline, gets no hash and is refused by browsers. A
file's name is a hash of its text, so pages with the same script share a file, a file is written
once and never changed, and a rebuild that renders a few pages leaves the others' files in place.
"""

from __future__ import annotations

import hashlib
import html
from dataclasses import dataclass

from generator.finish.csp import ThemeScripts, inline_scripts

SCRIPTS_FOLDER = "assets/javascripts/theme"

_START_TAG = "<script>"
_END_TAG = "</script>"


@dataclass(frozen=True)
class SharedScripts:
    """A page with its theme scripts replaced by ``src`` references, and the files they name."""

    html: str
    files: dict[str, str]
    """File name (under ``SCRIPTS_FOLDER``) to script text."""


def share_theme_scripts(page: str, theme: ThemeScripts, folder_href: str) -> SharedScripts:
    """Replace each inline script of ``page`` that the theme wrote by a reference to a file under
    ``folder_href`` (the scripts folder's address relative to the page)."""
    files: dict[str, str] = {}
    pieces: list[str] = []
    last = 0
    for script in inline_scripts(page):
        if not theme.written_by_theme(script):
            continue
        body_start = script.start + len(_START_TAG)
        body_end = body_start + len(script.text)
        if not (page.startswith(_START_TAG, script.start) and page.startswith(_END_TAG, body_end)):
            continue  # tags spelled otherwise (no theme writes them): left inline, and hashed
        name = hashlib.sha256(script.text.encode("utf-8")).hexdigest()[:12] + ".js"
        files[name] = script.text
        href = html.escape(f"{folder_href.rstrip('/')}/{name}", quote=True)
        pieces += [page[last : script.start], f'<script src="{href}"></script>']
        last = body_end + len(_END_TAG)
    if not files:
        return SharedScripts(page, {})
    pieces.append(page[last:])
    return SharedScripts("".join(pieces), files)

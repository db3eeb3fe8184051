"""The theme's icons kept once in the site instead of in every page.

Material writes each icon of its header, navigation and buttons into every page as an inline SVG
(the logo and the search icon twice): about 2.5 KB a page, a tenth of a paper page and some 7 MB
of a 2,600-paper conference. Here every such icon in a page becomes a reference into one small SVG
file of symbols (``<svg><use xlink:href="…/assets/icons/SET.svg#ID"/></svg>``), fetched once and cached by
the browser; the icon is drawn the same, in the text's colour, in light and dark mode alike.

Nothing is shared between pages in memory: a page's icons name their own file (its name is a hash of
the icons it holds), so every page with the same header points at the same file, a file is written
only once, and a rebuild that renders a few pages (``generator/engine/mkdocs_update.py``) finds the files of
the pages it leaves alone where they were.

Only the form Material writes is replaced (an ``svg`` element with just ``xmlns`` and ``viewBox``
holding one ``path`` with just ``d``); any other SVG in a page is left as it is.
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass
from pathlib import Path

from generator.finish.shared_files import write_shared_file

ICONS_FOLDER = "assets/icons"

_INLINE_ICON = re.compile(
    r'<svg xmlns="http://www\.w3\.org/2000/svg" viewBox="([0-9. -]+)"><path d="([^"<>]+)"/></svg>'
)


@dataclass(frozen=True)
class SharedIcons:
    """A page with its inline icons replaced by references, and the symbol file they point into."""

    html: str
    file_name: str | None
    """Under ``ICONS_FOLDER``; ``None`` when the page has no icon to share."""
    file_content: str


def share_icons(page: str, folder_href: str) -> SharedIcons:
    """Replace the page's inline icons by references into one file under ``folder_href`` (the
    icons folder's address relative to the page)."""
    icons = {}
    for match in _INLINE_ICON.finditer(page):
        view_box, path = match.groups()
        icons.setdefault((view_box, path), _icon_id(view_box, path))
    if not icons:
        return SharedIcons(page, None, "")
    symbols = "".join(
        f'<symbol id="{icon_id}" viewBox="{view_box}"><path d="{path}"/></symbol>'
        for (view_box, path), icon_id in sorted(icons.items(), key=lambda item: item[1])
    )
    content = f'<svg xmlns="http://www.w3.org/2000/svg">{symbols}</svg>\n'
    file_name = hashlib.sha256(content.encode()).hexdigest()[:12] + ".svg"
    href = html.escape(f"{folder_href.rstrip('/')}/{file_name}", quote=True)

    def reference(match: re.Match) -> str:
        view_box, path = match.groups()
        # The viewBox stays: it gives the icon its shape where the theme sizes it by height alone.
        # xlink:href, not href: Material's instant navigation rewrites every element's [href] as a
        # property, which an SVG use element has only as a getter (a page error on every page).
        return f'<svg viewBox="{view_box}"><use xlink:href="{href}#{icons[(view_box, path)]}"/></svg>'

    return SharedIcons(_INLINE_ICON.sub(reference, page), file_name, content)


def _icon_id(view_box: str, path: str) -> str:
    return "i" + hashlib.sha256(f"{view_box}\n{path}".encode()).hexdigest()[:8]


def write_icon_file(site_dir: Path, shared: SharedIcons) -> None:
    """Write the page's symbol file unless an earlier page already did (the name is the content's hash)."""
    if shared.file_name is not None:
        write_shared_file(site_dir, f"{ICONS_FOLDER}/{shared.file_name}", shared.file_content)

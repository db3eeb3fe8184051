"""Pages of the site kept out of its sitemap: the removed papers' pages (``generator.site.redirects``).

They are pages like the others, rendered by the engine in the site's theme, so each engine lists them
in ``sitemap.xml``, from its own template (MkDocs and Zensical each have one, shaped differently). A
sitemap names the pages a search engine should index, and these say ``noindex``: they are taken out
here, after the engine, the same way for both. MkDocs also writes ``sitemap.xml.gz``; it is written
again from the new text, with the time its header held (the site stays reproducible).
"""

from __future__ import annotations

import gzip
import html
import re
import struct
from collections.abc import Collection
from pathlib import Path

SITEMAP = "sitemap.xml"
_URL_ENTRY = re.compile(r"\s*<url>\s*<loc>([^<]*)</loc>.*?</url>", re.S)


def sitemap_without(text: str, addresses: Collection[str]) -> str:
    """``text`` (a sitemap) less the entries of the pages at ``addresses`` (paths from the site's root,
    such as ``papers/x/``), whatever the site's own address."""
    ends = tuple("/" + address.lstrip("/") for address in addresses)
    if not ends:
        return text

    def kept(entry: re.Match[str]) -> str:
        return "" if html.unescape(entry.group(1).strip()).endswith(ends) else entry.group(0)

    return _URL_ENTRY.sub(kept, text)


def leave_out_of_sitemap(site_dir: Path, addresses: Collection[str]) -> None:
    """The site's sitemap (and its gzipped copy, when there is one) without the pages at ``addresses``."""
    path = site_dir / SITEMAP
    if not addresses or not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    kept = sitemap_without(text, addresses)
    if kept == text:
        return
    _replace(path, kept.encode("utf-8"))
    zipped = site_dir / f"{SITEMAP}.gz"
    if zipped.is_file():
        header = zipped.read_bytes()[:8]
        mtime = struct.unpack("<I", header[4:8])[0] if len(header) == 8 else 0
        staged = zipped.with_name(zipped.name + ".new")
        with (
            open(staged, "wb") as file,
            gzip.GzipFile(fileobj=file, filename=zipped.name, mode="wb", mtime=mtime) as packed,
        ):
            packed.write(kept.encode("utf-8"))
        staged.replace(zipped)


def _replace(path: Path, data: bytes) -> None:
    """Written to a new file, not in place: a site being updated may share its files with the last one
    (hard links)."""
    staged = path.with_name(path.name + ".new")
    staged.write_bytes(data)
    staged.replace(path)

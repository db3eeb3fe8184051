"""The digest's Atom feed (RFC 4287): its newest papers, for a reader's feed reader.

Papers are ordered by the year the input gives, newest first, and within a year (or without one) in
input order; the newest ``FEED_SIZE`` are kept. Links are relative to the feed (a feed
reader resolves them against the feed's address; the finishing stage adds ``xml:base`` when the site's
address is known). An input gives no date finer than the year, so an entry's ``updated`` is 1 January
of its year. A paper without a year is dated by the site (``generator.site.source_date``: the newest
change to any input, so never before the paper was given, though a later change to another input
dates it again): a feed reader shows a date near when it arrived, not 1 January 1970, and the same
inputs give the same feed. Papers without a year still come after those with one, so the newest
``FEED_SIZE`` are those whose year says they are.
"""

from __future__ import annotations

import re
import time
import uuid
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence

from generator import DISTRIBUTION, __version__
from generator.model import Digest
from generator.site.plain_math import readable_title

FEED_NAME = "feed.xml"
FEED_SIZE = 50
ATOM = "http://www.w3.org/2005/Atom"
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters XML 1.0 cannot hold at all, not even escaped."""


def xml_text(text: str) -> str:
    return _NOT_XML.sub("", text)


def atom_feed(digest: Digest, urls: Sequence[str], site_date: int) -> str:
    """The feed of ``digest``; ``urls`` are the papers' page addresses relative to the site root;
    ``site_date`` (seconds since 1970) dates the papers without a year."""
    site_updated = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(site_date))
    order = sorted(range(len(digest.papers)), key=lambda i: (-(digest.papers[i].entry.paper.year or 0), i))
    order = order[:FEED_SIZE]
    ElementTree.register_namespace("", ATOM)

    def child(parent: ElementTree.Element, tag: str, text: str | None = None, **attributes: str):
        element = ElementTree.SubElement(parent, f"{{{ATOM}}}{tag}", attributes)
        if text is not None:
            element.text = xml_text(text)
        return element

    namespace = uuid.uuid5(uuid.NAMESPACE_URL, "paper-digest:" + digest.name)
    feed = ElementTree.Element(f"{{{ATOM}}}feed")
    child(feed, "title", digest.name)
    child(feed, "subtitle", f"The newest papers of {digest.name}, with their abstracts.")
    child(feed, "id", namespace.urn)
    child(feed, "link", rel="alternate", type="text/html", href="./")
    child(feed, "link", rel="self", type="application/atom+xml", href=FEED_NAME)
    updated = max(
        (_updated(digest.papers[i].entry.paper.year, site_updated) for i in order), default=site_updated
    )
    child(feed, "updated", updated)
    # Atom needs an author for every entry: the feed's stands in for papers that name none.
    child(child(feed, "author"), "name", digest.name)
    child(feed, "generator", DISTRIBUTION, version=__version__)
    for index in order:
        paper = digest.papers[index]
        source = paper.entry.paper
        entry = child(feed, "entry")
        child(entry, "title", " ".join(xml_text(readable_title(paper.entry.title)).split()), type="text")
        child(entry, "link", rel="alternate", type="text/html", href=urls[index])
        child(entry, "id", uuid.uuid5(namespace, source.id).urn)
        child(entry, "updated", _updated(source.year, site_updated))
        for name in source.authors:
            child(child(entry, "author"), "name", name)
        for keyword in [k.text for k in paper.keywords]:
            child(entry, "category", term=xml_text(keyword))
        child(entry, "summary", source.abstract, type="text")
    body = ElementTree.tostring(feed, encoding="unicode", xml_declaration=False)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + body + "\n"


def _updated(year: int | None, site_updated: str) -> str:
    return f"{year:04d}-01-01T00:00:00Z" if year and 0 < year < 10000 else site_updated

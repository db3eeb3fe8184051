"""Test helpers: papers written out in each input format the readers take, as the tools that make
those formats would write them, so a test can read them back and compare."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence

from generator.model import Paper, TitledPaper
from generator.site.bibtex import bibtex_entry, bibtex_file

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
"""Control characters XML 1.0 cannot hold; the arXiv API never sends them."""
ATOM = "http://www.w3.org/2005/Atom"
ARXIV = "http://arxiv.org/schemas/atom"


def to_csv(papers: Sequence[Paper], delimiter: str = ",") -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter)  # CRLF line ends, as Excel writes them
    writer.writerow(["UID", "title", "authors", "abstract", "keywords", "pdf_url", "venue", "year"])
    for p in papers:
        writer.writerow(
            [
                p.id,
                p.title or "",
                "|".join(p.authors),
                p.abstract,
                "|".join(p.author_keywords),
                p.url or "",
                p.venue or "",
                p.year or "",
            ]
        )
    return out.getvalue()


def to_bibtex(papers: Sequence[Paper]) -> str:
    entries = (bibtex_entry(TitledPaper(p, p.title or "", False, p.id), abstract=True) for p in papers)
    return bibtex_file(entries, comment="written by the Paper Digest tests")


def _split_name(name: str) -> dict[str, str]:
    given, _, family = name.rpartition(" ")
    return {"family": family, "given": given} if given else {"literal": family}


def to_csl_json(papers: Sequence[Paper]) -> str:
    items = [
        {
            "id": p.id,
            "type": "paper-conference",
            "title": p.title,
            "author": [_split_name(a) for a in p.authors],
            "abstract": p.abstract,
            "container-title": p.venue,
            "issued": {"date-parts": [[str(p.year)]]} if p.year else None,
            "URL": p.url,
        }
        for p in papers
    ]
    return json.dumps([{k: v for k, v in item.items() if v is not None} for item in items], indent="\t")


def to_openreview(papers: Sequence[Paper], api: int) -> str:
    def field(value: object) -> object:
        return {"value": value} if api == 2 else value

    notes = []
    for number, p in enumerate(papers, start=1):
        forum = f"f{number:05d}{p.id[-4:]}"
        content = {
            "title": field(p.title),
            "authors": field(list(p.authors)),
            "authorids": field([f"~{a.replace(' ', '_')}1" for a in p.authors]),
            "abstract": field(p.abstract),
            "keywords": field(list(p.author_keywords)),
            "venue": field(p.venue),
            "pdf": field(p.url),
        }
        note: dict[str, object] = {"id": forum, "forum": forum, "number": number, "content": content}
        note.update(
            {"invitations": ["ICML.cc/2024/Conference/-/Submission"], "domain": "ICML.cc/2024/Conference"}
            if api == 2
            else {"invitation": "ICML.cc/2024/Conference/-/Blind_Submission"}
        )
        note["cdate"] = 1704067200000
        notes.append(note)
    return json.dumps(notes, indent=2)


def to_arxiv_atom(papers: Sequence[Paper]) -> str:
    ElementTree.register_namespace("", ATOM)
    ElementTree.register_namespace("arxiv", ARXIV)
    feed = ElementTree.Element(f"{{{ATOM}}}feed")
    ElementTree.SubElement(feed, f"{{{ATOM}}}title").text = "ArXiv Query: test"
    for number, p in enumerate(papers, start=1):
        entry = ElementTree.SubElement(feed, f"{{{ATOM}}}entry")
        ElementTree.SubElement(entry, f"{{{ATOM}}}id").text = f"http://arxiv.org/abs/2401.{number:05d}v2"
        ElementTree.SubElement(entry, f"{{{ATOM}}}published").text = f"{p.year or 2024}-07-01T00:00:00Z"
        ElementTree.SubElement(entry, f"{{{ATOM}}}title").text = _NOT_XML.sub(" ", p.title or "")
        ElementTree.SubElement(entry, f"{{{ATOM}}}summary").text = "  " + _NOT_XML.sub(" ", p.abstract) + "\n"
        for author in p.authors:
            name = ElementTree.SubElement(
                ElementTree.SubElement(entry, f"{{{ATOM}}}author"), f"{{{ATOM}}}name"
            )
            name.text = author
        if p.url:
            ElementTree.SubElement(entry, f"{{{ATOM}}}link", href=p.url, rel="alternate", type="text/html")
        ElementTree.SubElement(entry, f"{{{ARXIV}}}primary_category", term="cs.LG")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(feed, encoding="unicode") + "\n"

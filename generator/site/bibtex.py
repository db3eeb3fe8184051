"""BibTeX out: one entry per paper, for ``papers.bib`` and anything else that cites a digest's papers.

Values are UTF-8 with LaTeX's special characters escaped; TeX math (``$…$``) is kept as written, so
a title or abstract reads back (``generator.sources.bibtex``) as it went in. Braces always balance,
which BibTeX needs: a formula whose braces do not is escaped as text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from slugify import slugify

from generator.analysis.text import find_math_spans, strip_markup
from generator.model import TitledPaper

LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
"""Plain text to LaTeX. Braces and the backslash become commands, not ``\\{``: BibTeX counts every
brace, escaped or not, to find where a field ends."""

_SPECIAL = re.compile("|".join(map(re.escape, LATEX_SPECIALS)))
_UNESCAPED_PERCENT = re.compile(r"(?<!\\)(?:\\\\)*%")
"""A ``%`` after an even number of backslashes (``\\%`` is a line break, then a comment)."""
_LIGATURE = re.compile(r"(?<=-)(?=-)|(?<=`)(?=`)|(?<=')(?=')")
_JOURNAL = re.compile(r"\b(journal|transactions|letters|review|magazine|annals|bulletin)\b", re.I)
_PREPRINT = re.compile(r"\b(arxiv|biorxiv|medrxiv|preprint|corr)\b", re.I)
_TITLE_STOPWORDS = frozenset("a an the on of in for to and with from towards via is".split())  # noqa: SIM905


def escape_text(text: str) -> str:
    """Prose as a BibTeX field value: specials escaped outside math, formulas kept as written."""
    pieces = []
    last = 0
    for start, end in find_math_spans(text):
        pieces.append(_escape_plain(text[last:start]))
        math = text[start:end]
        pieces.append(math if _is_safe_math(math) else _escape_plain(math))
        last = end
    pieces.append(_escape_plain(text[last:]))
    return "".join(pieces)


def _escape_plain(text: str) -> str:
    escaped = _SPECIAL.sub(lambda match: LATEX_SPECIALS[match.group()], text)
    # "--", "``" and "''" are TeX ligatures (dashes, curly quotes): "{}" between keeps them as typed.
    return _LIGATURE.sub("{}", escaped)


def _is_safe_math(math: str) -> bool:
    """A formula BibTeX can hold as it is: braces balance and no ``%`` would start a TeX comment."""
    depth = 0
    for character in math:
        depth += {"{": 1, "}": -1}.get(character, 0)
        if depth < 0:
            return False
    return depth == 0 and _UNESCAPED_PERCENT.search(math) is None


def _name(author: str) -> str:
    """``First Middle Last`` as ``Last, First Middle``, which BibTeX splits the same way every time.
    A name holding the word "and" is braced whole, so it is not read as two people."""
    escaped = escape_text(" ".join(author.split()))
    if re.search(r"(^|\s)and(\s|$)", escaped, re.I):
        return "{" + escaped + "}"
    first, _, last = escaped.rpartition(" ")
    return f"{last}, {first}" if first else last


def bibtex_key(paper: TitledPaper) -> str:
    """A citation key that stays put: first author's last name, year, first title word, and the six
    hex digits of the paper id's hash that its page address also ends with (so keys are unique)."""
    name = slugify(paper.paper.authors[0].split()[-1], separator="") if paper.paper.authors else ""
    words = [w for w in slugify(strip_markup(paper.title)).split("-") if w not in _TITLE_STOPWORDS]
    year = str(paper.paper.year) if paper.paper.year else ""
    stem = f"{name}{year}{words[0] if words else ''}" or "paper"
    return f"{stem}-{hashlib.sha256(paper.paper.id.encode('utf-8')).hexdigest()[:6]}"


def entry_type(venue: str | None) -> str:
    """``article`` for a journal, ``misc`` for a preprint or no venue, else ``inproceedings`` (a digest
    is most often a conference)."""
    if not venue or _PREPRINT.search(venue):
        return "misc"
    if _JOURNAL.search(venue):
        return "article"
    return "inproceedings"


def bibtex_entry(paper: TitledPaper, url: str | None = None, abstract: bool = False) -> str:
    """One entry. ``url`` is the paper's page in the digest; without one the paper's own link is used,
    and with one the paper's own link goes to ``note`` (unless it is the DOI's address). ``doi`` is the
    DOI the input gave, else the one the paper's link is the doi.org address of."""
    record = paper.paper
    kind = entry_type(record.venue)
    fields: list[tuple[str, str]] = [("title", escape_text(paper.title))]
    if record.authors:
        fields.append(("author", " and ".join(_name(a) for a in record.authors)))
    if record.venue:
        venue_field = {"article": "journal", "inproceedings": "booktitle"}.get(kind, "howpublished")
        fields.append((venue_field, escape_text(record.venue)))
    if record.year:
        fields.append(("year", str(record.year)))
    if abstract:
        fields.append(("abstract", escape_text(record.abstract)))
    if record.author_keywords:
        # Keywords are listed with commas, or with semicolons when one holds a comma.
        separator = "; " if any("," in keyword for keyword in record.author_keywords) else ", "
        fields.append(("keywords", escape_text(separator.join(record.author_keywords))))
    own_link = record.url if record.url and " " not in record.url else None
    linked_doi = re.match(r"https?://(?:dx\.)?doi\.org/(10\..+)$", own_link or "")
    doi = record.doi or (linked_doi.group(1) if linked_doi else None)
    if url:
        fields.append(("url", _escape_url(url)))
        if own_link and not linked_doi:
            fields.append(("note", rf"\url{{{_escape_url(own_link)}}}"))
    elif own_link:
        fields.append(("url", _escape_url(own_link)))
    if doi and " " not in doi:
        fields.append(("doi", _escape_url(doi)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{bibtex_key(paper)},\n{body}\n}}\n"


def _escape_url(url: str) -> str:
    """A link inside braces: ``%`` and ``#`` escaped as ``\\url`` and biber read them; a stray brace
    (never in a valid URL) percent-encoded."""
    url = url.replace("{", "%7B").replace("}", "%7D").replace("\\", "%5C")
    return re.sub(r"(?<!\\)([%#])", r"\\\1", url)


def bibtex_file(entries: Iterable[str], comment: str | None = None) -> str:
    """Entries one after another, blank lines between, after an optional ``@comment``."""
    head = f"@comment{{{escape_text(comment)}}}\n\n" if comment else ""
    return head + "\n".join(entries)


def venue_kind(venue: str | None) -> str:
    """What a paper page's Google Scholar tags call the venue, as the entry type does: "conference"
    (``inproceedings``), "journal" (``article``) or "other" (no venue, a preprint)."""
    return {"inproceedings": "conference", "article": "journal"}.get(entry_type(venue), "other")

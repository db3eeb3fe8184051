"""BibTeX for a paper: a citation key that stays the same from build to build, and an entry whose
fields are escaped for BibTeX, so any title or name from an input file parses as the text it is.

Also the kind of venue (conference, journal or neither), which the paper page's Google Scholar tags
share with the entry type.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Literal

from slugify import slugify

from generator.analysis.text import find_math_spans
from generator.model import Paper

VenueKind = Literal["conference", "journal", "other"]

_JOURNAL = re.compile(
    r"\b(journal|transactions|letters|review|magazine|annals|JMLR|TMLR|TPAMI|TACL|IJCV|"
    r"Nature|Science|PNAS|Neural Computation|Machine Learning)\b",
    re.I,
)
_CONFERENCE = re.compile(
    r"\b(conference|proceedings|symposium|workshop|congress|meeting|"
    r"ICML|NeurIPS|NIPS|ICLR|AAAI|IJCAI|CVPR|ICCV|ECCV|WACV|BMVC|ACL|EMNLP|NAACL|EACL|COLING|"
    r"AISTATS|UAI|COLT|KDD|WWW|SIGIR|WSDM|CIKM|ICRA|IROS|CoRL|RSS|MICCAI|Interspeech|ICASSP|CHI)\b",
    re.I,
)
_PREPRINT = re.compile(r"\b(arxiv|biorxiv|medrxiv|preprint|ssrn)\b", re.I)

_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_SPECIAL = re.compile("|".join(re.escape(c) for c in _SPECIALS))
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_KEY_STOPWORDS = frozenset(
    {"a", "an", "the", "on", "of", "in", "for", "to", "and", "with", "from", "by", "at", "via", "is"}
    | {"are", "towards", "toward"}
)


def venue_kind(venue: str | None) -> VenueKind:
    """Whether a venue is a conference, a journal, or neither (a preprint server, nothing, unknown)."""
    if not venue or _PREPRINT.search(venue):
        return "other"
    if _JOURNAL.search(venue):
        return "journal"
    if _CONFERENCE.search(venue):
        return "conference"
    return "other"


def bibtex_key(paper: Paper, title: str | None = None) -> str:
    """``surname + year + first word of the title + 4 hex digits of the paper's id``, ASCII only:
    readable, and the same in every build of the same input (the id keeps two papers apart)."""
    surname = _ascii_word(paper.authors[0].split()[-1]) if paper.authors and paper.authors[0].split() else ""
    words = [_ascii_word(w) for w in re.findall(r"[^\W\d_]+", _without_math(title or paper.title or ""))]
    first = next((w for w in words if w and w not in _KEY_STOPWORDS), next((w for w in words if w), ""))
    suffix = hashlib.sha256(paper.id.encode("utf-8")).hexdigest()[:4]
    return f"{(surname or 'anonymous')[:20]}{paper.year or ''}{first[:20]}{suffix}"


def bibtex_entry(paper: Paper, title: str | None = None, url: str | None = None) -> str:
    """The paper as one BibTeX entry: ``@inproceedings`` for a conference, ``@article`` for a
    journal, ``@misc`` otherwise. ``title`` is the displayed title (a derived one when the input had
    none); ``url`` overrides the paper's own link."""
    kind = venue_kind(paper.venue)
    entry_type = {"conference": "inproceedings", "journal": "article", "other": "misc"}[kind]
    fields: list[tuple[str, str]] = [("title", bibtex_text(title or paper.title or "Untitled"))]
    if paper.authors:
        fields.append(("author", bibtex_authors(paper.authors)))
    if paper.venue:
        venue_field = {"conference": "booktitle", "journal": "journal", "other": "howpublished"}[kind]
        fields.append((venue_field, bibtex_text(paper.venue, keep_math=False)))
    if paper.year:
        fields.append(("year", str(paper.year)))
    link = url or paper.url
    if link and re.match(r"^https?://[^\s{}\\%]+$", link):
        fields.append(("url", link))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{entry_type}{{{bibtex_key(paper, title)},\n{body}\n}}\n"


def bibtex_authors(authors: Sequence[str]) -> str:
    """Names joined by `` and ``; a name BibTeX would split or turn around (one that holds " and "
    or a comma) is braced whole."""
    names = []
    for author in authors:
        name = bibtex_text(author, keep_math=False)
        if re.search(r"\band\b", name, re.I) or "," in name:
            name = "{" + name + "}"
        names.append(name)
    return " and ".join(names)


def bibtex_text(text: str, keep_math: bool = True) -> str:
    """Text for a braced BibTeX field: one line, BibTeX's and TeX's special characters escaped.
    With ``keep_math``, a formula whose braces balance stays TeX (a reference manager typesets it)."""
    text = " ".join(_CONTROL.sub(" ", text).split())
    if not keep_math:
        return _SPECIAL.sub(lambda m: _SPECIALS[m.group()], text)
    pieces, last = [], 0
    for start, end in find_math_spans(text):
        pieces.append(_SPECIAL.sub(lambda m: _SPECIALS[m.group()], text[last:start]))
        math = text[start:end]
        balanced = _braces_balance(math) and "%" not in math and not math.startswith(("\\(", "\\["))
        pieces.append(math if balanced else _SPECIAL.sub(lambda m: _SPECIALS[m.group()], math))
        last = end
    pieces.append(_SPECIAL.sub(lambda m: _SPECIALS[m.group()], text[last:]))
    return "".join(pieces)


def _braces_balance(text: str) -> bool:
    depth = 0
    escaped = False
    for character in text:
        if escaped:
            escaped = False
        elif character == "\\":
            escaped = True
        elif character == "{":
            depth += 1
        elif character == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0 and not escaped


def _without_math(text: str) -> str:
    pieces, last = [], 0
    for start, end in find_math_spans(text):
        pieces.append(text[last:start] + " ")
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _ascii_word(word: str) -> str:
    return slugify(word, separator="", lowercase=True)

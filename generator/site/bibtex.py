"""BibTeX out: one entry per paper, for ``papers.bib`` and anything else that cites a digest's papers.

Values are UTF-8 with LaTeX's special characters escaped; TeX math (``$…$``) is kept as written, so
a title or abstract reads back (``generator.sources.bibtex``) as it went in. Braces always balance,
which BibTeX needs: a formula whose braces do not is escaped as text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names
from slugify import slugify

from generator.analysis.text import find_math_spans, strip_markup
from generator.model import Citation, PersonName, TitledPaper
from generator.sources.base import bare_doi, guessed_entry_type, one_line, venue_field, web_url
from generator.sources.bibtex import latex_to_text, unescape_url

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
_BIBTEX_SPACE = re.compile(r"[ \t\r\n]+")
"""What BibTeX splits words on: not a no-break space, which joins two words into one."""
_TRAILING_BACKSLASH = re.compile(r"\\$")
"""A value ending in a backslash: bibtexparser reads it with the closing brace as ``\\}``."""
_TIE = re.compile(r"(?<!\\)~")
"""A tie (``D.~E.``): between the words of a name, BibTeX reads it as a space."""
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


def display_name_parts(author: str) -> PersonName:
    """A name given whole ("Ludwig van Beethoven") split as BibTeX splits ``First von Last``: von from
    the first word starting in lower case to the last one that does (never the last word), the last
    word the last name. Unicode in, Unicode out; letters decide the case."""
    words = author.split()
    if len(words) < 3:
        return PersonName(last=words[-1] if words else "", first=" ".join(words[:-1]))
    cases = [_word_case(word) for word in words]
    if "lower" not in cases[:-1]:
        return PersonName(last=words[-1], first=" ".join(words[:-1]))
    first_lower = cases.index("lower")
    last_lower = max(i for i, case in enumerate(cases[:-1]) if case == "lower")
    return PersonName(
        first=" ".join(words[:first_lower]),
        von=" ".join(words[first_lower : last_lower + 1]),
        last=" ".join(words[last_lower + 1 :]),
    )


def _word_case(word: str) -> str:
    letter = next((character for character in word if character.isalpha()), "")
    return "lower" if letter.islower() else "upper" if letter else "none"


def _name(name: PersonName, latex: bool) -> str:
    """``von Last, Jr, First``, braced where BibTeX would otherwise split it differently: a comma or
    a lone "and" inside a part, a last name whose inner words start in lower case ("{van der Berg}"
    as the source had it braced), a name with no first part ("{MetaCardis Consortium}")."""

    parts = (name.first, name.von, name.last, name.jr)
    if latex and not all(_balanced(part) and not _TRAILING_BACKSLASH.search(part) for part in parts):
        # Braces BibTeX would misread: the name written again from the text it stands for.
        parts = (latex_to_text(part) for part in (name.last, name.first, name.von, name.jr))
        return _name(PersonName(*parts), latex=False)

    def text(part: str) -> str:
        part = _BIBTEX_SPACE.sub(" ", part).strip()
        return part if latex else escape_text(part)

    first, von, last, jr = text(name.first), text(name.von), text(name.last), text(name.jr)
    if not last:  # BibTeX needs a last name: a name given without one is written whole as one
        first, von, last, jr = "", "", " ".join(part for part in (first, von, jr) if part), ""
    if not last:
        return ""
    first, jr = (_braced(part) if _top_level_comma_or_and(part) else part for part in (first, jr))
    if jr and not first:  # "King, Jr., {}": without a first part the Jr would be read as the first name
        first = "{}"
    braced_jr, braced_first = _braced(jr), first if first == "{}" else _braced(first)
    candidates = (
        (von, last, jr, first),
        (von, _braced(last), jr, first),
        (von, last, braced_jr, braced_first),
        (von, _braced(last), braced_jr, braced_first),
        ("", _braced(f"{von} {last}".strip()), braced_jr, braced_first),
    )
    for candidate in candidates:
        written = _assemble(*candidate)
        if _reads_back(written, *candidate):
            return written
    return written


def _name_list(names: list[str]) -> str:
    """Names joined by "and" so that they split back into the same names. bibtexparser drops a name's
    last word when it ends in a control symbol before "and" (``Lee, \\& and …``): "{}" ends it."""
    joined = " and ".join(names)
    if split_multiple_persons_names(joined) == names:
        return joined
    ended = [name + "{}" if re.search(r"\\\S*$", name) else name for name in names]
    if split_multiple_persons_names(" and ".join(ended)) == ended:
        return " and ".join(ended)
    # bibtexparser drops an accent command that opens a name after "and" (``A and \\'{e}, B`` reads
    # "{e}, B"): braced, ``{\\'{e}}`` is one special character to BibTeX, with the same letter and case.
    special = [_ACCENT_COMMAND.sub(lambda m: "{" + m.group(0) + "}", name) for name in ended]
    if split_multiple_persons_names(" and ".join(special)) == special:
        return " and ".join(special)
    return " and ".join(name if _is_one_group(name) else "{" + name + "}" for name in names)


_ACCENT_COMMAND = re.compile(r"(?<!\{)\\[^a-zA-Z\s{}\\](?:\{\w\}|\w)")
"""An accent written as a control symbol (``\\'{e}``, ``\\~n``) not already braced as a special character."""


def _balanced(text: str) -> bool:
    """Whether the braces close in order both as BibTeX counts them (every brace, escaped or not) and as
    bibtexparser does (``\\{`` and ``\\}`` not counted), so that every reader ends the field in one place."""
    return _closes_in_order(text) and _closes_in_order(re.sub(r"\\[{}]", "", text))


def _closes_in_order(text: str) -> bool:
    depth = 0
    for character in text:
        depth += {"{": 1, "}": -1}.get(character, 0)
        if depth < 0:
            return False
    return depth == 0


def _braced(part: str) -> str:
    return part if not part or _is_one_group(part) else "{" + part + "}"


def _is_one_group(part: str) -> bool:
    """``{…}`` whose first brace closes at the end: already one word to BibTeX."""
    if not (part.startswith("{") and part.endswith("}")):
        return False
    depth = 0
    for index, character in enumerate(part):
        depth += {"{": 1, "}": -1}.get(character, 0)
        if depth == 0:
            return index == len(part) - 1
    return False


def _top_level_comma_or_and(part: str) -> bool:
    depth = 0
    top = []
    for character in part:
        depth += {"{": 1, "}": -1}.get(character, 0)
        top.append(character if depth == 0 and character not in "{}" else "x")
    plain = "".join(top)
    return "," in plain or re.search(r"(^|\s)and(\s|$)", plain, re.I) is not None


def _assemble(von: str, last: str, jr: str, first: str) -> str:
    family = f"{von} {last}".strip()
    if jr:
        return f"{family}, {jr}, {first}"
    return f"{family}, {first}" if first else family


def _reads_back(written: str, von: str, last: str, jr: str, first: str) -> bool:
    """Whether BibTeX's name grammar (bibtexparser's reading of it) gives these parts back."""
    names = split_multiple_persons_names(written)
    if (
        len(names) != 1
        or names[0].strip() != written.strip()
        or re.match(r"and(\s|$)", written.strip(), re.I)
    ):
        return False  # a name that is, or opens with, a lone "and" reads as joining names: it is braced
    parts = parse_single_name_into_parts(names[0], strict=False)
    return [" ".join(p) for p in (parts.von, parts.last, parts.jr, parts.first)] == [
        " ".join(_BIBTEX_SPACE.split(_TIE.sub(" ", p).strip())) for p in (von, last, jr, first)
    ]


def bibtex_key(paper: TitledPaper) -> str:
    """A citation key that stays put: first author's last name, year, first title word, and the six
    hex digits of the paper id's hash that its page address also ends with (so keys are unique). A
    title Paper Digest derived gives no word: it changes as the derivation does, and a key that
    changed would break every document citing it."""
    name = slugify(paper.paper.authors[0].split()[-1], separator="") if paper.paper.authors else ""
    title = "" if paper.title_was_derived else strip_markup(paper.title)
    words = [w for w in slugify(title).split("-") if w not in _TITLE_STOPWORDS]
    year = str(paper.paper.year) if paper.paper.year else ""
    stem = f"{name}{year}{words[0] if words else ''}" or "paper"
    return f"{stem}-{hashlib.sha256(paper.paper.id.encode('utf-8')).hexdigest()[:6]}"


URL_FIELDS = frozenset({"url", "doi"})
"""Fields written as links (``\\url``'s escaping), not as prose."""
DIGEST_PAGE_FIELD = "digest-url"
"""``papers.bib``'s field for the paper's page in the digest: not ``url``, which is the paper's own
link as its source gave it. Reference managers keep a field they do not know (Zotero in "Extra")."""
MONTH_MACROS = frozenset("jan feb mar apr may jun jul aug sep oct nov dec".split())  # noqa: SIM905
"""``month = jul`` as BibTeX's styles define it, written bare again (braced it would print "jul")."""
DERIVED_TITLE_NOTE = "Untitled in the source; Paper Digest's title for it: "


def citation_of(paper: TitledPaper) -> Citation:
    """The paper's citation: the one its source gave, else one made from its fields (the type guessed
    from the venue). A title Paper Digest derived is never the citation's title."""
    record = paper.paper
    if record.citation is not None:
        return record.citation
    kind = guessed_entry_type(record.venue)
    fields: list[tuple[str, str]] = []
    if not paper.title_was_derived and paper.title:
        fields.append(("title", paper.title))
    if record.venue:
        fields.append((venue_field(kind), record.venue))
    if record.year:
        fields.append(("year", str(record.year)))
    own_link = record.url if record.url and " " not in record.url else None
    linked_doi = re.match(r"https?://(?:dx\.)?doi\.org/(10\..+)$", own_link or "")
    doi = record.doi or (linked_doi.group(1) if linked_doi else None)
    if own_link:
        fields.append(("url", own_link))
    if doi and " " not in doi:
        fields.append(("doi", doi))
    return Citation(kind, fields=tuple(fields))


def citation_text(citation: Citation, name: str) -> str | None:
    """A field of the citation as plain Unicode on one line (a DOI bare, a link unescaped), for what
    is not BibTeX: the Google Scholar tags."""
    value = citation.field(name)
    if value is None:
        return None
    if citation.latex:
        value = unescape_url(value) if name in URL_FIELDS else latex_to_text(value)
    return bare_doi(value) if name == "doi" else one_line(value)


def bibtex_entry(paper: TitledPaper, url: str | None = None, abstract: bool = False) -> str:
    """One entry: the paper's citation (``citation_of``) as its source wrote it, the title first and the
    authors next. ``url`` is the paper's page in the digest, written as ``digest-url``; a derived title
    is written into ``note``, saying so. A link that is not http(s) is left out."""
    record = paper.paper
    citation = citation_of(paper)

    def value(name: str, text: str) -> str:
        if citation.latex and _balanced(text):
            # "$\" (the source's "$\ ", trimmed): a space keeps the backslash off the closing brace
            return f"{text} " if _TRAILING_BACKSLASH.search(text) else text
        if citation.latex:  # braces BibTeX would misread: written again from the text they stand for
            text = unescape_url(text) if name in URL_FIELDS else latex_to_text(text)
        return _escape_url(text) if name in URL_FIELDS else escape_text(text)

    given = [(name, text) for name, text in citation.fields if name not in ("abstract", "keywords")]
    given = [(name, text) for name, text in given if name != "url" or _is_web_link(text, citation.latex)]
    fields = [(name, value(name, text)) for name, text in given if name == "title"]
    people = citation.authors
    if not people and not citation.latex:  # names given whole: split as BibTeX splits them
        people = tuple(display_name_parts(name) for name in record.authors)
    names = [written for person in people if (written := _name(person, citation.latex))]
    if names:
        fields.append(("author", _name_list(names)))
    editors = [written for person in citation.editors if (written := _name(person, citation.latex))]
    if editors:
        fields.append(("editor", _name_list(editors)))
    fields += [(name, value(name, text)) for name, text in given if name not in ("title", "note")]
    notes = [value("note", text) for name, text in given if name == "note"]
    if paper.title_was_derived and paper.title:
        notes.append(escape_text(DERIVED_TITLE_NOTE + "\u201c" + paper.title + "\u201d"))
    if notes:
        fields.append(("note", "; ".join(notes)))
    if abstract:
        fields.append(("abstract", escape_text(record.abstract)))
    if record.author_keywords:
        # Keywords are listed with commas, or with semicolons when one holds a comma.
        separator = "; " if any("," in keyword for keyword in record.author_keywords) else ", "
        fields.append(("keywords", escape_text(separator.join(record.author_keywords))))
    if url:
        fields.append((DIGEST_PAGE_FIELD, _escape_url(url)))
    body = ",\n".join(
        f"  {name} = {text}" if name == "month" and text.lower() in MONTH_MACROS else f"  {name} = {{{text}}}"
        for name, text in fields
    )
    return f"@{citation.entry_type}{{{bibtex_key(paper)},\n{body}\n}}\n"


def _is_web_link(text: str, latex: bool) -> bool:
    return web_url(unescape_url(text) if latex else text) is not None


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
    """What a paper page's Google Scholar tags call a venue when the source gives no entry type:
    "conference" (``inproceedings``), "journal" (``article``) or "other" (no venue, a preprint)."""
    return {"inproceedings": "conference", "article": "journal"}.get(guessed_entry_type(venue), "other")

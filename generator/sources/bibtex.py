"""BibTeX (``.bib``), as Zotero, Google Scholar, DBLP and the ACL Anthology export it.

``bibtexparser`` (2.x) splits the file into entries and resolves ``@string`` macros; ``pylatexenc``
turns each field's LaTeX into Unicode (``{\\"o}`` -> ö, ``\\&`` -> &, protective braces dropped),
leaving ``$…$`` math as written for the site's MathJax. Every entry type is a paper; its key is the id.
Read: ``title``, ``author`` (``Last, First and …``), ``abstract``, ``keywords``, ``url``/``doi``/
``eprint`` (the first that gives an http(s) link), ``booktitle``/``journal`` (venue; Zotero's
``arXiv:…`` journals read as "arXiv"), ``year`` (or ``date``). The reader's tags are not the
authors' keywords: all of ``keywords`` when Zotero wrote the file, those ``mendeley-tags`` names,
and JabRef's ``groups``. Everything else is ignored. Entries without an abstract are skipped with
one warning.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import bibtexparser
from bibtexparser.library import Library
from bibtexparser.middlewares import parsestack
from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names
from bibtexparser.model import DuplicateFieldKeyBlock, Entry, Field
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
from pylatexenc.macrospec import LatexContextDb

from generator.errors import InputError
from generator.model import Citation, Paper, PersonName, SourceLocation
from generator.sources.base import (
    DEFAULT_OPTIONS,
    FileContents,
    ReadOptions,
    UnreadRecords,
    bare_doi,
    doi_url,
    one_line,
    paragraphs,
    read_text,
    skipped_warning,
    web_url,
    year_in,
)


def latex_context() -> LatexContextDb:
    """pylatexenc's macros with its slips mended: it writes "ˆ" (U+02C6) for \\textasciicircum and drops
    the text brace commands, where LaTeX means ^, ~, { and }. (The citation round-trip benchmark's
    reference reading uses it too.)"""
    context = get_default_latex_context_db()
    context.add_context_category(
        "paper-digest",
        macros=[
            MacroTextSpec("textasciicircum", simplify_repl="^"),
            MacroTextSpec("textasciitilde", simplify_repl="~"),
            MacroTextSpec("textbraceleft", simplify_repl="{"),
            MacroTextSpec("textbraceright", simplify_repl="}"),
        ],
        prepend=True,
    )
    return context


_LATEX = LatexNodes2Text(latex_context=latex_context(), math_mode="verbatim", strict_latex_spaces=True)
_BARE_PERCENT = re.compile(r"(?<!\\)((?:\\\\)*)%")
"""A ``%`` after an even number of backslashes, which TeX would read as a comment."""
_LATEX_MARKUP = re.compile(r"[\\{}$~%&#_^]|--|``|''|!`|\?`")
"""What pylatexenc would change: without any of it, a field's text is already its Unicode."""
_ZOTERO_ATTACHMENT = re.compile(r":(?:application|text|image|audio|video)/[\w.+-]+(?:;|\s*$)")
"""The end of an attachment in Zotero's ``file`` field: ``…:application/pdf`` (several joined by ``;``)."""
_ARXIV_JOURNAL = re.compile(r"^arxiv(?::|\s|$)", re.I)
_ARXIV_ID = re.compile(r"^(?:arxiv:)?(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$", re.I)


def read(path: Path, options: ReadOptions = DEFAULT_OPTIONS) -> FileContents:
    text = read_text(path)
    try:
        with quiet_splitter():
            library = bibtexparser.parse_string(text, parse_stack=[])
    except RecursionError:
        raise InputError(path, None, "braces nested too deeply to be BibTeX") from None
    except Exception as error:  # the splitter's own invariants; untrusted input must not crash the build
        raise InputError(
            path, None, f"bibtexparser could not split it ({type(error).__name__}: {error})"
        ) from None
    warnings: list[str] = []
    unread = UnreadRecords(options.keep_going)
    entries = list(library.entries)
    for failed in library.failed_blocks:
        line = (failed.start_line or 0) + 1
        if isinstance(failed, DuplicateFieldKeyBlock) and isinstance(failed.ignore_error_block, Entry):
            entry, repeated = _first_of_each_field(failed.ignore_error_block)
            warnings.append(
                f"{path}:{line}: entry {entry.key!r} gives {', '.join(map(repr, repeated))} twice; "
                "the first is used, as BibTeX does"
            )
            entries.append(entry)
            continue
        reason = getattr(failed.error, "abort_reason", None) or str(failed.error or "")
        problem = " ".join(reason.split(". Note:")[0].split()) or "not a BibTeX entry"
        unread.note(InputError(path, line, f"not a readable BibTeX entry ({problem})"))
    if not entries and not unread.skipped:
        raise InputError(
            path, None, "holds no BibTeX entries; expected entries such as @article{key, title = {…}, …}"
        )
    entries.sort(key=lambda entry: entry.start_line or 0)
    # Macros (@string, months) are resolved and the outer braces or quotes removed by the library.
    resolved = Library(blocks=[*library.strings, *entries])
    for middleware in parsestack.default_parse_stack():
        resolved = middleware.transform(resolved)

    papers: list[Paper] = []
    without_abstract: list[str] = []
    keywords_are_tags = _written_by_zotero(resolved.entries)
    for entry in resolved.entries:
        try:
            paper = _paper(path, entry, keywords_are_tags)
        except InputError as error:
            unread.note(error)
            continue
        if paper is None:
            without_abstract.append(entry.key)
        else:
            papers.append(paper)
    if not papers and not unread.skipped:
        raise InputError(path, None, f"none of its {len(entries)} entries has an abstract")
    warnings += skipped_warning(path, without_abstract, ("entry", "entries"), "no abstract")
    return FileContents(collection_name=None, papers=papers, warnings=warnings, skipped=unread.skipped)


@contextmanager
def quiet_splitter() -> Iterator[None]:
    """bibtexparser logs each entry it cannot read; this reader says so itself, once, and stops."""
    logger = logging.getLogger("bibtexparser.splitter")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def _first_of_each_field(entry: Entry) -> tuple[Entry, list[str]]:
    seen: dict[str, Field] = {}
    repeated: list[str] = []
    for field in entry.fields:
        if field.key.lower() in seen:
            repeated.append(field.key)
        else:
            seen[field.key.lower()] = field
    kept = Entry(entry.entry_type, entry.key, list(seen.values()), entry.start_line, entry.raw)
    return kept, repeated


def _written_by_zotero(entries: list[Entry]) -> bool:
    """Whether Zotero wrote the file, which puts the library's tags (the reader's "Unreviewed" and the
    subjects arXiv and IEEE tag items with) into ``keywords``: its attachments carry a MIME type
    (``file = {Full Text PDF:C\\:\\…pdf:application/pdf}``), which JabRef's and Mendeley's do not."""
    return any(
        _ZOTERO_ATTACHMENT.search(str(field.value))
        for entry in entries
        for field in entry.fields
        if field.key.lower() == "file"
    )


def _paper(path: Path, entry: Entry, keywords_are_tags: bool = False) -> Paper | None:
    line = (entry.start_line or 0) + 1
    fields = entry_fields(entry)

    def text(name: str) -> str:
        value = fields.get(name, "")
        try:
            return latex_to_text(value)
        except RecursionError:
            raise InputError(path, line, f"entry {entry.key!r}: {name!r} nests braces too deeply") from None

    abstract = paragraphs(text("abstract"))
    if not abstract:
        return None
    venue = one_line(text("booktitle")) or one_line(text("journal"))
    if venue and _ARXIV_JOURNAL.match(venue):
        venue = "arXiv"
    return Paper(
        id=entry.key,
        abstract=abstract,
        source=SourceLocation(path, line),
        title=one_line(text("title")),
        authors=tuple(name for name in map(_person, split_authors(fields.get("author", ""))) if name),
        citation=citation_of_entry(entry.entry_type, fields),
        url=_link(fields),
        doi=bare_doi(unescape_url(fields.get("doi", ""))),
        venue=venue,
        year=year_in(fields.get("year", "")) or year_in(fields.get("date", "")),
        **_keywords_and_tags(text("keywords"), text("mendeley-tags"), text("groups"), keywords_are_tags),
    )


def _keywords_and_tags(
    keywords: str, mendeley_tags: str, groups: str, keywords_are_tags: bool
) -> dict[str, tuple[str, ...]]:
    """The authors' keywords and the reader's tags of an entry: Mendeley lists its tags in
    ``mendeley-tags`` and in ``keywords`` too, JabRef its groups in ``groups``; Zotero's
    ``keywords`` are all tags."""
    words = _keywords(keywords)
    tagged = {tag.casefold() for tag in _keywords(mendeley_tags)}
    tags = [word for word in words if keywords_are_tags or word.casefold() in tagged]
    tags += _keywords(groups)
    return {
        "author_keywords": tuple(word for word in words if word not in tags),
        "tags": tuple(dict.fromkeys(tags)),
    }


def latex_to_text(value: str) -> str:
    """A field's LaTeX as Unicode text; math kept as written. A bare ``%`` is a percent sign here: a
    BibTeX field has no comments.

    pylatexenc reads a character at a time (about 20 ms for an abstract), so only the stretches of
    words that hold markup go through it; the plain words between them are already text."""
    if not value.strip():
        return ""
    pieces = []
    for chunk, has_markup in _chunks(value):
        pieces.append(_LATEX.latex_to_text(_BARE_PERCENT.sub(r"\1\\%", chunk)) if has_markup else chunk)
    return "".join(pieces)


_WORD = re.compile(r"\S+\s*")
_MATH_TOGGLE = re.compile(r"(?<!\\)(?:\\\\)*(\$\$|\$|\\[()\[\]])")


def _chunks(value: str) -> list[tuple[str, bool]]:
    """The value cut between words where no brace group or formula is open, as runs of words with
    markup and runs without. (A control word ends a run with the space after it, which TeX, and so
    pylatexenc, drops: ``\\ss x`` reads "ßx" either way.)"""
    chunks: list[tuple[str, bool]] = []
    current = ""
    current_markup = False
    depth = 0
    in_math = False
    lead = value[: len(value) - len(value.lstrip())]
    for match in _WORD.finditer(value):
        word = match.group()
        has_markup = _LATEX_MARKUP.search(word) is not None
        if current and depth == 0 and not in_math and has_markup != current_markup:
            chunks.append((current, current_markup))
            current = ""
        if not current:
            current_markup = has_markup
        current += word
        current_markup = current_markup or has_markup
        depth += word.count("{") - word.count("}")
        for toggle in _MATH_TOGGLE.finditer(word):
            mark = toggle.group(1)
            in_math = (not in_math) if mark.startswith("$") else mark in ("\\(", "\\[")
    if current:
        chunks.append((current, current_markup))
    return [(lead, False), *chunks] if lead else chunks


def split_authors(value: str) -> list[str]:
    """The names of an ``author`` field; ``and others`` (et al.) names nobody."""
    value = without_dangling_and(" ".join(value.split()))
    names = split_multiple_persons_names(value) if value.strip() else []
    return [name for name in names if name.strip().lower() != "others"]


def _person(name: str) -> str | None:
    parts = parse_single_name_into_parts(name, strict=False)
    words = " ".join([*parts.first, *parts.von, *parts.last, *parts.jr])
    return one_line(latex_to_text(words))


CITED_FIELDS = frozenset(
    """title shorttitle author booktitle journal journaltitle year date month doi url volume number
    issue pages issue_date numpages articleno eid publisher address location editor edition series
    chapter howpublished institution organization school type note isbn issn eprint archiveprefix
    eprinttype primaryclass eprintclass pubstate version language""".split()  # noqa: SIM905
)
"""The fields a citation carries as the source wrote them: those that describe the work. Not carried:
the reader's own (``file``, ``annote``, ``urldate``, ``owner``, ``keywords`` as tags), a database's
bookkeeping (``biburl``, ``bibsource``, ``timestamp``, ``acmid``, ``crossref``, ``ids``); the
``abstract`` and ``keywords`` go to the page on their own."""
_ENTITY = re.compile(r"\\?&(#[0-9]{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_LATEX_ESCAPED = {"&": r"\&", "%": r"\%", "#": r"\#", "$": r"\$", "_": r"\_"}
_BIBTEX_SPACE = re.compile(r"[ \t\r\n]+")
_DANGLING_AND = re.compile(r"^\s*and(?:\s+|\s*$)|\s+and\s*$", re.I)
_BARE_TILDE_ACCENT = re.compile(r"(?<!\\)\\~(\{[^{}]*\}|[A-Za-z])")


def entry_fields(entry: Entry) -> dict[str, str]:
    """The entry's fields by lower-case name, the first of any given twice; HTML entities decoded
    and accents protected in the names, as every field is read."""
    fields: dict[str, str] = {}
    for field in entry.fields:
        fields.setdefault(field.key.lower(), decode_html_entities(str(field.value)))
    if "author" in fields:
        fields["author"] = protect_accents(fields["author"])
    return fields


def citation_of_entry(entry_type: str, fields: dict[str, str]) -> Citation:
    """The entry as the source wrote it: its type, each author's four name parts and the fields in
    ``CITED_FIELDS`` in their LaTeX (whitespace runs made one space)."""
    # BibTeX's own whitespace only: a no-break space inside a name ("AMBAR\u00a0AKKAOUI") joins words
    # into one, as it does for BibTeX. A dangling "and" names nobody.
    names = without_dangling_and(_BIBTEX_SPACE.sub(" ", fields.get("author", "")))
    people = split_multiple_persons_names(names)
    authors = []
    for name in people:
        parts = parse_single_name_into_parts(name, strict=False)
        words = " ".join([*parts.first, *parts.von, *parts.last, *parts.jr])
        if words and _person(words):  # a name whose text is empty ("{}") names nobody, as on the page
            authors.append(
                PersonName(
                    last=" ".join(parts.last),
                    first=" ".join(parts.first),
                    von=" ".join(parts.von),
                    jr=" ".join(parts.jr),
                )
            )
    cited = tuple(
        (name, _BIBTEX_SPACE.sub(" ", value).strip())
        for name, value in fields.items()
        if name in CITED_FIELDS and name != "author" and value.strip()
    )
    return Citation(entry_type.lower(), tuple(authors), cited, latex=True)


def decode_html_entities(value: str) -> str:
    """HTML entities some exporters leave in BibTeX (the ACM Digital Library's ``\\&amp;`` and
    ``M&amp;S``) as the characters they stand for, escaped for LaTeX where LaTeX needs it."""

    def character(match: re.Match[str]) -> str:
        entity = match.group().lstrip("\\")
        decoded = html.unescape(entity)
        if decoded == entity:  # not an entity HTML knows: left as written
            return match.group()
        return "".join(_LATEX_ESCAPED.get(c, c) for c in decoded)

    return _ENTITY.sub(character, value) if "&" in value else value


def without_dangling_and(names: str) -> str:
    """An author field without the "and" that joins nobody at either end ("A and ", "and and B")."""
    while (stripped := _DANGLING_AND.sub("", names)) != names:
        names = stripped
    return names


def protect_accents(names: str) -> str:
    """``\\~{n}`` braced as ``{\\~{n}}``: BibTeX's name grammar reads a bare ``~`` as a tie between
    words, so ``Burgue\\~{n}o`` would be two words ("Burgue" and "no")."""
    return _BARE_TILDE_ACCENT.sub(lambda match: "{\\~" + match.group(1) + "}", names)


def _keywords(value: str) -> tuple[str, ...]:
    separator = ";" if ";" in value else ","
    return tuple(word for part in value.split(separator) if (word := one_line(part)))


def _link(fields: dict[str, str]) -> str | None:
    url = web_url(unescape_url(fields.get("url", "")))
    if url:
        return url
    doi = doi_url(unescape_url(fields.get("doi", "")))
    if doi:
        return doi
    eprint = unescape_url(fields.get("eprint", "")).strip()
    found = _ARXIV_ID.match(eprint)
    prefix = (fields.get("archiveprefix", "") + fields.get("eprinttype", "")).lower()
    if found and (not prefix or "arxiv" in prefix):
        return f"https://arxiv.org/abs/{found.group(1)}"
    return web_url(eprint)


def unescape_url(value: str) -> str:
    """A link as written in BibTeX (``\\_``, ``\\%``, ``\\url{…}``, protective braces) as plain text."""
    value = re.sub(r"^\s*\\url\s*\{(.*)\}\s*$", r"\1", value, flags=re.S)
    value = re.sub(r"\\([_%&#~$])", r"\1", value)
    return value.replace("{", "").replace("}", "").strip()

"""arXiv API results (``.xml``, ``.atom``): the Atom feed ``export.arxiv.org/api/query`` returns, saved.

Read per ``<entry>``: ``title``, ``author/name``, ``summary`` (hard line wraps joined), the arXiv id
from ``<id>`` without its version (the paper's id), the ``alternate`` link (the abstract page),
``published`` (year), ``arxiv:primary_category`` (the track) and ``arxiv:doi`` (the published
version's DOI, for citations); the venue is "arXiv". Ignored: ``updated``, comments, journal
references, secondary categories, the PDF link.

Parsed with the standard library's ElementTree through ``defusedxml``, which refuses entity
expansion and external references (a downloaded file is untrusted). Not ``feedparser``: it reads
almost anything as some feed, where a file that is not Atom must stop the build with a clear message,
and it does not say on which line an entry is.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import defusedxml
import defusedxml.ElementTree

from generator.errors import InputError
from generator.model import Citation, Paper, SourceLocation
from generator.sources.base import (
    DEFAULT_OPTIONS,
    FileContents,
    ReadOptions,
    UnreadRecords,
    bare_doi,
    one_line,
    papers_from_records,
    paragraphs,
    web_url,
    year_in,
)

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
_VERSION = re.compile(r"v\d+$")


class _LineRecordingBuilder(ElementTree.TreeBuilder):
    """Keeps the line each element starts on, read from the parser as the element opens."""

    def __init__(self) -> None:
        super().__init__()
        self.parser: defusedxml.ElementTree.DefusedXMLParser | None = None
        self.lines: dict[int, int] = {}

    def start(self, tag, attrs):  # type: ignore[no-untyped-def, override]
        element = super().start(tag, attrs)
        if self.parser is not None:
            self.lines[id(element)] = self.parser.parser.CurrentLineNumber
        return element


def read(path: Path, options: ReadOptions = DEFAULT_OPTIONS) -> FileContents:
    data = path.read_bytes()
    if not data.strip():
        raise InputError(path, None, "file is empty; expected an Atom feed as the arXiv API returns it")
    builder = _LineRecordingBuilder()
    parser = defusedxml.ElementTree.DefusedXMLParser(target=builder)
    builder.parser = parser
    try:
        parser.feed(data)
        root = parser.close()
    except ElementTree.ParseError as error:
        line, column = error.position
        raise InputError(
            path, line, f"not well-formed XML ({_parse_problem(error)}, column {column + 1})"
        ) from None
    except defusedxml.DefusedXmlException as error:
        raise InputError(
            path,
            None,
            f"refused: the XML declares entities or external references ({type(error).__name__}); "
            "an arXiv API response has none, and expanding them is unsafe",
        ) from None
    except (ValueError, LookupError) as error:  # an encoding expat does not know
        raise InputError(path, None, f"not readable XML ({error})") from None
    if root.tag != f"{ATOM}feed":
        raise InputError(
            path,
            builder.lines.get(id(root)),
            f"an XML document whose root is <{_local(root.tag)}>, not an Atom feed; expected "
            '<feed xmlns="http://www.w3.org/2005/Atom"> as the arXiv API returns it',
        )
    entries = root.findall(f"{ATOM}entry")
    if not entries:
        raise InputError(path, None, "an Atom feed with no <entry>: the query found no papers")

    unread = UnreadRecords(options.keep_going)
    lines = [builder.lines.get(id(entry), 1) for entry in entries]
    papers, warnings = papers_from_records(
        path, entries, lines, unread, _paper, ("entry", "entries"), "no <summary>"
    )
    if not papers and not unread.skipped:
        raise InputError(path, None, f"none of its {len(entries)} entries has a <summary>")
    return FileContents(collection_name=None, papers=papers, warnings=warnings, skipped=unread.skipped)


def _paper(path: Path, index: int, entry: ElementTree.Element, line: int | None) -> Paper | str:
    """The entry as a paper, or, for an entry without a summary, its arXiv id for the warning. (Its
    ``index`` is not used: an entry is named by its id and line.)"""
    raw_id = _text(entry, f"{ATOM}id")
    if "/api/errors" in raw_id:
        raise InputError(
            path, line, f"the arXiv API answered with an error: {_text(entry, f'{ATOM}summary')}"
        )
    abstract = paragraphs(_text(entry, f"{ATOM}summary"))
    paper_id = _VERSION.sub("", re.sub(r"^https?://(?:export\.)?arxiv\.org/abs/", "", raw_id.strip()))
    if not paper_id:
        raise InputError(path, line, "entry has no <id>; expected the paper's arXiv address")
    if not abstract:
        return paper_id
    category = entry.find(f"{ARXIV}primary_category")
    title = one_line(_text(entry, f"{ATOM}title"))
    year = year_in(_text(entry, f"{ATOM}published"))
    url = _link(entry) or web_url(raw_id)
    doi = bare_doi(_text(entry, f"{ARXIV}doi"))
    track = one_line(category.get("term")) if category is not None else None
    # As arXiv's own "Export BibTeX Citation" writes it: a @misc with the eprint fields.
    cited = (
        ("title", title),
        ("year", str(year) if year else None),
        ("eprint", paper_id),
        ("archiveprefix", "arXiv"),
        ("primaryclass", track),
        ("url", url),
        ("doi", doi),
    )
    return Paper(
        id=paper_id,
        abstract=abstract,
        source=SourceLocation(path, line or 1),
        title=title,
        authors=tuple(
            name
            for author in entry.findall(f"{ATOM}author")
            if (name := one_line(_text(author, f"{ATOM}name")))
        ),
        url=url,
        doi=doi,
        venue="arXiv",
        year=year,
        track=track,
        citation=Citation("misc", fields=tuple((name, value) for name, value in cited if value)),
    )


def _text(element: ElementTree.Element, tag: str) -> str:
    found = element.find(tag)
    return "".join(found.itertext()) if found is not None else ""


def _link(entry: ElementTree.Element) -> str | None:
    for link in entry.findall(f"{ATOM}link"):
        if link.get("rel", "alternate") == "alternate" and (url := web_url(link.get("href"))):
            return url
    return None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _parse_problem(error: ElementTree.ParseError) -> str:
    return re.sub(r": line \d+, column \d+$", "", str(error))

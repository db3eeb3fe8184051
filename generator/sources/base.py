"""What every reader shares: decoding files, the record a reader returns, ids for papers without one,
and the small field clean-ups the structured formats have in common."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.errors import InputError
from generator.model import Paper
from generator.progress import plural

PAPER_FIELDS = ("id", "title", "abstract", "authors", "keywords", "tags", "url", "venue", "year", "track")
"""The fields a reader fills, by the names ``--columns`` uses."""

SKIPPED_NAMES_SHOWN = 5
"""How many skipped records a warning names before it only counts the rest."""


@dataclass(frozen=True)
class ReadOptions:
    """What the maintainer told the readers beyond the files themselves."""

    columns: tuple[tuple[str, str], ...] = ()
    """``(field, column header)`` pairs for tables whose headers the CSV reader does not know."""
    keep_going: bool = False
    """``--keep-going``: a record (or file) that cannot be read is passed over and named at the end of
    the build, instead of stopping it."""


DEFAULT_OPTIONS = ReadOptions()


@dataclass(frozen=True)
class FileContents:
    """What one reader returns: the collection name the file declares, if any, its papers, and what it
    left out (one line each, for the maintainer)."""

    collection_name: str | None
    papers: list[Paper]
    warnings: list[str] = field(default_factory=list)
    skipped: list[InputError] = field(default_factory=list)
    """Records passed over with ``--keep-going``, each with its place and problem."""


@dataclass
class UnreadRecords:
    """What a reader does with a record it cannot read: by default the first stops the build (nothing
    is written); with ``--keep-going`` each is noted, and the reader goes on to the next record."""

    keep_going: bool
    skipped: list[InputError] = field(default_factory=list)

    def note(self, error: InputError) -> None:
        if not self.keep_going:
            raise error
        self.skipped.append(error)


def paper_id_from_abstract(abstract: str) -> str:
    """A stable id for a paper that came without one: a hash of its whitespace-normalised text."""
    normalised = " ".join(abstract.split())
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()[:12]


def read_text(path: Path) -> str:
    """The file as text: strict UTF-8 (a BOM is allowed), with CRLF and CR line endings normalised."""
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise InputError(path, None, "looks like a binary file (it contains NUL bytes), not UTF-8 text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(
            path,
            line,
            f"not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start}); "
            "re-save the file as UTF-8",
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def one_line(text: str | None) -> str | None:
    """A title, name or venue on one line with single spaces; ``None`` when nothing is left."""
    if text is None:
        return None
    return " ".join(text.split()) or None


def paragraphs(text: str) -> str:
    """Hard-wrapped prose (arXiv summaries, BibTeX fields) as paragraphs: lines joined with a space,
    paragraphs (blank lines) kept apart."""
    blocks = re.split(r"\n[ \t\xa0]*\n", text.strip())
    return "\n\n".join(joined for block in blocks if (joined := " ".join(block.split())))


_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def year_in(text: str) -> int | None:
    """The first plausible four-digit year in a date or venue string ("2024-05-01", "ICLR 2024")."""
    found = _YEAR.search(text)
    return int(found.group(1)) if found else None


def web_url(text: str | None) -> str | None:
    """An http(s) address as given, or ``None`` for anything else (relative paths, file names)."""
    text = (text or "").strip()
    return text if re.match(r"https?://\S+$", text, re.I) else None


def bare_doi(doi: str | None) -> str | None:
    """A DOI (bare, ``doi:``-prefixed or a doi.org address) as "10.…/…", or ``None`` if it is none."""
    doi = (doi or "").strip()
    doi = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", doi, flags=re.I)
    return doi if re.match(r"10\.\S+/\S+$", doi) else None


_JOURNAL = re.compile(r"\b(journal|transactions|letters|review|magazine|annals|bulletin)\b", re.I)
_PREPRINT = re.compile(r"\b(arxiv|biorxiv|medrxiv|preprint|corr)\b", re.I)

VENUE_FIELD = {"article": "journal", "inproceedings": "booktitle", "incollection": "booktitle"}
"""Where a BibTeX entry type names the paper's venue; other types put a venue in ``howpublished``."""


def guessed_entry_type(venue: str | None) -> str:
    """For a source that does not say: ``article`` for a journal, ``misc`` for a preprint or no venue,
    else ``inproceedings`` (a digest is most often a conference)."""
    if not venue or _PREPRINT.search(venue):
        return "misc"
    if _JOURNAL.search(venue):
        return "article"
    return "inproceedings"


def venue_field(entry_type: str) -> str:
    return VENUE_FIELD.get(entry_type, "howpublished")


def doi_url(doi: str | None) -> str | None:
    """A DOI (bare, ``doi:``-prefixed or already a doi.org address) as its https://doi.org/ address."""
    bare = bare_doi(doi)
    return f"https://doi.org/{bare}" if bare else None


def skipped_warning(path: Path, labels: Sequence[str], what: tuple[str, str], why: str) -> list[str]:
    """One warning for every record a file held but could not give as a paper: how many, which (the
    first few), and why. ``what`` is the record's name, singular and plural. Empty when nothing was
    skipped."""
    if not labels:
        return []
    shown = ", ".join(labels[:SKIPPED_NAMES_SHOWN])
    more = f" and {len(labels) - SKIPPED_NAMES_SHOWN} more" if len(labels) > SKIPPED_NAMES_SHOWN else ""
    count = plural(len(labels), *what)
    return [f"{path}: {count} skipped, {why}: {shown}{more}"]


def papers_from_records(
    path: Path,
    records: Sequence[Any],
    lines: list[int] | None,
    unread: UnreadRecords,
    read_record: Callable[[Path, int, Any, int | None], Paper | str],
    what: tuple[str, str],
    why: str,
) -> tuple[list[Paper], list[str]]:
    """The papers of a file's records (a JSON array's items, an Atom feed's entries), read one by one
    by ``read_record`` (which gives a paper, or the record's label when it holds no abstract, or
    raises ``InputError``, noted in ``unread``), and one warning for the records skipped without an
    abstract (``what``, ``why``: see ``skipped_warning``)."""
    papers: list[Paper] = []
    without_abstract: list[str] = []
    for index, record in enumerate(records):
        try:
            paper = read_record(path, index, record, lines[index] if lines else None)
        except InputError as error:
            unread.note(error)
            continue
        if isinstance(paper, Paper):
            papers.append(paper)
        else:
            without_abstract.append(paper)
    return papers, skipped_warning(path, without_abstract, what, why)


def json_document(path: Path, text: str) -> tuple[Any, list[int] | None]:
    """A JSON file and, when it is an array, the line each of its items starts on (for messages)."""
    try:
        start = _skip_space(text, 0)
        if not text.startswith("[", start):
            return json.loads(text), None
        decoder = json.JSONDecoder()
        items: list[Any] = []
        lines: list[int] = []
        position = _skip_space(text, start + 1)
        counted, line = 0, 1
        if text.startswith("]", position):
            position += 1
        else:
            while True:
                line += text.count("\n", counted, position)
                counted = position
                lines.append(line)
                item, position = decoder.raw_decode(text, position)
                items.append(item)
                position = _skip_space(text, position)
                if text.startswith(",", position):
                    position = _skip_space(text, position + 1)
                    continue
                if text.startswith("]", position):
                    position += 1
                    break
                raise json.JSONDecodeError("Expecting ',' delimiter", text, position)
        if _skip_space(text, position) != len(text):
            raise json.JSONDecodeError("Extra data", text, _skip_space(text, position))
        return items, lines
    except json.JSONDecodeError as error:
        raise InputError(
            path, error.lineno, f"not valid JSON ({error.msg} at column {error.colno})"
        ) from None
    except RecursionError:
        raise InputError(path, None, "JSON nested too deeply to be a list of papers") from None


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\n\r":
        position += 1
    return position


def json_type(value: object) -> str:
    """What a JSON value is, in JSON's words, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def plural_json_type(value: object) -> str:
    """``json_type`` for many of them: "numbers", "lists" …"""
    return "nulls" if value is None else json_type(value).split(" ", 1)[1] + "s"


def json_problem(error: json.JSONDecodeError) -> str:
    """``Unterminated string starting at column 28``: the decoder's message ends in "at" when the
    position it names is where the bad part starts."""
    where = "column" if error.msg.endswith(" at") else "at column"
    return f"{error.msg[:1].lower()}{error.msg[1:]} {where} {error.colno}"

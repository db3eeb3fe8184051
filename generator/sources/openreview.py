"""OpenReview notes (``.json``), as ``openreview-py`` returns them and a script saves them:
``json.dump([note.to_json() for note in client.get_all_notes(…)], file)``, or the REST API's own
``{"notes": […]}``.

Both API shapes are read: API v1 notes hold plain values (``content.title`` is a string), API v2
notes hold them under ``value`` (``content.title.value``). Read: ``title``, ``authors``, ``abstract``,
``keywords`` (the authors' own), ``venue``, ``primary_area`` (the track), ``pdf`` (the link; a
``/pdf/…`` path is on openreview.net; without one, the forum page), and ``forum`` (the id; the note's
own ``id`` when it has none). The year comes from the venue ("ICLR 2024 poster"), else the publication
or creation date. Everything else (``authorids``, ``TL;DR``, ``_bibtex``, readers, signatures,
replies) is ignored. Notes without an abstract (reviews, comments, decisions) are skipped with one
warning.

No genuine dump was at hand: this reader follows the note shapes documented by openreview-py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import bibtexparser

from generator.errors import InputError
from generator.model import Citation, Paper, SourceLocation
from generator.sources.base import (
    UnreadRecords,
    guessed_entry_type,
    json_type,
    one_line,
    papers_from_records,
    venue_field,
    web_url,
    year_in,
)
from generator.sources.bibtex import citation_of_entry, entry_fields, quiet_splitter

SITE = "https://openreview.net"


def looks_like_note(value: object) -> bool:
    return isinstance(value, dict) and isinstance(value.get("content"), dict)


def papers_from_notes(
    path: Path, notes: list[Any], lines: list[int] | None, unread: UnreadRecords
) -> tuple[list[Paper], list[str]]:
    return papers_from_records(
        path, notes, lines, unread, _paper, ("note", "notes"), "no abstract (reviews or comments?)"
    )


def _paper(path: Path, index: int, note: Any, line: int | None) -> Paper | str:
    """The note as a paper, or, for a note without an abstract, how to name it in the warning."""
    where = f"note [{index}]"

    def fail(problem: str, where: str = where, line: int | None = line) -> InputError:
        return InputError(path, line, f"{where}: {problem}")

    if not looks_like_note(note):
        raise fail(
            f"expected an OpenReview note (an object with a 'content' object), found {json_type(note)}"
            + (" without 'content'" if isinstance(note, dict) else "")
        )
    content = note["content"]
    note_id = _identifier(note, "forum", fail) or _identifier(note, "id", fail)
    abstract = _text(content, "abstract", fail)
    if not abstract or not abstract.strip():
        return note_id or where
    if not note_id:
        raise fail("has no 'forum' or 'id'; a saved note always has one")
    venue = one_line(_text(content, "venue", fail))
    title = one_line(_text(content, "title", fail))
    authors = _text_list(content, "authors", fail)
    year = (year_in(venue) if venue else None) or _year_of_date(note)
    link = _link(_text(content, "pdf", fail), note_id)
    return Paper(
        id=note_id,
        abstract=abstract.strip(),
        source=SourceLocation(path, line or 1),
        title=title,
        authors=authors,
        url=link,
        venue=venue,
        year=year,
        author_keywords=_text_list(content, "keywords", fail),
        track=one_line(_text(content, "primary_area", fail)),
        citation=_bibtex_citation(content) or _citation(title, venue, year, link),
    )


def _bibtex_citation(content: dict[str, Any]) -> Citation | None:
    """The entry OpenReview writes for the paper itself (``_bibtex``: ``@inproceedings`` with the
    conference's full name once accepted, ``@misc`` while under review), when the note has one."""
    entry_text = _value(content, "_bibtex")
    if not isinstance(entry_text, str) or "@" not in entry_text:
        return None
    try:
        with quiet_splitter():
            library = bibtexparser.parse_string(entry_text)
    except Exception:
        return None
    if len(library.entries) != 1:
        return None
    entry = library.entries[0]
    return citation_of_entry(entry.entry_type, entry_fields(entry))


def _citation(title: str | None, venue: str | None, year: int | None, link: str | None) -> Citation:
    """Without ``_bibtex``: the venue as OpenReview names it ("ICLR 2024 poster"), the type guessed from
    it, a venue that says "Submitted to" a ``misc``."""
    kind = "misc" if not venue or venue.lower().startswith("submitted to") else guessed_entry_type(venue)
    cited = (
        ("title", title),
        (venue_field(kind), venue),
        ("year", str(year) if year else None),
        ("url", link),
    )
    return Citation(kind, fields=tuple((name, value) for name, value in cited if value))


def _value(content: dict[str, Any], key: str) -> Any:
    """A content field in either API's shape: v1 ``"title": "…"``, v2 ``"title": {"value": "…"}``."""
    value = content.get(key)
    if isinstance(value, dict) and "value" in value:
        return value["value"]
    return value


def _text(content: dict[str, Any], key: str, fail: Any) -> str | None:
    value = _value(content, key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise fail(f"content {key!r} must be a string, not {json_type(value)}")
    return value


def _text_list(content: dict[str, Any], key: str, fail: Any) -> tuple[str, ...]:
    value = _value(content, key)
    if value is None:
        return ()
    if isinstance(value, str):  # some venues' keywords are one comma-separated string
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise fail(f"content {key!r} must be a list of strings")
    return tuple(item for part in value if (item := one_line(part)))


def _identifier(note: dict[str, Any], key: str, fail: Any) -> str | None:
    value = note.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise fail(f"{key!r} must be a string, not {json_type(value)}")
    return value.strip() or None


def _link(pdf: str | None, note_id: str) -> str | None:
    pdf = (pdf or "").strip()
    if pdf.startswith("/"):
        return SITE + pdf
    return web_url(pdf) or f"{SITE}/forum?id={note_id}"


def _year_of_date(note: dict[str, Any]) -> int | None:
    """From the publication date, else the creation date (milliseconds since 1970)."""
    for key in ("pdate", "odate", "cdate", "tcdate"):
        value = note.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                return datetime.fromtimestamp(value / 1000, UTC).year
            except (OverflowError, OSError, ValueError):
                return None
    return None

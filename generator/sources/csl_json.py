"""CSL-JSON (``.json``): a list of items, as Zotero, Mendeley and most reference managers export it.

Read: ``title`` (CSL's rich-text tags such as ``<i>`` removed), ``author`` (``given``/``family`` with
particles and suffix, or ``literal``), ``abstract``, ``issued`` (``date-parts``, ``raw`` or a
string: the year), ``container-title`` (venue), ``URL`` or else ``DOI`` (link), ``keyword`` (split
on commas; the reader's tags, not the authors' keywords), ``id``. Ignored: every other field
(``type``, pages, volume, ISSN, ``accessed``, notes …). Items without an abstract are skipped with
one warning.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from generator.errors import InputError
from generator.model import Citation, Paper, PersonName, SourceLocation
from generator.sources.base import (
    UnreadRecords,
    bare_doi,
    doi_url,
    json_type,
    one_line,
    paper_id_from_abstract,
    papers_from_records,
    venue_field,
    web_url,
    year_in,
)

_RICH_TEXT_TAG = re.compile(r"</?(?:i|b|sup|sub|sc|span)(?:\s[^<>]*)?>", re.I)
"""The HTML-like markup CSL-JSON allows in titles (``<i>``, ``<span class="nocase">`` …)."""


def looks_like_item(value: object) -> bool:
    return (
        isinstance(value, dict)
        and "content" not in value
        and any(key in value for key in ("type", "title", "author", "abstract", "issued", "container-title"))
    )


def papers_from_items(
    path: Path, items: list[Any], lines: list[int] | None, unread: UnreadRecords
) -> tuple[list[Paper], list[str]]:
    return papers_from_records(path, items, lines, unread, _paper, ("item", "items"), "no abstract")


def _paper(path: Path, index: int, item: Any, line: int | None) -> Paper | str:
    """The item as a paper, or, for an item without an abstract, how to name it in the warning."""
    where = f"item [{index}]"

    def fail(problem: str, where: str = where, line: int | None = line) -> InputError:
        return InputError(path, line, f"{where}: {problem}")

    if not looks_like_item(item):
        keys = f" with keys {', '.join(map(repr, list(item)[:5]))}" if isinstance(item, dict) else ""
        raise fail(
            f"expected a CSL-JSON item (an object with 'type', 'title', 'author' …), "
            f"found {json_type(item)}{keys}"
        )
    abstract = _string(item, "abstract", fail)
    raw_id = item.get("id")
    if raw_id is not None and (isinstance(raw_id, bool) or not isinstance(raw_id, (str, int))):
        raise fail(f"'id' must be a string or a number, not {json_type(raw_id)}")
    if not abstract or not abstract.strip():
        return str(raw_id) if raw_id not in (None, "") else where
    abstract = abstract.strip()
    title = _string(item, "title", fail)
    return Paper(
        id=str(raw_id) if raw_id not in (None, "") else paper_id_from_abstract(abstract),
        abstract=abstract,
        source=SourceLocation(path, line or 1),
        title=one_line(_RICH_TEXT_TAG.sub("", title)) if title else None,
        authors=_authors(item.get("author"), fail),
        url=web_url(_string(item, "URL", fail)) or doi_url(_string(item, "DOI", fail)),
        doi=bare_doi(_string(item, "DOI", fail)),
        venue=one_line(_first_string(item, "container-title", fail)),
        year=_year(item.get("issued"), fail),
        # CSL's "keyword(s) or tag(s) attached to the item": what reference managers (Better BibTeX,
        # citation.js) write there is the library's tags, so they are the reader's, not the authors'.
        tags=_keywords(item.get("keyword"), fail),
        citation=_citation(item, title, fail),
    )


ENTRY_TYPES = {
    "article-journal": "article",
    "article-magazine": "article",
    "article-newspaper": "article",
    "review": "article",
    "paper-conference": "inproceedings",
    "chapter": "incollection",
    "entry-encyclopedia": "incollection",
    "entry-dictionary": "incollection",
    "book": "book",
    "report": "techreport",
    "thesis": "phdthesis",
    "manuscript": "unpublished",
}
"""CSL item types as BibTeX entry types, as Zotero's and citeproc's BibTeX exports map them; any
other type (``article``, a preprint; ``webpage``, ``dataset`` …) is ``misc``."""
CITED_VARIABLES = (
    ("volume", "volume"),
    ("issue", "number"),
    ("page", "pages"),
    ("publisher", "publisher"),
    ("publisher-place", "address"),
    ("edition", "edition"),
    ("collection-title", "series"),
    ("ISBN", "isbn"),
    ("ISSN", "issn"),
    ("title-short", "shorttitle"),
    ("language", "language"),
)
"""CSL variables a citation carries, with their BibTeX field names."""


def _citation(item: dict[str, Any], title: str | None, fail: Any) -> Citation:
    """The item as BibTeX would cite it: the type mapped (``ENTRY_TYPES``), names in their parts
    (particles as von), ``container-title`` as journal or booktitle, the fields in ``CITED_VARIABLES``."""
    kind = ENTRY_TYPES.get(str(item.get("type", "")), "misc")
    fields: list[tuple[str, str]] = []
    if title and (text := one_line(_RICH_TEXT_TAG.sub("", title))):
        fields.append(("title", text))
    venue = one_line(_first_string(item, "container-title", fail))
    if venue:
        if kind == "techreport":
            fields.append(("institution", venue))
        else:
            fields.append((venue_field(kind), venue))
    year = _year(item.get("issued"), fail)
    if year:
        fields.append(("year", str(year)))
    for variable, name in (*CITED_VARIABLES, *((("number", "number"),) if kind == "techreport" else ())):
        if value := _plain(item.get(variable)):
            fields.append((name, value))
    if url := web_url(_string(item, "URL", fail)):
        fields.append(("url", url))
    if doi := bare_doi(_string(item, "DOI", fail)):
        fields.append(("doi", doi))
    return Citation(
        kind, _name_parts(item.get("author")), tuple(fields), editors=_name_parts(item.get("editor"))
    )


def _plain(value: Any) -> str | None:
    """A variable the paper's fields do not need, as text; a value of another shape is not cited
    rather than refused (the item is still read)."""
    if isinstance(value, list) and value:
        value = value[0]
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return one_line(str(value))
    return None


def _name_parts(value: Any) -> tuple[PersonName, ...]:
    """Each person's parts: ``family`` the last name, particles the von part, ``suffix`` the jr part,
    ``literal`` (a group) the whole last name. Lenient: a person or part of another shape is left out
    (``_authors`` has already refused a malformed author list; editors are only cited)."""
    people = []
    for person in value if isinstance(value, list) else ():
        if not isinstance(person, dict):
            continue

        def part(*keys: str, person: dict[str, Any] = person) -> str:
            values = (person.get(key) for key in keys)
            return " ".join(
                str(v).strip()
                for v in values
                if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v).strip()
            )

        if part("literal"):
            people.append(PersonName(last=part("literal")))
        elif part("family", "given"):
            people.append(
                PersonName(
                    last=part("family"),
                    first=part("given"),
                    von=part("dropping-particle", "non-dropping-particle"),
                    jr=part("suffix"),
                )
            )
    return tuple(people)


def _string(item: dict[str, Any], key: str, fail: Any) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise fail(f"{key!r} must be a string, not {json_type(value)}")
    return value


def _first_string(item: dict[str, Any], key: str, fail: Any) -> str | None:
    """Some exporters write ``container-title`` as a list of names; the first is the venue."""
    value = item.get(key)
    if isinstance(value, list):
        value = next(iter(value), None)
    return _string({key: value}, key, fail)


def _authors(value: Any, fail: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise fail(f"'author' must be a list of names, not {json_type(value)}")
    names = []
    for person in value:
        if not isinstance(person, dict):
            raise fail(f"'author' entries must be objects with 'family' and 'given', not {json_type(person)}")
        parts = []
        for key in ("literal", "given", "dropping-particle", "non-dropping-particle", "family", "suffix"):
            part = person.get(key)
            if part is None:
                continue
            if not isinstance(part, (str, int)) or isinstance(part, bool):
                raise fail(f"an author's {key!r} must be a string, not {json_type(part)}")
            parts.append(str(part))
            if key == "literal":
                break
        if name := one_line(" ".join(parts)):
            names.append(name)
    return tuple(names)


def _year(value: Any, fail: Any) -> int | None:
    """``{"date-parts": [["2024", 11, 13]]}`` (the year may be a string), ``{"raw": "2024-11"}``,
    ``{"literal": …}`` or a plain string."""
    if value is None:
        return None
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return year_in(str(value))
    if not isinstance(value, dict):
        raise fail(f"'issued' must be a date object, not {json_type(value)}")
    parts = value.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        first = parts[0][0]
        if isinstance(first, (str, int)) and not isinstance(first, bool):
            return year_in(str(first))
    for key in ("raw", "literal", "season"):
        if isinstance(value.get(key), str):
            return year_in(value[key])
    return None


def _keywords(value: Any, fail: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = value.split(";" if ";" in value else ",")
    if not isinstance(value, list) or not all(isinstance(word, str) for word in value):
        raise fail("'keyword' must be a string of comma-separated keywords")
    return tuple(dict.fromkeys(word for part in value if (word := one_line(part))))

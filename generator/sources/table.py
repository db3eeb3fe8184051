"""CSV and TSV tables, as conferences (Mini-Conf's ``papers.csv``) and spreadsheets export them.

The first row is the header. Columns are found by name, ignoring case, spaces, ``_`` and ``-``
(``Paper Title`` = ``paper_title``); ``ReadOptions.columns`` names any other column. The delimiter
(comma, semicolon or tab) is the one that splits the header into the most columns. Columns no field
asks for are ignored; rows without an abstract are skipped with one warning.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from generator.errors import InputError
from generator.model import Paper, SourceLocation
from generator.progress import plural
from generator.sources.base import (
    DEFAULT_OPTIONS,
    FileContents,
    ReadOptions,
    one_line,
    paper_id_from_abstract,
    read_text,
    skipped_warning,
    web_url,
)

COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "uid", "paper id"),
    "title": ("title", "paper title", "name"),
    "abstract": ("abstract", "summary"),
    "authors": ("authors", "author", "author names"),
    "keywords": ("keywords", "keyword", "author keywords"),
    "url": ("url", "link", "href", "pdf url", "pdf"),
    "venue": ("venue",),
    "year": ("year",),
    "track": ("track", "area", "session"),
}
"""Header names each field is found under, the preferred first. For ``url`` every listed column is
tried in turn, row by row, until one holds an http(s) address (Mini-Conf's ``pdf_url`` is often a path
inside its own site)."""

DELIMITERS = (",", ";", "\t")
MISSING_VALUES = frozenset({"NA", "N/A", "#N/A", "NaN", "NULL", "null"})
"""What R, pandas and spreadsheets write into an empty cell: read as empty."""

_LIST_SEPARATOR = re.compile(r"\s*[|;]\s*")
_AUTHOR_FALLBACK_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+", re.I)


def normalise_header(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name).lower()


def read(path: Path, options: ReadOptions = DEFAULT_OPTIONS) -> FileContents:
    text = read_text(path)
    if not text.strip():
        raise InputError(path, None, "file is empty; expected a header row, then one paper per row")
    # Excel writes "sep=;" on a first line of its own to name the delimiter.
    hint = re.match(r"sep=(.)\n", text)
    if hint:
        rows = _rows(path, text[hint.end() :], hint.group(1), first_line=2)
    else:
        rows = _rows(path, text, _delimiter(path, text))
    if not rows:
        raise InputError(
            path, None, "holds only a 'sep=' line; expected a header row, then one paper per row"
        )
    header_line, header = rows[0]
    columns = _columns(path, header_line, header, options)

    papers: list[Paper] = []
    without_abstract: list[str] = []
    without_link: list[str] = []
    for line, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputError(
                path,
                line,
                f"row has {len(row)} fields, the header has {len(header)}; "
                "is a quote missing or a delimiter inside an unquoted field?",
            )

        def cell(name: str, row: list[str] = row) -> str:
            index = columns.get(name)
            return _value(row[index]) if index is not None else ""

        abstract = cell("abstract")
        if not abstract:
            without_abstract.append(f"line {line}" + (f" ({cell('id')})" if cell("id") else ""))
            continue
        links = [_value(row[i]) for i in columns.get_all("url") if _value(row[i])]
        url = next((u for u in map(web_url, links) if u), None)
        if links and url is None:
            without_link.append(f"line {line} ({links[0]!r})")
        papers.append(
            Paper(
                id=cell("id") or paper_id_from_abstract(abstract),
                abstract=abstract,
                source=SourceLocation(path, line),
                title=one_line(cell("title")),
                authors=split_authors(cell("authors")),
                url=url,
                venue=one_line(cell("venue")),
                year=_year(path, line, cell("year")),
                author_keywords=split_list(cell("keywords")),
                track=one_line(cell("track")),
            )
        )
    if not papers:
        raise InputError(path, None, f"no row has an abstract (in column {header[columns['abstract']]!r})")
    warnings = skipped_warning(
        path, without_abstract, ("row", "rows"), "no abstract (empty, or NA and the like)"
    )
    warnings.extend(_unread_columns(path, header, columns))
    if without_link:
        shown = ", ".join(without_link[:3])
        warnings.append(
            f"{path}: {plural(len(without_link), 'row')} with only links "
            f"that are not http(s) addresses, left out: {shown}{' …' if len(without_link) > 3 else ''}"
        )
    return FileContents(collection_name=None, papers=papers, warnings=warnings)


def _value(cell: str) -> str:
    cell = cell.strip()
    return "" if cell in MISSING_VALUES else cell


def split_list(text: str) -> tuple[str, ...]:
    """A keyword list: items separated by ``|`` or ``;``."""
    return tuple(item for part in _LIST_SEPARATOR.split(text) if (item := one_line(part)))


def split_authors(text: str) -> tuple[str, ...]:
    """Authors separated by ``|`` or ``;``, or else by commas and ``and``."""
    separator = _LIST_SEPARATOR if _LIST_SEPARATOR.search(text) else _AUTHOR_FALLBACK_SEPARATOR
    return tuple(item for part in separator.split(text) if (item := one_line(part)))


def _delimiter(path: Path, text: str) -> str:
    """The delimiter that splits the header row into the most columns; tab first for ``.tsv``.

    Only the header is looked at: ``csv.Sniffer`` weighs every line of a sample, and abstracts full of
    commas and quoted line breaks mislead it."""
    header = text.split("\n", 1)[0]
    preferred = ("\t", ",", ";") if path.suffix.lower() == ".tsv" else DELIMITERS

    def width(delimiter: str) -> int:
        try:
            return len(next(csv.reader([header], delimiter=delimiter)))
        except (csv.Error, StopIteration):
            return 0

    return max(preferred, key=width)  # max keeps the first of equals


def _rows(path: Path, text: str, delimiter: str, first_line: int = 1) -> list[tuple[int, list[str]]]:
    """Every row with the line it starts on."""
    # Lines keep their "\n", so a quoted field's line breaks stay in it.
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows: list[tuple[int, list[str]]] = []
    start = first_line
    try:
        for row in reader:
            rows.append((start, row))
            start = reader.line_num + first_line
    except csv.Error as error:
        raise InputError(path, start, f"not a readable CSV row ({error})") from None
    return rows


class _Columns:
    """Which header position each field reads."""

    def __init__(self, chosen: dict[str, list[int]]) -> None:
        self._chosen = chosen

    def get(self, name: str) -> int | None:
        found = self._chosen.get(name)
        return found[0] if found else None

    def get_all(self, name: str) -> list[int]:
        return self._chosen.get(name, [])

    def __getitem__(self, name: str) -> int:
        return self._chosen[name][0]


def _columns(path: Path, line: int, header: list[str], options: ReadOptions) -> _Columns:
    positions: dict[str, list[int]] = {}
    for index, name in enumerate(header):
        positions.setdefault(normalise_header(name), []).append(index)
    chosen: dict[str, list[int]] = {}
    for field, wanted in options.columns:
        found = positions.get(normalise_header(wanted))
        if not found:
            raise InputError(
                path,
                line,
                f"no column {wanted!r} (asked for by --columns {field}={wanted}); "
                f"the header has {', '.join(map(repr, header))}",
            )
        chosen[field] = [found[0]]
    for field, aliases in COLUMN_ALIASES.items():
        if field in chosen:
            continue
        keys = dict.fromkeys(normalise_header(alias) for alias in aliases)
        matches = [(key, positions[key]) for key in keys if key in positions]
        for alias, found in matches:
            if len(found) > 1:
                names = " and ".join(repr(header[i]) for i in found)
                raise InputError(
                    path,
                    line,
                    f"columns {names} both read as {alias!r}; "
                    f"name the one to use with --columns {field}=NAME",
                )
        if matches:
            chosen[field] = [found[0] for _, found in matches] if field == "url" else matches[0][1]
    if "abstract" not in chosen:
        raise InputError(
            path,
            line,
            "no abstract column (looked for 'abstract' or 'summary'; the header has "
            f"{', '.join(map(repr, header))}); name it with --columns abstract=NAME",
        )
    return _Columns(chosen)


def _unread_columns(path: Path, header: list[str], columns: _Columns) -> list[str]:
    """A warning when no column was taken for the title or the authors while some columns were not
    read at all: one of them may hold what a reader misses (``Writers``, ``Paper Title``)."""
    missing = [field for field in ("title", "authors") if columns.get(field) is None]
    read = {index for field in COLUMN_ALIASES for index in columns.get_all(field)}
    unread = [repr(name) for index, name in enumerate(header) if index not in read and name.strip()]
    if not missing or not unread:
        return []
    return [
        f"{path}: no {' or '.join(missing)} column found, and the columns {', '.join(unread)} were not "
        f"read; if one holds them, name it with --columns {missing[0]}=NAME"
    ]


def _year(path: Path, line: int, text: str) -> int | None:
    if not text:
        return None
    # Spreadsheets write a number column as "2021.0".
    found = re.fullmatch(r"(\d{1,4})(?:\.0*)?", text)
    if not found:
        raise InputError(path, line, f"'year' must be a number, not {text!r}")
    return int(found.group(1))

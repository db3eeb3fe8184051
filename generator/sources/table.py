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
from generator.model import Citation, Paper, PersonName, SourceLocation
from generator.progress import plural
from generator.sources.base import (
    DEFAULT_OPTIONS,
    FileContents,
    ReadOptions,
    UnreadRecords,
    bare_doi,
    doi_url,
    guessed_entry_type,
    one_line,
    paper_id_from_abstract,
    read_text,
    skipped_warning,
    venue_field,
    web_url,
)

COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "uid", "paper id", "key", "identifier"),
    "title": ("title", "paper title", "name"),
    "abstract": ("abstract", "summary", "abstract note"),
    "authors": ("authors", "author", "author names"),
    "keywords": ("keywords", "keyword", "author keywords"),
    "tags": ("manual tags", "automatic tags", "tags"),
    "url": ("url", "link", "href", "pdf url", "pdf"),
    "doi": ("doi", "electronic resource number"),
    "venue": (
        "venue",
        "publication title",
        "conference name",
        "secondary title",
        "journal",
        "booktitle",
        "source",
    ),
    "year": ("year", "publication year"),
    "track": ("track", "area", "session"),
}
"""Header names each field is found under, the preferred first. For the fields in ``EVERY_COLUMN``
every listed column is read: ``url`` and ``venue`` row by row until one holds a value (Mini-Conf's
``pdf_url`` is often a path inside its own site; JabRef writes a journal or a booktitle), ``keywords``
and ``tags`` all together (Zotero's manual and automatic tags are both the reader's tags, not the
authors' keywords). A ``doi`` is the link when no column holds one.

Reference managers' CSV exports read without ``--columns`` (how sure each set is, and whence):

- Zotero (File > Export Library > CSV): "Key", "Item Type", "Publication Year", "Author", "Title",
  "Publication Title", "DOI", "Url", "Abstract Note", …, "Manual Tags", "Automatic Tags"; authors
  "Family, Given; Family, Given", tags "; "-separated, a UTF-8 BOM. Sure: the column set the issue
  quotes from a real export, and Zotero's CSV translator.
- EndNote (File > Export, output style "Tab Delimited" or "Table"): "Reference Type", "Author",
  "Year", "Title", "Secondary Title" (the journal or proceedings), …, "Keywords", "Abstract", "URL",
  "Electronic Resource Number" (the DOI), sometimes "DOI"; authors separated by "//" or "; ". Fairly
  sure of the names (EndNote's generic field names); the separators vary with the style's settings.
- JabRef (File > Export > "OpenOffice/LibreOffice CSV"): "BibliographyType", "ISBN", "Identifier" (the
  BibTeX key), "Author" ("Family, Given; …"), "Title", "Journal", …, "Year", …, "URL", "Booktitle", …,
  "Custom1" … "Custom5", where rows put the abstract in Custom1 and the keywords in Custom3
  (``KNOWN_LAYOUTS``). Sure: read from JabRef's ``openoffice-csv`` layout files. JabRef's other exports
  are BibTeX-like and name "Abstract", "Keywords", "DOI" as such; authors joined by " and ".
- Mendeley: neither Mendeley Desktop nor Reference Manager has a CSV export that we know of (they
  write BibTeX, RIS and EndNote XML); tables made from it (a copied library view, Mendeley's web
  export) carry "Title", "Authors", "Abstract", "Year", "Source" (the journal), "DOI", "URL", "Tags" or
  "Keywords". Least sure: these names are the library view's columns, not a documented format."""

FAMILY_FIRST_HEADERS = frozenset({"abstractnote", "itemtype", "bibliographytype", "referencetype"})
"""Headers only Zotero's, JabRef's and EndNote's exports write, all with "Family, Given" authors."""

EVERY_COLUMN = frozenset({"url", "venue", "keywords", "tags", "doi"})

KNOWN_LAYOUTS: tuple[tuple[frozenset[str], dict[str, str]], ...] = (
    # JabRef's OpenOffice/LibreOffice CSV: the header names generic custom columns for what the rows hold.
    (
        frozenset({"bibliographytype", "identifier", "custom1", "custom3"}),
        {"abstract": "Custom1", "keywords": "Custom3"},
    ),
)
"""Exports whose header does not name a field's column: (headers that identify it, field -> column)."""

DELIMITERS = (",", ";", "\t")
MISSING_VALUES = frozenset({"NA", "N/A", "#N/A", "NaN", "NULL", "null"})
"""What R, pandas and spreadsheets write into an empty cell: read as empty."""

_LIST_SEPARATOR = re.compile(r"\s*(?:[|;]|//)\s*")
_AUTHOR_FALLBACK_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+", re.I)
_AND = re.compile(r"\s+and\s+", re.I)
# Jr., Sr. and the numerals people use (II-IV), in capitals: a single "V" or "Xi" is a given name.
_NAME_SUFFIX = re.compile(r"(?i:jr|sr)\.?|II|III|IV")


def normalise_header(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name).lower()


def read(path: Path, options: ReadOptions = DEFAULT_OPTIONS) -> FileContents:
    text = read_text(path)
    if not text.strip():
        raise InputError(path, None, "file is empty; expected a header row, then one paper per row")
    # Excel writes "sep=;" on a first line of its own to name the delimiter.
    hint = re.match(r"sep=(.)\n", text)
    unread = UnreadRecords(options.keep_going)
    if hint:
        rows = _rows(path, text[hint.end() :], hint.group(1), unread, first_line=2)
    else:
        rows = _rows(path, text, _delimiter(path, text), unread)
    if not rows:
        raise InputError(
            path, None, "holds only a 'sep=' line; expected a header row, then one paper per row"
        )
    header_line, header = rows[0]
    columns = _columns(path, header_line, header, options)

    author_column = columns.get("authors")
    # "Abstract Note" is Zotero's alone: its exports separate names by "; " only.
    zotero = "abstractnote" in {normalise_header(name) for name in header}
    family_first = author_column is not None and family_first_names(
        [row[author_column] for _, row in rows[1:] if len(row) == len(header)], header
    )

    cited_columns = _cited_columns(header)
    papers: list[Paper] = []
    without_abstract: list[str] = []
    without_link: list[str] = []
    for line, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            unread.note(
                InputError(
                    path,
                    line,
                    f"row has {len(row)} fields, the header has {len(header)}; "
                    "is a quote missing or a delimiter inside an unquoted field?",
                )
            )
            continue

        def cell(name: str, row: list[str] = row) -> str:
            index = columns.get(name)
            return _value(row[index]) if index is not None else ""

        abstract = cell("abstract")
        if not abstract:
            without_abstract.append(f"line {line}" + (f" ({cell('id')})" if cell("id") else ""))
            continue

        def cells(name: str, row: list[str] = row) -> list[str]:
            return [value for index in columns.get_all(name) if (value := _value(row[index]))]

        links = cells("url")
        doi = next((d for d in map(bare_doi, cells("doi")) if d), None)
        url = next((u for u in map(web_url, links) if u), None) or doi_url(doi)
        try:
            year = _year(path, line, cell("year"))
        except InputError as error:
            unread.note(error)
            continue
        if links and url is None:
            without_link.append(f"line {line} ({links[0]!r})")
        papers.append(
            Paper(
                id=cell("id") or paper_id_from_abstract(abstract),
                abstract=abstract,
                source=SourceLocation(path, line),
                title=one_line(cell("title")),
                authors=split_authors(cell("authors"), family_first, zotero),
                url=url,
                doi=doi,
                venue=one_line(next(iter(cells("venue")), None)),
                year=year,
                author_keywords=_keywords(cells("keywords")),
                tags=_keywords(cells("tags")),
                track=one_line(cell("track")),
                citation=_citation(
                    row,
                    cited_columns,
                    title=one_line(cell("title")),
                    authors=_name_parts(cell("authors"), zotero) if family_first else (),
                    venue=one_line(next(iter(cells("venue")), None)),
                    year=year,
                    url=next((u for u in map(web_url, links) if u), None),
                    doi=doi,
                ),
            )
        )
    if not papers and not unread.skipped:
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
    return FileContents(collection_name=None, papers=papers, warnings=warnings, skipped=unread.skipped)


ENTRY_TYPES = {
    # Zotero's "Item Type"
    "journalarticle": "article",
    "magazinearticle": "article",
    "newspaperarticle": "article",
    "conferencepaper": "inproceedings",
    "booksection": "incollection",
    "book": "book",
    "report": "techreport",
    "thesis": "phdthesis",
    "manuscript": "unpublished",
    # EndNote's "Reference Type"
    "conferenceproceedings": "inproceedings",
    "electronicarticle": "article",
    # BibTeX's own names, as JabRef-like tables write them
    **{name: name for name in ("article", "inproceedings", "incollection", "inbook", "techreport")},
    **{name: name for name in ("phdthesis", "mastersthesis", "misc", "unpublished", "proceedings")},
}
"""A table's item type (spaces and case ignored) as a BibTeX entry type; any other is ``misc``
(Zotero's "preprint", "webpage", "document" …)."""
TYPE_COLUMNS = ("itemtype", "referencetype", "entrytype", "bibtextype")
CITED_COLUMNS = {
    "volume": "volume",
    "issue": "number",
    "pages": "pages",
    "publisher": "publisher",
    "place": "address",
    "edition": "edition",
    "series": "series",
    "isbn": "isbn",
    "issn": "issn",
    "editor": "editor",
}
"""Reference managers' columns a citation carries (Zotero's names), with their BibTeX field names."""


def _cited_columns(header: list[str]) -> dict[str, int]:
    """Where the item type (as ``type``) and the ``CITED_COLUMNS`` are, by BibTeX field name."""
    positions = {normalise_header(name): index for index, name in reversed(list(enumerate(header)))}
    found = {field: positions[column] for column, field in CITED_COLUMNS.items() if column in positions}
    kind = next((positions[name] for name in TYPE_COLUMNS if name in positions), None)
    return found | ({"type": kind} if kind is not None else {})


def _citation(
    row: list[str],
    cited_columns: dict[str, int],
    *,
    title: str | None,
    authors: tuple[PersonName, ...],
    venue: str | None,
    year: int | None,
    url: str | None,
    doi: str | None,
) -> Citation:
    """The row as BibTeX would cite it: the item type mapped (``ENTRY_TYPES``), else guessed from the
    venue; a venue column as ``journal`` or ``booktitle``; the link only as a link column gave it."""
    given = {
        field: value for field, index in cited_columns.items() if (value := one_line(_value(row[index])))
    }
    item_type = given.pop("type", None)
    kind = ENTRY_TYPES.get(normalise_header(item_type), "misc") if item_type else guessed_entry_type(venue)
    fields: list[tuple[str, str]] = [("title", title)] if title else []
    if venue:
        fields.append(("institution" if kind == "techreport" else venue_field(kind), venue))
    if year:
        fields.append(("year", str(year)))
    editors = _name_parts(given.pop("editor", ""))
    fields += given.items()
    fields += [(name, value) for name, value in (("url", url), ("doi", doi)) if value]
    return Citation(kind, authors, tuple(fields), editors=editors)


def _zotero_names(text: str) -> list[str]:
    return re.split(r"\s*;\s*", text)


def _name_parts(text: str, zotero: bool = False) -> tuple[PersonName, ...]:
    """ "Family, Given; …" names (``family_first_names``) in their parts: the family name is the last
    name as the export wrote it ("Di Ruscio"), a suffix after a second comma the jr part."""
    parts = (
        _zotero_names(text)
        if zotero
        else (_LIST_SEPARATOR if _LIST_SEPARATOR.search(text) else _AND).split(text)
    )
    people = []
    for part in parts:
        family, comma, given = (piece.strip() for piece in part.partition(","))
        suffix, _, after_suffix = (piece.strip() for piece in given.partition(","))
        if not (family or given):
            continue
        if not comma:
            people.append(PersonName(last=" ".join(part.split())))
        elif _NAME_SUFFIX.fullmatch(suffix):  # "King, Jr." or "King, Jr., Martin"
            people.append(PersonName(last=family, jr=suffix, first=after_suffix))
        else:  # Zotero writes "Family, Given", and a given name may hold a comma itself
            people.append(PersonName(last=family, first=given))
    return tuple(people)


def _keywords(texts: list[str]) -> tuple[str, ...]:
    """The items of every column of a list field (Zotero's manual and automatic tags), each once."""
    return tuple(dict.fromkeys(keyword for text in texts for keyword in split_list(text)))


def _value(cell: str) -> str:
    cell = cell.strip()
    return "" if cell in MISSING_VALUES else cell


def split_list(text: str) -> tuple[str, ...]:
    """A keyword list: items separated by ``|`` or ``;``."""
    return tuple(item for part in _LIST_SEPARATOR.split(text) if (item := one_line(part)))


def split_authors(text: str, family_first: bool = False, zotero: bool = False) -> tuple[str, ...]:
    """Authors separated by ``|``, ``;`` or ``//`` (Mini-Conf, Zotero, EndNote), or else by commas and
    ``and``. With ``family_first`` (the file writes "Family, Given" names: ``family_first_names``), names are
    separated by those marks or by `` and `` (BibTeX style), and read "Given Family", as the BibTeX
    reader gives them. A Zotero export (``zotero``) separates names by "; " and nothing else: an "and"
    or a "//" inside a cell is part of a name as the library holds it."""
    if family_first:
        parts = (
            _zotero_names(text)
            if zotero
            else (_LIST_SEPARATOR if _LIST_SEPARATOR.search(text) else _AND).split(text)
        )
        return tuple(item for part in parts if (item := one_line(_given_first(part))))
    separator = _LIST_SEPARATOR if _LIST_SEPARATOR.search(text) else _AUTHOR_FALLBACK_SEPARATOR
    return tuple(item for part in separator.split(text) if (item := one_line(part)))


def family_first_names(cells: list[str], header: list[str]) -> bool:
    """Whether a file's author cells hold "Family, Given" names: an export known to write them
    (Zotero, JabRef's CSV, EndNote), or some cell listing several names that each hold exactly one
    comma. One name alone ("Lee, Bo") could be two, so only the file as a whole tells."""
    if {normalise_header(name) for name in header} & FAMILY_FIRST_HEADERS:
        return True
    for cell in cells:
        parts = (_LIST_SEPARATOR if _LIST_SEPARATOR.search(cell) else _AND).split(cell)
        if len(parts) > 1 and all(part.count(",") == 1 for part in parts):
            return True
    return False


def _given_first(name: str) -> str:
    family, comma, given = name.partition(",")
    if comma and not family.strip() and given.strip():  # ", Given": no family name written
        return given.strip()
    if not comma or not family.strip() or not given.strip():
        return name
    if _NAME_SUFFIX.fullmatch(given.strip()):  # "King, Jr." is one name as it stands
        return name
    suffix, second_comma, after_suffix = given.partition(",")
    if second_comma and _NAME_SUFFIX.fullmatch(suffix.strip()):  # "King, Jr., Martin"
        return f"{after_suffix.strip()} {family.strip()} {suffix.strip()}"
    # Zotero writes "Family, Given"; a given name may hold a comma of its own ("Zachary,M.").
    return f"{given.strip()} {family.strip()}"


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


def _rows(
    path: Path, text: str, delimiter: str, unread: UnreadRecords, first_line: int = 1
) -> list[tuple[int, list[str]]]:
    """Every row with the line it starts on. A row the CSV grammar cannot end (a quote never closed
    runs to the end of the file) is noted in ``unread``; with ``--keep-going`` reading resumes on the
    line after the one that row starts on, so the rows after it are not lost with it."""
    # Lines keep their "\n", so a quoted field's line breaks stay in it.
    lines = text.splitlines(keepends=True)
    rows: list[tuple[int, list[str]]] = []
    resume = 0
    while resume < len(lines):
        reader = csv.reader(
            io.StringIO("".join(lines[resume:]), newline=""), delimiter=delimiter, strict=True
        )
        start = first_line + resume
        try:
            for row in reader:
                rows.append((start, row))
                start = first_line + resume + reader.line_num
            break
        except csv.Error as error:
            problem = InputError(path, start, f"not a readable CSV row ({_csv_problem(error)})")
            if not rows:  # the header: nothing can be read without it
                raise problem from None
            unread.note(problem)
            resume = start - first_line + 1
    return rows


def _csv_problem(error: csv.Error) -> str:
    """Python's words for a CSV error, with its field limit said as what it likely means."""
    if "field larger than field limit" in str(error):
        return (
            f"a field runs past {csv.field_size_limit():,} characters, far longer than any abstract: "
            "is a quote left open?"
        )
    return str(error)


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
    wanted_columns = list(options.columns)
    for identifying, layout in KNOWN_LAYOUTS:
        if identifying <= positions.keys():
            given = {field for field, _ in options.columns}
            wanted_columns += [(field, name) for field, name in layout.items() if field not in given]
    for field, wanted in wanted_columns:
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
            chosen[field] = [found[0] for _, found in matches] if field in EVERY_COLUMN else matches[0][1]
    if "abstract" not in chosen:
        raise InputError(
            path,
            line,
            f"no abstract column (looked for {' or '.join(map(repr, COLUMN_ALIASES['abstract']))}; "
            "the header has "
            f"{', '.join(map(repr, header))}); name it with --columns abstract=NAME",
        )
    return _Columns(chosen)


def names_an_abstract_column(header: list[str]) -> bool:
    """Whether a header row has a column the reader takes the abstract from without ``--columns``."""
    names = {normalise_header(name) for name in header}
    known = {normalise_header(alias) for alias in COLUMN_ALIASES["abstract"]}
    return bool(names & known) or any(identifying <= names for identifying, _ in KNOWN_LAYOUTS)


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

"""Citations round-trip: each paper-list file read by a reference parser, and the digest's citations of
the same papers read back by it, compared field by field.

    python benchmarks/citation_roundtrip.py [FILE_OR_FOLDER ...]

(default: every file in ../shared/samples/ (or $PAPER_DIGEST_SAMPLES) and in $PAPER_DIGEST_EXPORTS).
For each file the digest's reader reads it (``generator.sources.read_collection``) and the citation
writers write each paper: the paper page's BibTeX block (which My list's export copies as it is),
the ``papers.bib`` entry, and the page's Google Scholar tags (``generator.site.render.citation_meta``).

The reference reading is independent of the digest's readers: BibTeX with bibtexparser 2 (its
default parse stack, names split by its ``parse_single_name_into_parts``) and every value turned into
Unicode by pylatexenc's ``LatexNodes2Text`` (its default macros, with the four symbols it gets wrong
mended as the reader mends them: ``generator.sources.bibtex.latex_context``); CSL-JSON, CSV and
arXiv Atom with the standard library, field names mapped to BibTeX's as Zotero's and arXiv's own
BibTeX exports map them. Two corrections are made on the source side only, both asked for by
issue 37: HTML entities (``\\&amp;``) are decoded, and an accent written ``\\~{n}`` outside braces
is read as ñ (bibtexparser reads the ``~`` as a tie between two words, as BibTeX's name grammar
does).

Printed per file and output: fields compared (present in the source and carried by the digest), how
many are equal, how many differ, and the fields the digest does not carry (with counts). Values are
compared after whitespace is made single spaces; DOIs as the DOI they name (case-insensitive, without
``https://doi.org/``). ``--show N`` prints the first N differences.
"""

from __future__ import annotations

import argparse
import csv
import html
import json
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

import bibtexparser  # noqa: E402
from bibtexparser.middlewares.names import (  # noqa: E402
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from pylatexenc.latex2text import LatexNodes2Text  # noqa: E402

from generator.model import AnalysedPaper, Paper, TitledPaper  # noqa: E402
from generator.site.bibtex import bibtex_entry  # noqa: E402
from generator.site.render import citation_meta  # noqa: E402
from generator.sources import read_collection  # noqa: E402
from generator.sources.base import ReadOptions  # noqa: E402
from generator.sources.bibtex import latex_context  # noqa: E402

SAMPLES = Path(os.environ.get("PAPER_DIGEST_SAMPLES") or PROJECT_ROOT.parent / "shared" / "samples")
"""The shared samples: ../shared/samples from the repository root, or where $PAPER_DIGEST_SAMPLES says."""
EXPORTS_VARIABLE = "PAPER_DIGEST_EXPORTS"
# The reader's mended macros (pylatexenc's own slips, not the source's), without its strict spaces.
_DECODER = LatexNodes2Text(latex_context=latex_context(), math_mode="verbatim")
_ENTITY = re.compile(r"\\?&(#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_MATH = re.compile(r"\$|\\\(|\\\[")
_BARE_TILDE_ACCENT = re.compile(r"(?<!\\)\\~(\{[^{}]*\}|[A-Za-z])")

NOT_CITED = frozenset({"abstract", "keywords"})
"""Written to the page apart from the citation (the abstract as the page's text, keywords as links):
not counted as citation fields."""

ZOTERO_CSV_TYPES = {
    "journalArticle": "article",
    "magazineArticle": "article",
    "newspaperArticle": "article",
    "conferencePaper": "inproceedings",
    "bookSection": "incollection",
    "book": "book",
    "report": "techreport",
    "thesis": "phdthesis",
    "manuscript": "unpublished",
}
"""Zotero's item types as its own BibTeX export writes them (``translators/BibTeX.js``)."""
CSL_TYPES = {
    "article-journal": "article",
    "article-magazine": "article",
    "article-newspaper": "article",
    "paper-conference": "inproceedings",
    "chapter": "incollection",
    "book": "book",
    "report": "techreport",
    "thesis": "phdthesis",
    "manuscript": "unpublished",
}
"""CSL types as citeproc's and Zotero's BibTeX exports write them; any other is ``misc``."""


@dataclass
class Tally:
    compared: int = 0
    equal: int = 0
    not_carried: Counter[str] = field(default_factory=Counter)
    differences: list[str] = field(default_factory=list)

    def compare(self, where: str, name: str, source: str | None, output: str | None) -> None:
        if source is None or source == "":
            return
        if output is None or output == "":
            self.not_carried[name] += 1
            return
        self.compared += 1
        if _same(name, source, output):
            self.equal += 1
        else:
            self.differences.append(f"{where} {name}: source {source!r}, output {output!r}")


def _same(name: str, source: str, output: str) -> bool:
    if name in ("doi", "citation_doi"):
        return _doi(source) == _doi(output)
    return " ".join(source.split()) == " ".join(output.split())


def _doi(value: str) -> str:
    return re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", value.strip(), flags=re.I).lower()


def text(latex: str, entities: bool = False) -> str:
    """A BibTeX value as Unicode: pylatexenc's reading of the LaTeX, after HTML entities are decoded
    when ``entities`` (a source's values; the digest's output is not decoded again)."""
    if entities:
        latex = _ENTITY.sub(lambda m: _entity(m.group()), latex)
    return " ".join(_DECODER.latex_to_text(latex).split())


def _entity(written: str) -> str:
    entity = written.lstrip("\\")
    decoded = html.unescape(entity)
    return written if decoded == entity else {"&": r"\&", "%": r"\%", "#": r"\#"}.get(decoded, decoded)


def url_text(value: str) -> str:
    value = re.sub(r"^\s*\\url\s*\{(.*)\}\s*$", r"\1", value, flags=re.S)
    value = re.sub(
        r"\\([_%&#~$])", r"\1", _ENTITY.sub(lambda m: html.unescape(m.group().lstrip("\\")), value)
    )
    return value.replace("{", "").replace("}", "").strip()


# --- the reference reading: what each source says, as {field: text} and names in parts ------------


@dataclass
class Record:
    key: str
    """How the digest's paper is found: its id, or for a table its line."""
    entry_type: str | None
    names: list[dict[str, str]]
    """Each author's parts (``first``, ``von``, ``last``, ``jr``), or ``{"name": …}`` given whole."""
    fields: dict[str, str]
    editors: list[dict[str, str]] = field(default_factory=list)
    """A CSL item's or a table's editors in parts (a BibTeX source's are its ``editor`` field)."""


def bibtex_records(path: Path) -> list[Record]:
    library = bibtexparser.parse_file(str(path))
    records = []
    for entry in library.entries:
        values = {}
        for item in entry.fields:
            values.setdefault(item.key.lower(), str(item.value))
        names = []
        # An "and" with no name after it (PubMed's "… and }") names nobody, as in BibTeX.
        authors = re.sub(r"\s+and\s*$", "", _BARE_TILDE_ACCENT.sub(r"{\\~\1}", values.pop("author", "")))
        for name in split_multiple_persons_names(authors):
            parts = parse_single_name_into_parts(name, strict=False)
            names.append({k: text(" ".join(getattr(parts, k)), True) for k in ("first", "von", "last", "jr")})
        fields = {k: url_text(v) if k in ("url", "doi") else text(v, True) for k, v in values.items()}
        records.append(Record(entry.key, entry.entry_type.lower(), names, fields))
    return records


def csl_records(path: Path) -> list[Record]:
    records = []
    for item in json.loads(path.read_text(encoding="utf-8")):
        kind = CSL_TYPES.get(item.get("type", ""), "misc")
        names, editors = _csl_names(item.get("author", [])), _csl_names(item.get("editor", []))
        fields = {"title": re.sub(r"</?(i|b|sup|sub|sc|span)(\s[^<>]*)?>", "", item.get("title", ""))}
        container = item.get("container-title")
        if container:
            venue = {"article": "journal", "inproceedings": "booktitle", "incollection": "booktitle"}
            fields[venue.get(kind, "institution" if kind == "techreport" else "howpublished")] = container
        parts = (item.get("issued") or {}).get("date-parts") or [[None]]
        if parts[0] and parts[0][0]:
            fields["year"] = str(parts[0][0])
        for csl, bib in (("DOI", "doi"), ("URL", "url"), ("volume", "volume"), ("issue", "number"),
                         ("page", "pages"), ("publisher", "publisher"), ("publisher-place", "address"),
                         ("ISBN", "isbn"), ("ISSN", "issn"), ("edition", "edition"),
                         ("collection-title", "series"), ("title-short", "shorttitle"),
                         ("language", "language")):  # fmt: skip
            if item.get(csl):
                fields[bib] = str(item[csl])
        for other in set(item) - {"id", "type", "author", "issued", "container-title", "title", "abstract",
                                  "DOI", "URL", "volume", "issue", "page", "publisher", "publisher-place",
                                  "ISBN", "ISSN", "edition", "collection-title", "keyword", "editor",
                                  "title-short", "language"}:  # fmt: skip
            fields[f"csl:{other}"] = json.dumps(item[other], ensure_ascii=False)
        records.append(Record(str(item.get("id", "")), kind, names, fields, editors))
    return records


def _csl_names(people: list[dict[str, str]]) -> list[dict[str, str]]:
    names = []
    for person in people:
        if "literal" in person:
            names.append({"last": person["literal"], "first": "", "von": "", "jr": ""})
        else:
            von = " ".join(person.get(k, "") for k in ("dropping-particle", "non-dropping-particle"))
            names.append(
                {
                    "first": person.get("given", ""),
                    "von": von.strip(),
                    "last": person.get("family", ""),
                    "jr": person.get("suffix", ""),
                }
            )
    return names


def _zotero_names(cell: str) -> list[dict[str, str]]:
    names: list[dict[str, str]] = []
    for name in filter(None, (n.strip() for n in cell.split(";"))):
        family, _, given = name.partition(", ")
        if family.strip():
            names.append({"last": family, "first": given, "von": "", "jr": ""})
        else:  # ", Given" (no family name): the name as written
            names.append({"name": given.strip()})
    return names


def csv_records(path: Path) -> list[Record]:
    raw = path.read_text(encoding="utf-8-sig")
    reader = csv.DictReader(raw.splitlines(keepends=True))
    records = []
    for row in reader:
        row = {k: (v or "").strip() for k, v in row.items()}
        if {"Key", "Author", "Publication Year"} <= set(row):  # Zotero, with or without "Item Type"
            names, editors = _zotero_names(row.get("Author", "")), _zotero_names(row.get("Editor", ""))
            kind = ZOTERO_CSV_TYPES.get(row["Item Type"], "misc") if row.get("Item Type") else None
            venue_field = {"article": "journal", "inproceedings": "booktitle", "incollection": "booktitle"}
            venue = venue_field.get(kind or "", "institution" if kind == "techreport" else "howpublished")
            venue = venue if kind else "venue"  # no item type: the digest guesses it from the venue
            fields = {
                "title": row.get("Title", ""),
                venue: row.get("Publication Title", "") or row.get("Conference Name", ""),
                "year": row.get("Publication Year", ""),
                "doi": row.get("DOI", ""),
                "url": row.get("Url", ""),
                "volume": row.get("Volume", ""),
                "number": row.get("Issue", ""),
                "pages": row.get("Pages", ""),
                "publisher": row.get("Publisher", ""),
                "address": row.get("Place", ""),
                "isbn": row.get("ISBN", ""),
                "issn": row.get("ISSN", ""),
            }
            key = row.get("Key", "")
        else:
            editors = []  # Mini-Conf and other plain tables: names given whole, no item type
            names = [{"name": n.strip()} for n in row.get("authors", "").split("|") if n.strip()]
            kind = None
            links = (row.get(column, "") for column in ("url", "link", "href", "pdf_url", "pdf"))
            link = next((value for value in links if re.match(r"https?://", value)), "")
            fields = {"title": row.get("title", ""), "url": link}
            key = row.get("UID", "") or row.get("id", "")
        records.append(Record(key, kind, names, {k: v for k, v in fields.items() if v}, editors))
    return records


def arxiv_records(path: Path) -> list[Record]:
    atom, arxiv = "{http://www.w3.org/2005/Atom}", "{http://arxiv.org/schemas/atom}"
    records = []
    for entry in ElementTree.parse(path).getroot().findall(f"{atom}entry"):
        raw_id = entry.findtext(f"{atom}id", "")
        arxiv_id = re.sub(r"v\d+$", "", re.sub(r"^https?://arxiv\.org/abs/", "", raw_id.strip()))
        names = [
            {"name": " ".join(a.findtext(f"{atom}name", "").split())} for a in entry.findall(f"{atom}author")
        ]
        category = entry.find(f"{arxiv}primary_category")
        link = next(
            (x.get("href") for x in entry.findall(f"{atom}link") if x.get("rel") == "alternate"), raw_id
        )
        fields = {
            "title": " ".join(entry.findtext(f"{atom}title", "").split()),
            "year": entry.findtext(f"{atom}published", "")[:4],
            "eprint": arxiv_id,
            "archiveprefix": "arXiv",
            "primaryclass": category.get("term", "") if category is not None else "",
            "url": link or "",
            "doi": entry.findtext(f"{arxiv}doi", "") or "",
            "arxiv:journal_ref": entry.findtext(f"{arxiv}journal_ref", "") or "",
            "arxiv:comment": entry.findtext(f"{arxiv}comment", "") or "",
        }
        records.append(Record(arxiv_id, "misc", names, {k: v for k, v in fields.items() if v}))
    return records


def reference_records(path: Path) -> tuple[str, list[Record]]:
    suffix = path.suffix.lower()
    if suffix == ".bib":
        return "BibTeX", bibtex_records(path)
    if suffix == ".csv":
        return "CSV", csv_records(path)
    if suffix in (".xml", ".atom"):
        return "arXiv", arxiv_records(path)
    if suffix == ".json":
        return "CSL-JSON", csl_records(path)
    raise ValueError(f"{path}: no reference reader for {suffix}")


# --- the digest's outputs, read back by the reference parser ------------------------------------


STAND_IN_ABSTRACT = (
    "A stand-in abstract for {key}: the export gives none, and the digest reads only papers with one."
)


def digest_papers(path: Path, folder: Path) -> tuple[list[Paper], int]:
    """The papers the digest reads from the file, and how many records got a stand-in abstract:
    exports without abstracts (DBLP, Google Scholar, IEEE Xplore's; CSL-JSON items) get one written
    into a copy in ``folder`` (after a BibTeX entry's key), so that the digest reads them; nothing else
    in the copy changes."""
    stand_ins = 0
    if path.suffix.lower() == ".bib":
        raw = path.read_text(encoding="utf-8-sig")
        without = {entry.key for entry in bibtexparser.parse_string(raw).entries if "abstract" not in
                   {f.key.lower() for f in entry.fields}}  # fmt: skip
        if without:

            def add(match: re.Match[str]) -> str:
                nonlocal stand_ins
                if match.group(2) not in without:
                    return match.group()
                stand_ins += 1
                return f"{match.group()}\n  abstract = {{{STAND_IN_ABSTRACT.format(key=match.group(2))}}},"

            header = re.compile(r"(@(?!string|comment|preamble)\w+\s*[{(]\s*)([^,\s]+)\s*,", re.I)
            path = folder / path.name
            path.write_text(header.sub(add, raw), encoding="utf-8")
    elif path.suffix.lower() == ".json":
        items = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(items, list) and any(isinstance(i, dict) and not i.get("abstract") for i in items):
            for index, item in enumerate(items):
                if isinstance(item, dict) and "content" not in item and not item.get("abstract"):
                    item["abstract"] = STAND_IN_ABSTRACT.format(key=item.get("id", index))
                    stand_ins += 1
            path = folder / path.name
            path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return list(read_collection([path], options=ReadOptions(keep_going=True)).papers), stand_ins


def titled(paper: Paper) -> TitledPaper:
    """The paper as the site shows it; a paper without a title gets a stand-in derived title (the
    title model is not needed: only whether the title was derived matters to the citation)."""
    if paper.title:
        return TitledPaper(paper, paper.title, False, paper.id)
    return TitledPaper(paper, "A derived title", True, paper.id)


def output_fields(entry_text: str) -> tuple[str, list[dict[str, str]], dict[str, str], list[dict[str, str]]]:
    library = bibtexparser.parse_string(entry_text)
    if library.failed_blocks or len(library.entries) != 1:
        raise AssertionError(f"the digest wrote an entry bibtexparser cannot read:\n{entry_text}")
    return bibtex_records_from(library.entries[0])


def bibtex_records_from(entry) -> tuple[str, list[dict[str, str]], dict[str, str], list[dict[str, str]]]:  # type: ignore[no-untyped-def]
    """An entry's type, author names in parts, fields as Unicode, and editor names in parts."""
    values = {item.key.lower(): str(item.value) for item in entry.fields}
    names = [_parts(name) for name in split_multiple_persons_names(values.pop("author", ""))]
    editors = [_parts(name) for name in split_multiple_persons_names(values.get("editor", ""))]
    fields = {k: url_text(v) if k in ("url", "doi") else text(v) for k, v in values.items()}
    return entry.entry_type.lower(), names, fields, editors


def _whole(name: dict[str, str]) -> str:
    return " ".join(p for p in (name.get("first"), name.get("von"), name.get("last"), name.get("jr")) if p)


def _parts(name: str) -> dict[str, str]:
    parts = parse_single_name_into_parts(name, strict=False)
    return {k: text(" ".join(getattr(parts, k))) for k in ("first", "von", "last", "jr")}


def _compare_names(
    tally: Tally, where: str, role: str, source: list[dict[str, str]], output: list[dict[str, str]]
) -> None:
    for index, name in enumerate(source):
        got = output[index] if index < len(output) else {}
        if "name" in name:
            tally.compare(where, f"{role} (whole name)", name["name"], _whole(got) if got else None)
            continue
        for part in ("first", "von", "last", "jr"):
            if name.get(part):
                tally.compare(where, f"{role} {part}", name[part], got.get(part) or None)
            elif got.get(part):  # a part the output has and the source does not: a different split
                tally.compare(where, f"{role} {part}", "(none)", got[part])
    if len(output) > len(source):
        tally.compare(where, f"{role} count", str(len(source)), str(len(output)))


def compare_entry(tally: Tally, where: str, record: Record, entry_text: str) -> None:
    kind, names, fields, editors = output_fields(entry_text)
    tally.compare(where, "entry type", record.entry_type, kind)
    _compare_names(tally, where, "author", record.names, names)
    if record.editors:
        _compare_names(tally, where, "editor", record.editors, editors)
    for name, value in record.fields.items():
        if name == "venue":  # the source names no field for it: whichever the entry type calls for
            venues = ("journal", "booktitle", "howpublished", "institution", "school")
            tally.compare(where, name, value, next((fields[v] for v in venues if v in fields), None))
        elif name not in NOT_CITED:
            tally.compare(where, name, value, fields.get(name))
    if "title" not in record.fields and "title" in fields:
        tally.compare(where, "title (none in the source)", "(none)", fields["title"])


SCHOLAR = {
    "title": "citation_title",
    "journal": "citation_journal_title",
    "booktitle": "citation_conference_title",
    "year": "citation_publication_date",
    "doi": "citation_doi",
    "volume": "citation_volume",
    "publisher": "citation_publisher",
}


def compare_scholar(tally: Tally, where: str, record: Record, paper: Paper, entry: TitledPaper) -> None:
    tags = citation_meta(AnalysedPaper(entry=entry))
    values = {name: value for name, value in tags}
    if record.entry_type in ("incollection", "inbook"):
        values["citation_conference_title"] = values.get("citation_inbook_title", "")
    authors = [value for name, value in tags if name == "citation_author"]
    # "and others" (et al.) is no author to Scholar.
    people = [name for name in record.names if _whole(name) != "others" and name.get("name") != "others"]
    tally.compare(where, "citation_author count", str(len(people)), str(len(authors)))
    for index, name in enumerate(people):
        whole = name.get("name") or _whole(name)
        tally.compare(where, "citation_author", whole, authors[index] if index < len(authors) else None)
    for name, tag in SCHOLAR.items():
        source = record.fields.get(name)
        if tag == "citation_title" and source and _MATH.search(source):
            # Scholar's tags are plain text: the digest writes TeX math as Unicode ("λ-calculi").
            tally.not_carried[f"{tag} (TeX math written as Unicode)"] += 1
            continue
        tally.compare(where, tag, source, values.get(tag))
    if "title" not in record.fields and "citation_title" in values:
        tally.compare(where, "citation_title (none in the source)", "(none)", values["citation_title"])


def round_trip(path: Path) -> tuple[str, dict[str, Tally], int, int]:
    """The tallies of one file per output ("page BibTeX", "papers.bib", "Scholar tags"), how many of
    its papers the digest read, and how many of those had a stand-in abstract (``digest_papers``)."""
    fmt, records = reference_records(path)
    with tempfile.TemporaryDirectory() as folder:
        papers, stand_ins = digest_papers(path, Path(folder))
    by_key = {paper.id: paper for paper in papers}
    tallies = {name: Tally() for name in ("page BibTeX", "papers.bib", "Scholar tags")}
    for record in records:
        paper = by_key.get(record.key)
        if paper is None:
            continue  # no abstract: the digest has no page for it (its readers warn and count them)
        entry = titled(paper)
        where = f"{path.name}:{record.key}"
        compare_entry(tallies["page BibTeX"], where, record, bibtex_entry(entry))
        compare_entry(tallies["papers.bib"], where, record, bibtex_entry(entry, url="https://d.example/p/"))
        compare_scholar(tallies["Scholar tags"], where, record, paper, entry)
    return fmt, tallies, len(papers), stand_ins


def default_files() -> list[Path]:
    folders = [SAMPLES]
    if os.environ.get(EXPORTS_VARIABLE):
        folders.append(Path(os.environ[EXPORTS_VARIABLE]))
    return files_in(folders)


def files_in(paths: Iterable[Path]) -> list[Path]:
    found = []
    for path in paths:
        if path.is_dir():
            found += sorted(
                p for p in path.rglob("*") if p.suffix.lower() in (".bib", ".csv", ".json", ".xml")
            )
        elif path.is_file():
            found.append(path)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--show", type=int, default=5)
    args = parser.parse_args()
    files = files_in(args.paths) if args.paths else default_files()
    print("| file | format | papers | output | fields compared | equal | differ | not carried (count) |")
    print("|---|---|---|---|---|---|---|---|")
    shown = 0
    for path in files:
        fmt, tallies, count, stand_ins = round_trip(path)
        if stand_ins:
            count = f"{count} ({stand_ins} stand-in abstracts)"
        for output, tally in tallies.items():
            missing = ", ".join(f"{name} ({n})" for name, n in sorted(tally.not_carried.items())) or "—"
            differ = tally.compared - tally.equal
            cells = [path.name, fmt, count, output, tally.compared, tally.equal, differ, missing]
            print("| " + " | ".join(map(str, cells)) + " |")
            for difference in tally.differences[: max(0, args.show - shown)]:
                print(f"    {output}: {difference}", file=sys.stderr)
                shown += 1


if __name__ == "__main__":
    main()

"""Sources: takes input files and folders; gives one Collection of Paper records (a reader per format).

``read_collection`` takes files and folders of any supported kind, reads them all
before anything is written, and merges them into one ``Collection``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from generator.errors import DigestError, InputError
from generator.model import Collection, Paper
from generator.progress import plural
from generator.sources import arxiv, bibtex, json_file, jsonl, plaintext, table
from generator.sources.base import (
    DEFAULT_OPTIONS,
    PAPER_FIELDS,
    SKIPPED_NAMES_SHOWN,
    FileContents,
    ReadOptions,
    UnreadRecords,
    paper_id_from_abstract,
)

__all__ = ["PAPER_FIELDS", "FileContents", "ReadOptions", "paper_id_from_abstract", "read_collection"]

Reader = Callable[[Path, ReadOptions], FileContents]

READERS: dict[str, Reader] = {
    ".txt": plaintext.read,
    ".jsonl": jsonl.read,
    ".csv": table.read,
    ".tsv": table.read,
    ".bib": bibtex.read,
    ".json": json_file.read,
    ".xml": arxiv.read,
    ".atom": arxiv.read,
}
"""Input formats by file suffix."""
UNKNOWN_FILES_SHOWN = 10

DEFAULT_COLLECTION_NAME = "Paper Digest"
MAX_ABSTRACT_CHARACTERS = 20_000
"""Ten times the longest abstract in three real conferences: longer means a broken file."""
MIN_ABSTRACT_WORDS = 10


def expand_inputs(paths: Sequence[Path]) -> tuple[list[Path], list[str]]:
    """Files named directly, plus every supported file inside named folders (sorted, not recursive),
    and one warning per folder naming what in it was not read."""
    files: list[Path] = []
    warnings: list[str] = []
    for path in paths:
        if path.is_dir():
            entries = sorted(path.iterdir())
            found = [p for p in entries if p.is_file() and p.suffix.lower() in READERS]
            others = [
                p.name + ("/" if p.is_dir() else "") for p in entries if p not in found and not _unlisted(p)
            ]
            if not found:
                listing = f"; it holds {_listing(others)}" if others else ""
                raise InputError(
                    path, None, f"folder holds no input files ({', '.join(sorted(READERS))}){listing}"
                )
            if others:
                warnings.append(
                    f"{path}: {plural(len(others), 'item')} not read "
                    f"(not {', '.join(sorted(READERS))}; folders are not searched): {_listing(others)}"
                )
            files.extend(found)
        elif path.is_file():
            if path.suffix.lower() not in READERS:
                raise InputError(
                    path,
                    None,
                    f"unknown input format {path.suffix or '(no suffix)'!r}; "
                    f"use {' or '.join(sorted(READERS))}",
                )
            files.append(path)
        elif path.exists():
            raise InputError(path, None, "not a regular file or folder")
        else:
            raise InputError(path, None, "no such file or folder")
    return files, warnings


def _unlisted(path: Path) -> bool:
    """Hidden files (``.gitkeep``, ``.DS_Store``) and the folder's own README.md (``paper-digest new``
    writes one into abstracts/): not inputs, and not worth a warning at every build."""
    return path.name.startswith(".") or path.name.lower() == "readme.md"


def _listing(names: Sequence[str]) -> str:
    shown = ", ".join(names[:UNKNOWN_FILES_SHOWN])
    return shown + (
        f" and {len(names) - UNKNOWN_FILES_SHOWN} more" if len(names) > UNKNOWN_FILES_SHOWN else ""
    )


def _dedupe_key(abstract: str) -> str:
    return re.sub(r"\W+", " ", abstract).strip().lower()


def read_collection(
    paths: Sequence[Path],
    name: str | None = None,
    options: ReadOptions = DEFAULT_OPTIONS,
    fallback_name: str = DEFAULT_COLLECTION_NAME,
) -> Collection:
    """Read every input, check it as a whole, and return the papers in input order.

    The digest's name is ``name`` (``--name``, else the ``site_name`` the digest's mkdocs.yml sets),
    else the one the input files declare, else the papers' common venue, else ``fallback_name``.

    Raises ``InputError`` for anything malformed; nothing is written before this returns. With
    ``options.keep_going``, a record or file that cannot be read is passed over instead and named in
    the collection's ``skipped``.
    """
    files, read_warnings = expand_inputs(paths)
    declared: dict[str, Path] = {}
    papers: list[Paper] = []
    unread = UnreadRecords(options.keep_going)
    for file in files:
        try:
            contents = READERS[file.suffix.lower()](file, options)
        except InputError as error:  # the file as a whole: not UTF-8, no abstract column …
            unread.note(error)
            continue
        if contents.collection_name is not None:
            declared.setdefault(contents.collection_name, file)
        papers.extend(contents.papers)
        read_warnings.extend(contents.warnings)
        unread.skipped.extend(contents.skipped)
    if len(declared) > 1 and name is None:
        listing = "; ".join(f"{path} says {title!r}" for title, path in declared.items())
        raise DigestError(
            f"input files name different collections ({listing}); "
            "build them as separate digests or pass --name to set one name"
        )
    unique, warnings = _drop_duplicates(papers)
    warnings = read_warnings + warnings
    unique, length_warnings = _check_lengths(unique, unread)
    warnings.extend(length_warnings)
    unique = _check_unique_ids(unique, unread)
    if not unique:
        skipped = "".join(f"\n  {error}" for error in unread.skipped)
        raise DigestError(
            f"no abstracts found in {', '.join(str(f) for f in files)}"
            + (f"; {plural(len(unread.skipped), 'record')} could not be read:{skipped}" if skipped else "")
        )
    collection_name = name or next(iter(declared), None) or _name_from_papers(unique) or fallback_name
    return Collection(
        name=collection_name,
        papers=tuple(unique),
        warnings=tuple(warnings),
        skipped=tuple(str(error) for error in unread.skipped),
    )


def _details(paper: Paper) -> int:
    """How much a copy of a paper says beside its abstract."""
    given = (
        paper.title,
        paper.authors,
        paper.url,
        paper.venue,
        paper.year,
        paper.author_keywords,
        paper.track,
    )
    return sum(1 for value in given if value)


def _drop_duplicates(papers: Iterable[Paper]) -> tuple[list[Paper], list[str]]:
    """The papers less extra copies of an abstract, and one warning for all the copies: a file
    exported twice would otherwise give a warning per paper, burying every other message.

    Of the copies, the one that says most (title, authors, link, venue, year, keywords, track) is
    kept, the first in input order among equals, at the place of the first: the same abstracts as a
    bare ``.txt`` beside a reference manager's export keep the export's details."""
    copies_of: dict[str, list[Paper]] = {}
    for paper in papers:
        copies_of.setdefault(_dedupe_key(paper.abstract), []).append(paper)
    unique: list[Paper] = []
    dropped: list[str] = []
    for copies in copies_of.values():
        kept = max(copies, key=_details)  # max keeps the first of equals
        unique.append(kept)
        dropped += [f"{copy.source} (same as {kept.source})" for copy in copies if copy is not kept]
    if not dropped:
        return unique, []
    shown = ", ".join(dropped[:SKIPPED_NAMES_SHOWN])
    more = f" and {len(dropped) - SKIPPED_NAMES_SHOWN} more" if len(dropped) > SKIPPED_NAMES_SHOWN else ""
    warning = (
        f"{plural(len(dropped), 'paper')} left out as duplicates (the same abstract as another paper; "
        f"the copy with the most details is kept, else the first in input order): {shown}{more}"
    )
    return unique, [warning]


def _check_lengths(papers: Iterable[Paper], unread: UnreadRecords) -> tuple[list[Paper], list[str]]:
    """The papers less those whose abstract is too long to be one, and a warning for each very short
    one."""
    kept: list[Paper] = []
    warnings = []
    for paper in papers:
        if len(paper.abstract) > MAX_ABSTRACT_CHARACTERS:
            # what runs abstracts together: a lost blank line in plain text, a quote left open in a table
            reader = READERS.get(paper.source.path.suffix.lower())
            cause = (
                "is a blank line missing between abstracts, or is this not an abstract file?"
                if reader is plaintext.read
                else "is a quote left open before it?"
                if reader is table.read
                else "is this field not an abstract?"
            )
            unread.note(
                InputError(
                    paper.source.path,
                    paper.source.line,
                    f"abstract is {len(paper.abstract):,} characters long "
                    f"(the limit is {MAX_ABSTRACT_CHARACTERS:,}); {cause}",
                )
            )
            continue
        kept.append(paper)
        words = len(paper.abstract.split())
        if words < MIN_ABSTRACT_WORDS:
            warnings.append(
                f"{paper.source}: abstract has only {plural(words, 'word')}; "
                "its keywords and related papers will be weak"
            )
    return kept, warnings


def _check_unique_ids(papers: Iterable[Paper], unread: UnreadRecords) -> list[Paper]:
    """The papers less any whose id an earlier one has."""
    seen: dict[str, Paper] = {}
    for paper in papers:
        if paper.id in seen:
            unread.note(
                InputError(
                    paper.source.path,
                    paper.source.line,
                    f"id {paper.id!r} is already used by {seen[paper.id].source}; ids must be unique",
                )
            )
            continue
        seen[paper.id] = paper
    return list(seen.values())


def _name_from_papers(papers: Sequence[Paper]) -> str | None:
    venues = {(p.venue, p.year) for p in papers}
    if len(venues) == 1:
        venue, year = next(iter(venues))
        if venue:
            # "ICML 2024" with the year 2024 is "ICML 2024 Papers", not "ICML 2024 2024 Papers".
            return f"{venue} {year} Papers" if year and str(year) not in venue else f"{venue} Papers"
    return None

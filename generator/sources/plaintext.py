"""The bundled format: a UTF-8 text file whose first line names the collection, then
abstracts separated by blank lines. Lines of one abstract that are not separated by a
blank line belong to the same abstract.

A ``.txt`` file whose first line is a tab-separated header with an abstract column (EndNote's
"Tab Delimited" export) is read as the table it is."""

from __future__ import annotations

from pathlib import Path

from generator.errors import InputError
from generator.model import Paper, SourceLocation
from generator.sources import table
from generator.sources.base import (
    DEFAULT_OPTIONS,
    FileContents,
    ReadOptions,
    paper_id_from_abstract,
    read_text,
)

MAX_HEADER_LENGTH = 200


def read(path: Path, options: ReadOptions = DEFAULT_OPTIONS) -> FileContents:
    lines = read_text(path).split("\n")
    if "\t" in lines[0] and table.names_an_abstract_column(lines[0].split("\t")):
        # EndNote saves its "Tab Delimited" export as .txt: a table, not a collection name and abstracts.
        return table.read(path, options)
    blocks = _blocks(lines)
    if not blocks:
        raise InputError(
            path, None, "file is empty; expected a collection name on the first line, then abstracts"
        )
    header_line, header_lines = blocks[0]
    header = header_lines[0].strip()
    if len(header_lines) > 1 or len(header) > MAX_HEADER_LENGTH:
        raise InputError(
            path,
            header_line,
            "the first line must name the collection (for example 'ICML 2024 Papers'), "
            "followed by a blank line; this looks like an abstract instead",
        )
    papers = []
    for line_number, block in blocks[1:]:
        abstract = "\n".join(line.strip() for line in block)
        papers.append(
            Paper(
                id=paper_id_from_abstract(abstract),
                abstract=abstract,
                source=SourceLocation(path, line_number),
            )
        )
    if not papers:
        raise InputError(path, header_line, f"has the collection name {header!r} but no abstracts after it")
    return FileContents(collection_name=header, papers=papers)


def _blocks(lines: list[str]) -> list[tuple[int, list[str]]]:
    """Runs of non-blank lines, each with the 1-based number of its first line."""
    blocks: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(lines, start=1):
        if line.strip():
            if not current:
                start = number
            current.append(line)
        elif current:
            blocks.append((start, current))
            current = []
    if current:
        blocks.append((start, current))
    return blocks

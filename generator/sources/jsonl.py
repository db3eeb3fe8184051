"""JSON Lines: one paper per line. ``abstract`` is required; ``id, title, authors, url, doi,
venue, year, keywords`` (the authors'), ``tags`` (the reader's own) are optional; other fields
(``labels``, ``status``, ...) are ignored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.errors import InputError
from generator.model import Paper, SourceLocation
from generator.sources.base import (
    DEFAULT_OPTIONS,
    FileContents,
    ReadOptions,
    UnreadRecords,
    bare_doi,
    json_problem,
    paper_id_from_abstract,
    read_text,
)


def read(path: Path, options: ReadOptions = DEFAULT_OPTIONS) -> FileContents:
    text = read_text(path)
    papers = []
    unread = UnreadRecords(options.keep_going)
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            papers.append(_paper(_record(path, number, line), SourceLocation(path, number)))
        except InputError as error:
            unread.note(error)
    if not papers and not unread.skipped:
        raise InputError(path, None, "file is empty; expected one JSON object per line with an 'abstract'")
    return FileContents(collection_name=None, papers=papers, skipped=unread.skipped)


def _record(path: Path, number: int, line: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise InputError(path, number, f"not valid JSON: {json_problem(error)}") from None
    if not isinstance(record, dict):
        raise InputError(path, number, f"expected a JSON object, found {type(record).__name__}")
    return record


def _paper(record: dict[str, Any], where: SourceLocation) -> Paper:
    def fail(problem: str) -> InputError:
        return InputError(where.path, where.line, problem)

    abstract = record.get("abstract")
    if abstract is None:
        raise fail("missing 'abstract' (a non-empty string is required)")
    if not isinstance(abstract, str) or not abstract.strip():
        found = "an empty string" if isinstance(abstract, str) else type(abstract).__name__
        raise fail(f"'abstract' must be a non-empty string, found {found}")

    raw_id = record.get("id")
    if raw_id is None or raw_id == "":
        paper_id = paper_id_from_abstract(abstract)
    elif isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool):
        paper_id = str(raw_id)
    else:
        raise fail(f"'id' must be a string or an integer, not {type(raw_id).__name__}")

    return Paper(
        id=paper_id,
        abstract=abstract.strip(),
        source=where,
        title=_optional_text(record, "title", fail),
        authors=_text_list(record, "authors", fail),
        url=_optional_text(record, "url", fail),
        doi=bare_doi(_optional_text(record, "doi", fail)),
        venue=_optional_text(record, "venue", fail),
        year=_optional_year(record, fail),
        author_keywords=_text_list(record, "keywords", fail),
        tags=_text_list(record, "tags", fail),
    )


def _optional_text(record: dict[str, Any], key: str, fail: Any) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise fail(f"{key!r} must be a string, not {type(value).__name__}")
    value = " ".join(value.split())
    return value or None


def _text_list(record: dict[str, Any], key: str, fail: Any) -> tuple[str, ...]:
    value = record.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise fail(f"{key!r} must be a list of strings")
    return tuple(cleaned for item in value if (cleaned := " ".join(item.split())))


def _optional_year(record: dict[str, Any], fail: Any) -> int | None:
    value = record.get("year")
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise fail(f"'year' must be a number, not {value!r}")

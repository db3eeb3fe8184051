"""A ``.json`` file: OpenReview notes or CSL-JSON items, told apart by their shape.

A list whose objects have a ``content`` object is OpenReview's (as is ``{"notes": […]}``); a list of
objects with CSL's fields (``type``, ``title``, ``author`` …) and no ``content`` is CSL-JSON. The
first object decides; every item must then be of that kind.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from generator.errors import InputError
from generator.sources import csl_json, openreview
from generator.sources.base import (
    DEFAULT_OPTIONS,
    FileContents,
    ReadOptions,
    UnreadRecords,
    json_document,
    json_type,
    plural_json_type,
    read_text,
)

EXPECTED = (
    "expected a list of OpenReview notes (objects with a 'content' object, as openreview-py saves them) "
    "or of CSL-JSON items (objects with 'type', 'title', 'author' …, as Zotero exports them)"
)


def read(path: Path, options: ReadOptions = DEFAULT_OPTIONS) -> FileContents:
    text = read_text(path)
    if not text.strip():
        raise InputError(path, None, f"file is empty; {EXPECTED}")
    document, lines = json_document(path, text)
    if isinstance(document, dict) and isinstance(document.get("notes"), list):
        document, lines = document["notes"], _lines_of_notes(path, text, document["notes"])
    if not isinstance(document, list):
        keys = f" with keys {', '.join(map(repr, list(document)[:5]))}" if isinstance(document, dict) else ""
        raise InputError(path, None, f"JSON holding {json_type(document)}{keys}; {EXPECTED}")
    if not document:
        raise InputError(path, None, f"JSON holding an empty list; {EXPECTED}")
    first = next((item for item in document if isinstance(item, dict)), None)
    unread = UnreadRecords(options.keep_going)
    if openreview.looks_like_note(first):
        papers, warnings = openreview.papers_from_notes(path, document, lines, unread)
        kind = "OpenReview notes"
    elif csl_json.looks_like_item(first):
        papers, warnings = csl_json.papers_from_items(path, document, lines, unread)
        kind = "CSL-JSON items"
    else:
        found = json_type(first) if first is not None else plural_json_type(document[0])
        keys = f" with keys {', '.join(map(repr, list(first)[:5]))}" if isinstance(first, dict) else ""
        raise InputError(path, lines[0] if lines else None, f"a JSON list of {found}{keys}; {EXPECTED}")
    if not papers and not unread.skipped:
        raise InputError(path, None, f"none of its {len(document)} {kind} has an abstract")
    return FileContents(collection_name=None, papers=papers, warnings=warnings, skipped=unread.skipped)


def _lines_of_notes(path: Path, text: str, notes: list[Any]) -> list[int] | None:
    """Where each note of ``{"notes": […]}`` starts: the array after the first ``"notes":`` read
    again on its own, trusted only if it is the same list."""
    found = re.search(r'"notes"\s*:\s*\[', text)
    if found is None:
        return None
    start = found.end() - 1
    try:
        _, end = json.JSONDecoder().raw_decode(text, start)
        decoded, lines = json_document(path, text[start:end])
    except (json.JSONDecodeError, InputError):
        return None
    if decoded != notes or lines is None:
        return None
    offset = text.count("\n", 0, start)
    return [line + offset for line in lines]

"""What every reader shares: decoding files, the record a reader returns, ids for papers without one."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from generator.errors import InputError
from generator.model import Paper


@dataclass(frozen=True)
class FileContents:
    """What one reader returns: the collection name the file declares, if any, and its papers."""

    collection_name: str | None
    papers: list[Paper]


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

"""Each abstract's keyphrase candidates, kept in the cache database by content, so a rebuild
extracts only the abstracts that are new or edited (extracting all of ICML 2024 takes about 3.5 s).

A row is used only when it was written by the same code (``generator.source_fingerprint``); one that
does not read back as candidates is extracted again, never trusted. Each build keeps only the rows
of its own abstracts, and writes only the new ones.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from generator import source_fingerprint
from generator.analysis.keyphrases.candidates import Candidate, abstract_candidates
from generator.cache.database import open_cache

KIND = "keyphrase candidates"


class CandidateStore:
    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir
        self.extracted = 0
        """Abstracts extracted by the last ``candidates`` call (the others were stored)."""

    def candidates(
        self, abstracts: Sequence[str], titles: Sequence[str | None]
    ) -> list[dict[str, Candidate]]:
        """``abstract_candidates`` of each abstract (with its given title), from the store when it
        has them; the store is then rewritten to hold exactly these abstracts."""
        code = source_fingerprint()
        keys = [
            hashlib.sha256(f"{abstract}\0{title or ''}".encode()).hexdigest()[:32]
            for abstract, title in zip(abstracts, titles, strict=True)
        ]
        database = open_cache(self.cache_dir)
        stored = database.get_many(KIND, keys, code) if database is not None else {}
        new: dict[str, bytes] = {}
        found: list[dict[str, Candidate]] = []
        self.extracted = 0
        for key, abstract, title in zip(keys, abstracts, titles, strict=True):
            candidates = _decode(_json(stored.get(key)))
            if candidates is None:
                candidates = abstract_candidates(abstract, title)
                rows = [_encode(c) for c in candidates.values()]
                new[key] = json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
                self.extracted += 1
            found.append(candidates)
        if database is not None:
            database.put_many(KIND, new.items(), code, keep_only=keys)
            database.close()
        return found


def _json(data: bytes | None) -> object:
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def _encode(candidate: Candidate) -> list:
    return [
        candidate.key, candidate.form, candidate.count, candidate.first_position,
        candidate.words, candidate.defined_by_acronym, candidate.in_title, candidate.followed_by,
    ]  # fmt: skip


def _decode(rows: object) -> dict[str, Candidate] | None:
    if not isinstance(rows, list):
        return None
    candidates = {}
    for row in rows:
        if not (isinstance(row, list) and len(row) == 8):
            return None
        key, form, count, position, words, acronym, in_title, followed_by = row
        if not (
            isinstance(key, str) and isinstance(form, str) and isinstance(count, int)
            and isinstance(position, int | float) and isinstance(words, int)
            and isinstance(acronym, bool) and isinstance(in_title, bool) and isinstance(followed_by, str)
        ):  # fmt: skip
            return None
        candidates[key] = Candidate(key, form, count, float(position), words, acronym, in_title, followed_by)
    return candidates

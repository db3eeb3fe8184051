"""Each abstract's keyphrase candidates, kept in the cache database by content (``candidate_key``), so a
rebuild extracts only the abstracts that are new or edited (extracting all of ICML 2024, the name
detector's reading included, takes about 12 s).

A row is used only when it was written by the same code (``generator.source_fingerprint``); one that
does not read back as candidates is extracted again, never trusted. Each build keeps only the rows
of its own abstracts, and writes only the new ones.
"""

from __future__ import annotations

import json
import math

from generator import source_fingerprint
from generator.analysis.keyphrases.candidates import Candidate
from generator.analysis.keywords import NewEntries
from generator.cache.database import CacheDatabase, StoredEntries

KIND = "keyphrase candidates"


class CandidateStore:
    def __init__(self, database: CacheDatabase | None) -> None:
        self.database = database

    def known(self) -> StoredEntries[dict[str, Candidate]]:
        """The stored candidates by ``keywords.candidate_key``, read in one query on first use."""
        return StoredEntries(self.database, KIND, source_fingerprint(), _decode_row, prefetch=True)

    def save(self, found: NewEntries[dict[str, Candidate]]) -> None:
        """Store the new candidates and keep only the rows of ``found.keys`` (this build's abstracts)."""
        if self.database is None:
            return
        rows = {
            key: json.dumps(
                [_encode(c) for c in candidates.values()], ensure_ascii=False, separators=(",", ":")
            )
            for key, candidates in found.new.items()
        }
        self.database.put_many(
            KIND,
            [(key, row.encode("utf-8")) for key, row in rows.items()],
            source_fingerprint(),
            keep_only=found.keys,
        )


def _decode_row(data: bytes) -> dict[str, Candidate] | None:
    return _decode(_json(data))


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
        candidate.preceded_by, candidate.heads, candidate.aside, candidate.own_odds,
    ]  # fmt: skip


def _finite_number(value: object) -> bool:
    """A number the code writes (JSON reads NaN and Infinity too, which it never writes)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _decode(rows: object) -> dict[str, Candidate] | None:
    if not isinstance(rows, list):
        return None
    candidates = {}
    for row in rows:
        if not (isinstance(row, list) and len(row) == 12):
            return None
        key, form, count, position, words, acronym, in_title, followed_by, preceded_by, heads, aside, odds = (
            row
        )
        if not (
            isinstance(key, str) and isinstance(form, str) and isinstance(count, int)
            and isinstance(position, int | float) and isinstance(words, int)
            and isinstance(acronym, bool) and isinstance(in_title, bool) and isinstance(followed_by, str)
            and isinstance(preceded_by, str) and isinstance(heads, int) and isinstance(aside, int)
            and (odds is None or _finite_number(odds))
        ):  # fmt: skip
            return None
        candidates[key] = Candidate(
            key,
            form,
            count,
            float(position),
            words,
            acronym,
            in_title,
            followed_by,
            preceded_by,
            heads,
            aside,
            None if odds is None else float(odds),
        )
    return candidates

"""Each abstract's keyphrase candidates, kept on disk by content, so a rebuild extracts only the
abstracts that are new or edited (extracting all of ICML 2024 takes about 3.5 s).

The file is JSON beside the embedding cache. It is used only when it was written by the same code
(``generator.source_fingerprint``); a stored entry that does not read back as candidates is
extracted again, never trusted. Each save keeps only the abstracts of the current build.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from generator import source_fingerprint
from generator.analysis.keyphrases.candidates import Candidate, abstract_candidates
from generator.cache.files import replace_file

CANDIDATES_FILE = "candidates.json"


class CandidateStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.extracted = 0
        """Abstracts extracted by the last ``candidates`` call (the others were stored)."""

    def candidates(
        self, abstracts: Sequence[str], titles: Sequence[str | None]
    ) -> list[dict[str, Candidate]]:
        """``abstract_candidates`` of each abstract (with its given title), from the store when it
        has them; the store is then rewritten to hold exactly these abstracts."""
        code = source_fingerprint()
        stored = self._load(code)
        kept: dict[str, list[list]] = {}
        found: list[dict[str, Candidate]] = []
        self.extracted = 0
        for abstract, title in zip(abstracts, titles, strict=True):
            key = hashlib.sha256(f"{abstract}\0{title or ''}".encode()).hexdigest()[:32]
            rows = stored.get(key)
            candidates = _decode(rows)
            if candidates is None:
                candidates = abstract_candidates(abstract, title)
                rows = [_encode(c) for c in candidates.values()]
                self.extracted += 1
            kept[key] = rows
            found.append(candidates)
        if self.extracted or kept.keys() != stored.keys():
            content = json.dumps({"code": code, "abstracts": kept}, ensure_ascii=False, separators=(",", ":"))
            replace_file(self.path, content.encode("utf-8"))
        return found

    def _load(self, code: str) -> dict:
        try:
            stored = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(stored, dict) or stored.get("code") != code:
            return {}
        abstracts = stored.get("abstracts")
        return abstracts if isinstance(abstracts, dict) else {}


def _encode(candidate: Candidate) -> list:
    return [
        candidate.key, candidate.form, candidate.count, candidate.first_position,
        candidate.words, candidate.defined_by_acronym, candidate.in_title,
    ]  # fmt: skip


def _decode(rows: object) -> dict[str, Candidate] | None:
    if not isinstance(rows, list):
        return None
    candidates = {}
    for row in rows:
        if not (isinstance(row, list) and len(row) == 7):
            return None
        key, form, count, position, words, acronym, in_title = row
        if not (
            isinstance(key, str) and isinstance(form, str) and isinstance(count, int)
            and isinstance(position, int | float) and isinstance(words, int)
            and isinstance(acronym, bool) and isinstance(in_title, bool)
        ):  # fmt: skip
            return None
        candidates[key] = Candidate(key, form, count, float(position), words, acronym, in_title)
    return candidates

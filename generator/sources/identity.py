"""Which paper is which across builds, so a page keeps its address when its abstract is edited.

A paper read without an id gets the hash of its text (``paper_id_from_abstract``), and its page address
is made from that id: alone, a typo fix would move the page. Between the readers and the analysis,
``settle_identities`` matches the papers just read to the ones the digest's address record
(``ADDRESS_RECORD``, committed with the digest) lists from the last build, as git matches renames:

1. a paper with an id of its own (a CSV id column, a JSONL ``id``, an arXiv id) is the recorded paper
   with that id;
2. a paper whose text is exactly a recorded paper's (whitespace aside) is that paper, wherever it now
   is (another file, another position);
3. of the papers left on both sides, a paper whose text overlaps a recorded one's is that one: the
   Jaccard similarity of their word 3-shingles, estimated from MinHash sketches, is at least
   ``SIMILAR`` (or ``SIMILAR_IN_PLACE`` when the paper is still in the same file at the same
   position). Candidates come from locality-sensitive hashing of the sketches, so the cost grows
   with the number of changed papers, not with its square. The best-scoring pairs are taken first.

A matched paper keeps the recorded id and page address; one that brought an id of its own that
differs from the recorded one (its id was changed) gets the address of its new id, and the old address
redirects there. A recorded paper nobody matched was removed: its address is kept in the record as
retired, and the site leaves a page there saying so (``generator.site.redirects``), build after build.
A removed paper that comes back with the same text gets its old id and address back.

``benchmarks/notes/addresses.md`` gives the measurements behind the thresholds.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import zlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from generator.errors import DigestError
from generator.model import Paper
from generator.sources.base import paper_id_from_abstract

ADDRESS_RECORD = "paper-addresses.json"
"""The record's name in the digest folder (beside mkdocs.yml)."""

RECORD_FORMAT = 1

ABOUT = (
    "Written by paper-digest build: each paper's page address, and the addresses of pages that "
    "moved or were removed (their old links lead on). Commit it with the digest, so a clean clone "
    "(CI) gives every paper the address it had; editing an abstract keeps its address."
)

SKETCH_SIZE = 64
"""MinHash values per sketch, one byte each (b-bit MinHash, b = 8)."""
BAND_SIZE = 3
"""Sketch bytes per locality-sensitive-hashing band: two sketches are compared when any band is equal.
Pairs at similarity 0.5 share a band with probability 0.94, unrelated papers (0.02) with 0.0003."""
SHINGLE_WORDS = 3

SIMILAR = 0.5
"""Estimated word-3-shingle Jaccard similarity from which an edited paper is taken for a recorded one."""
SIMILAR_IN_PLACE = 0.25
"""The same, for a paper still at its recorded file and position (a rewrite in place)."""

_CHANCE = 1 / 256
"""How often two different minimum hashes agree in their lowest byte."""
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class KnownPaper:
    """A paper as the address record lists it."""

    id: str
    address: str
    """The page's slug: its page is ``papers/<address>/``."""
    own_id: bool
    """The id came with the paper's input, not from its text."""
    file: str
    """The input file, relative to the digest folder when it is inside it."""
    position: int
    """The paper's place among the papers of its file, from 0."""
    text: str
    """``paper_id_from_abstract`` of its abstract: equal for equal texts."""
    sketch: bytes
    page: PageNote | None = None
    """What its page showed, for the note left at its address if it is removed (``None`` in a record
    written before notes were kept, and before the paper's page is made)."""


@dataclass(frozen=True)
class PageNote:
    """What a paper's page named it by, so a page left at its address can still name it."""

    title: str
    title_was_derived: bool
    """The title was chosen from the abstract, not given: a note says the page was titled so."""
    link: str | None = None
    """The paper's own link (its ``url``) when the input gave one: where a reader can still find it."""


@dataclass(frozen=True)
class RetiredAddress:
    """The address of a page that moved or was removed."""

    address: str
    id: str
    text: str
    successor: str | None
    """The id of the paper the page moved to; ``None`` when the paper was removed."""
    page: PageNote | None = None
    """What the page showed when it was last a paper's page (``None`` in older records)."""


@dataclass(frozen=True)
class AddressRecord:
    papers: tuple[KnownPaper, ...] = ()
    retired: tuple[RetiredAddress, ...] = ()


@dataclass(frozen=True)
class Redirect:
    """An old page address and where it leads: another paper's page, or (``None``) the home page."""

    address: str
    target: str | None
    page: PageNote | None = None
    """What the page showed, when the record knows it."""


@dataclass(frozen=True)
class MatchCounts:
    by_id: int = 0
    by_text: int = 0
    edited: int = 0
    """Matched by overlap: edited since the last build."""
    revived: int = 0
    new: int = 0


@dataclass(frozen=True)
class SettledPapers:
    """The papers with their ids settled, and what the next record needs from this step."""

    papers: tuple[Paper, ...]
    """As read, with the recorded id and (in ``Paper.address``) page address of each matched paper."""
    previous: AddressRecord
    successors: Mapping[str, str | None]
    """Each recorded paper's id and the id of the paper it continues as (``None``: removed)."""
    known: tuple[KnownPaper, ...]
    """Each paper as the next record lists it, its address still empty where the analysis settles it."""
    counts: MatchCounts = field(default_factory=MatchCounts)


def settle_identities(papers: Sequence[Paper], previous: AddressRecord, root: Path) -> SettledPapers:
    """Match ``papers`` (as read) to ``previous`` and give matched ones their recorded id and address."""
    texts = [paper_id_from_abstract(paper.abstract) for paper in papers]
    places = _places(papers, root)
    own = [paper.id != text for paper, text in zip(papers, texts, strict=True)]
    matched = _exact_matches(papers, texts, own, previous.papers)
    """Paper index -> index in ``previous.papers``."""
    counted_by_id = sum(
        1 for index, old in matched.items() if own[index] and papers[index].id == previous.papers[old].id
    )
    counted_by_text = len(matched) - counted_by_id
    taken = set(matched.values())

    # A recorded sketch serves a paper whose text is the recorded one; the others are sketched now.
    sketches = {
        i: previous.papers[old].sketch for i, old in matched.items() if previous.papers[old].text == texts[i]
    }
    fresh = [index for index in range(len(papers)) if index not in sketches]
    sketches.update(zip(fresh, sketch_texts([papers[i].abstract for i in fresh]), strict=True))
    unmatched = [index for index in range(len(papers)) if index not in matched]
    left = [old for old in range(len(previous.papers)) if old not in taken]
    for index, old in _overlap_matches(unmatched, left, sketches, places, previous.papers):
        matched[index] = old
        taken.add(old)
    edited = len(matched) - counted_by_id - counted_by_text

    retired = {r.text: r for r in previous.retired if r.successor is None}
    revived: dict[int, RetiredAddress] = {}
    for index, text in enumerate(texts):
        if (
            index not in matched
            and text in retired
            and (not own[index] or papers[index].id == retired[text].id)
        ):
            revived[index] = retired.pop(text)

    settled: list[Paper] = []
    known: list[KnownPaper] = []
    successors: dict[str, str | None] = {k.id: None for k in previous.papers}
    used_ids = (
        {papers[i].id for i in range(len(papers)) if own[i]}
        | {previous.papers[old].id for i, old in matched.items() if not own[i]}
        | {r.id for r in revived.values()}
    )
    for index, paper in enumerate(papers):
        paper_id, address = paper.id, None
        if index in matched:
            old = previous.papers[matched[index]]
            successors[old.id] = paper_id if own[index] else old.id
            if not own[index] or paper.id == old.id:
                paper_id, address = old.id, old.address
        elif index in revived:
            paper_id, address = revived[index].id, revived[index].address
        elif not own[index]:
            paper_id = _free_id(paper_id, paper.abstract, used_ids)
        used_ids.add(paper_id)
        settled.append(_identified(paper, paper_id, address))
        file, position = places[index]
        known.append(
            KnownPaper(paper_id, address or "", own[index], file, position, texts[index], sketches[index])
        )
    counts = MatchCounts(
        by_id=counted_by_id,
        by_text=counted_by_text,
        edited=edited,
        revived=len(revived),
        new=len(papers) - len(matched) - len(revived),
    )
    return SettledPapers(tuple(settled), previous, successors, tuple(known), counts)


def _exact_matches(
    papers: Sequence[Paper], texts: Sequence[str], own: Sequence[bool], recorded: Sequence[KnownPaper]
) -> dict[int, int]:
    """Papers that are recorded ones by their own id, then (of the rest) by their exact text: paper
    index -> recorded index."""
    matched: dict[int, int] = {}
    by_id = {known.id: old for old, known in enumerate(recorded)}
    for index, paper in enumerate(papers):
        if own[index] and paper.id in by_id:
            matched[index] = by_id[paper.id]
    taken = set(matched.values())
    by_text: dict[str, int] = {}
    for old, known in enumerate(recorded):
        if old not in taken:
            by_text.setdefault(known.text, old)
    for index, text in enumerate(texts):
        old = by_text.get(text)
        if index not in matched and old is not None and old not in taken:
            matched[index] = old
            taken.add(old)
    return matched


def _identified(paper: Paper, paper_id: str, address: str | None) -> Paper:
    """``replace(paper, id=paper_id, address=address)`` without running ``__init__`` again, which
    cost a second at 50,000 papers (every field is kept as it is, and none is derived from these)."""
    if paper.id == paper_id and paper.address == address:
        return paper
    copied = copy.copy(paper)
    object.__setattr__(copied, "id", paper_id)
    object.__setattr__(copied, "address", address)
    return copied


def _free_id(paper_id: str, abstract: str, used: set[str]) -> str:
    """A text-derived id no matched paper already holds (a kept id is the hash of an older text, which
    another paper may have now)."""
    salt = 1
    while paper_id in used:
        salt += 1
        paper_id = paper_id_from_abstract(f"{abstract}\n{salt}")
    return paper_id


def _places(papers: Sequence[Paper], root: Path) -> list[tuple[str, int]]:
    """Each paper's file (relative to the digest folder when inside it, so a clone elsewhere has the
    same names) and its place among that file's papers."""
    counts: dict[Path, int] = defaultdict(int)
    names: dict[Path, str] = {}
    places = []
    for paper in papers:
        path = paper.source.path
        if path not in names:
            try:
                names[path] = path.absolute().relative_to(root.absolute()).as_posix()
            except ValueError:
                names[path] = path.absolute().as_posix()
        places.append((names[path], counts[path]))
        counts[path] += 1
    return places


def _overlap_matches(
    unmatched: Sequence[int],
    left: Sequence[int],
    sketches: Mapping[int, bytes],
    places: Sequence[tuple[str, int]],
    recorded: Sequence[KnownPaper],
) -> list[tuple[int, int]]:
    """Pairs (paper, recorded paper) of similar texts, best first, each side used once."""
    if not unmatched or not left:
        return []
    bands: dict[bytes, list[int]] = defaultdict(list)
    at_place = {}
    for old in left:
        for key in _band_keys(recorded[old].sketch):
            bands[key].append(old)
        at_place[(recorded[old].file, recorded[old].position)] = old
    scored = []
    for index in unmatched:
        sketch = np.frombuffer(sketches[index], dtype=np.uint8)
        candidates = {old for key in _band_keys(sketches[index]) for old in bands.get(key, ())}
        in_place = at_place.get(places[index])
        if in_place is not None:
            candidates.add(in_place)
        for old in sorted(candidates):
            score = similarity(sketch, np.frombuffer(recorded[old].sketch, dtype=np.uint8))
            if score >= (SIMILAR_IN_PLACE if old == in_place else SIMILAR):
                scored.append((-score, index, old))
    pairs = []
    done_new: set[int] = set()
    done_old: set[int] = set()
    for _, index, old in sorted(scored):
        if index not in done_new and old not in done_old:
            pairs.append((index, old))
            done_new.add(index)
            done_old.add(old)
    return pairs


def _band_keys(sketch: bytes) -> Iterable[bytes]:
    for band in range(SKETCH_SIZE // BAND_SIZE):
        yield bytes([band]) + sketch[band * BAND_SIZE : (band + 1) * BAND_SIZE]


def similarity(first: np.ndarray, second: np.ndarray) -> float:
    """The Jaccard similarity of two texts' shingles, estimated from their sketches (agreeing bytes,
    less those that agree by chance)."""
    agree = float(np.mean(first == second))
    return max(0.0, (agree - _CHANCE) / (1 - _CHANCE))


# --- sketches -------------------------------------------------------------------------------------

_BATCH_WORDS = 200_000
"""Words sketched at once: the batch's hash table is 64 × 4 bytes a word (51 MB)."""


def sketch_texts(texts: Sequence[str]) -> list[bytes]:
    """Each text's b-bit MinHash sketch over its word 3-shingles (lower-cased ``\\w+`` words):
    ``SKETCH_SIZE`` bytes, the lowest byte of the minimum of each of ``SKETCH_SIZE`` hash functions.
    Part of the record's format: a change here needs a new ``RECORD_FORMAT``."""
    word_hashes: dict[str, int] = {}
    sketches: list[bytes] = []
    batch: list[np.ndarray] = []
    size = 0
    for text in texts:
        words = _WORD.findall(text.lower())
        for word in set(words).difference(word_hashes):
            word_hashes[word] = zlib.crc32(word.encode("utf-8"))
        hashes = np.fromiter(map(word_hashes.__getitem__, words), dtype=np.uint64, count=len(words))
        if len(hashes) < SHINGLE_WORDS:  # a text this short is one shingle
            hashes = np.concatenate([hashes, np.zeros(SHINGLE_WORDS - len(hashes), dtype=np.uint64)])
        batch.append(hashes)
        size += len(hashes)
        if size >= _BATCH_WORDS:
            sketches.extend(_sketch_batch(batch))
            batch, size = [], 0
    if batch:
        sketches.extend(_sketch_batch(batch))
    return sketches


def _sketch_batch(word_hashes: list[np.ndarray]) -> list[bytes]:
    lengths = np.array([len(h) for h in word_hashes])
    words = np.concatenate(word_hashes)
    ends = np.cumsum(lengths)
    # A shingle starts at every word but the last two of each text.
    starts = np.ones(len(words), dtype=bool)
    for back in range(1, SHINGLE_WORDS):
        starts[ends - back] = False
    positions = np.flatnonzero(starts)
    shingles = np.zeros(len(positions), dtype=np.uint64)
    for offset in range(SHINGLE_WORDS):
        shingles = _mix(shingles ^ words[positions + offset])
    # SKETCH_SIZE hash functions from the one mixed value: x -> a·x + b on 32 bits (a odd), a
    # permutation each; the minimum's lowest byte is kept. One row per function: a row per shingle
    # makes the minimum ten times slower (strided).
    high = (shingles >> np.uint64(32)).astype(np.uint32)
    values = _MULTIPLIERS[:, None] * high[None, :] + _INCREMENTS[:, None]
    first_shingles = np.concatenate([[0], np.cumsum(lengths - (SHINGLE_WORDS - 1))[:-1]])
    minima = np.minimum.reduceat(values, first_shingles, axis=1)
    return [row.tobytes() for row in (minima.T & np.uint32(0xFF)).astype(np.uint8)]


def _mix(values: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: every input bit moves every output bit."""
    values = values.astype(np.uint64, copy=True)
    with np.errstate(over="ignore"):
        values ^= values >> np.uint64(30)
        values *= np.uint64(0xBF58476D1CE4E5B9)
        values ^= values >> np.uint64(27)
        values *= np.uint64(0x94D049BB133111EB)
        values ^= values >> np.uint64(31)
    return values


_CONSTANTS = _mix(np.arange(1, 2 * SKETCH_SIZE + 1, dtype=np.uint64)) >> np.uint64(32)
_MULTIPLIERS = (_CONSTANTS[:SKETCH_SIZE] | np.uint64(1)).astype(np.uint32)
_INCREMENTS = _CONSTANTS[SKETCH_SIZE:].astype(np.uint32)


# --- the next record, and the redirects ----------------------------------------------------------


def next_record(
    settled: SettledPapers, addresses: Sequence[str], pages: Sequence[PageNote] | None = None
) -> AddressRecord:
    """The record after this build: the papers at their settled ``addresses`` (in paper order), with
    what their ``pages`` show, and every address no paper holds any more, with the id of the paper it
    now leads to (if any) and what it showed last."""
    notes = pages if pages is not None else [None] * len(addresses)
    papers = tuple(
        replace(known, address=address, page=page)
        for known, address, page in zip(settled.known, addresses, notes, strict=True)
    )
    live = {known.address for known in papers}
    live_ids = {known.id for known in papers}
    previous = settled.previous
    successor: dict[str, str | None] = dict(settled.successors)
    for old in previous.retired:
        successor.setdefault(old.id, old.successor)

    def lead(paper_id: str) -> str | None:
        seen = set()
        current: str | None = paper_id
        while current is not None and current not in live_ids and current not in seen:
            seen.add(current)
            current = successor.get(current)
        return current if current in live_ids else None

    retired: dict[str, RetiredAddress] = {}
    for old in (*previous.retired, *previous.papers):
        if old.address in live or old.address in retired:
            continue
        follower = successor.get(old.id)
        retired[old.address] = RetiredAddress(
            old.address, old.id, old.text, lead(follower) if follower is not None else None, old.page
        )
    return AddressRecord(papers, tuple(sorted(retired.values(), key=lambda r: r.address)))


def redirects(record: AddressRecord) -> list[Redirect]:
    """Where each retired address leads in the site the record describes."""
    address_of = {known.id: known.address for known in record.papers}
    return [
        Redirect(old.address, address_of.get(old.successor) if old.successor else None, old.page)
        for old in record.retired
    ]


# --- the file -------------------------------------------------------------------------------------


def read_record(path: Path) -> AddressRecord:
    """The record in ``path``; an empty one when there is no such file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return AddressRecord()
    except (OSError, UnicodeDecodeError) as error:
        raise DigestError(f"{path}: cannot read the address record ({error})") from None
    fix = (
        "fix it or restore it from git (the pages' addresses are recorded there; "
        "without it, edited papers get new addresses)"
    )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise DigestError(f"{path}:{error.lineno}: not valid JSON ({error.msg}); {fix}") from None
    except RecursionError:
        raise DigestError(f"{path}: JSON nested too deeply to be an address record; {fix}") from None
    try:
        if data.get("format") != RECORD_FORMAT:
            raise DigestError(
                f"{path}: address record format {data.get('format')!r}, this paper-digest reads "
                f"format {RECORD_FORMAT}; upgrade paper-digest"
            )
        papers = tuple(
            KnownPaper(
                id=_text(p["id"]),
                address=_address(p["address"]),
                own_id=bool(p.get("own_id", False)),
                file=_text(p["file"]),
                position=int(p["position"]),
                text=_text(p["text"]),
                sketch=_sketch(p["sketch"]),
                page=_page(p),
            )
            for p in data["papers"]
        )
        retired = tuple(
            RetiredAddress(
                address=_address(r["address"]),
                id=_text(r["id"]),
                text=_text(r["text"]),
                successor=None if r.get("successor") is None else _text(r["successor"]),
                page=_page(r),
            )
            for r in data.get("retired", [])
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise DigestError(
            f"{path}: not an address record as paper-digest writes it ({error!r}); {fix}"
        ) from None
    return AddressRecord(papers, retired)


def _page(entry: dict) -> PageNote | None:
    """The page note of a record's entry; none in records written before notes were kept."""
    if "title" not in entry:
        return None
    link = entry.get("link")
    return PageNote(_text(entry["title"]), bool(entry.get("title_derived", False)), _link(link))


def _link(value: object) -> str | None:
    """A paper's link as the record holds it: only a web address is ever written back into a page."""
    if value is None:
        return None
    text = _text(value)
    if not re.match(r"https?://", text, re.IGNORECASE):
        raise ValueError(f"{text[:80]!r} is not a web address")
    return text


def _page_fields(page: PageNote | None) -> dict:
    if page is None:
        return {}
    fields: dict = {"title": page.title, "title_derived": page.title_was_derived}
    if page.link is not None:
        fields["link"] = page.link
    return fields


def _text(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"expected a non-empty string, got {value!r}")
    return value


_ADDRESS = re.compile(r"[a-z0-9][a-z0-9-]{0,199}")
"""What ``paper_slug`` makes: an address is a folder name in the docs folder, so nothing else (no
``/``, no ``..``) is taken from the file."""


def _address(value: object) -> str:
    text = _text(value)
    if not _ADDRESS.fullmatch(text):
        raise ValueError(f"{text[:80]!r} is not a page address (lower-case letters, digits and hyphens)")
    return text


def _sketch(value: object) -> bytes:
    sketch = base64.b64decode(_text(value), validate=True)
    if len(sketch) != SKETCH_SIZE:
        raise ValueError(f"a sketch of {len(sketch)} bytes, not {SKETCH_SIZE}")
    return sketch


def record_text(record: AddressRecord) -> str:
    """The record as JSON, one paper or address a line (so a commit's diff shows what moved)."""

    def line(value: dict) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))

    papers = [
        line(
            {
                "id": k.id,
                "address": k.address,
                "own_id": k.own_id,
                "file": k.file,
                "position": k.position,
                "text": k.text,
                "sketch": base64.b64encode(k.sketch).decode("ascii"),
                **_page_fields(k.page),
            }
        )
        for k in record.papers
    ]
    retired = [
        line(
            {"address": r.address, "id": r.id, "text": r.text, "successor": r.successor}
            | _page_fields(r.page)
        )
        for r in record.retired
    ]
    return (
        "{\n"
        f'"about": {json.dumps(ABOUT)},\n'
        f'"format": {RECORD_FORMAT},\n'
        '"papers": [\n' + ",\n".join(papers) + "\n],\n"
        '"retired": [\n' + ",\n".join(retired) + "\n]\n"
        "}\n"
    )


def write_record(path: Path, record: AddressRecord) -> bool:
    """Write ``record`` to ``path`` unless it already holds it; ``True`` when it was written."""
    text = record_text(record)
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    staged = path.with_name(path.name + ".new")
    staged.write_text(text, encoding="utf-8")
    staged.replace(path)
    return True

"""What matching papers to the address record costs, and how far apart the thresholds keep edits from
other papers (``generator.sources.identity``).

    python benchmarks/address_matching.py [CORPUS.jsonl] [--work DIR]

(default corpus: ../shared/corpora/scale_50k.jsonl). The corpus is written without its ids, as a
``.txt``-like input whose papers get ids from their text. Timed side by side in one run, each against
reading the input (so the ratios mean something on a machine whose speed varies):

- the first build's matching (no record: every paper sketched) and writing the record;
- a rebuild after one abstract was edited (a typo), and after 1% of the abstracts were edited, a
  paragraph inserted before the first paper and one removed.

Then the thresholds: for every paper, its most similar other paper in the corpus (estimated from the
sketches, over the candidates the bands give; the exact Jaccard similarity for the pairs that come
near a threshold); and the estimated similarity of simulated edits to their original.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))

from generator.sources import read_collection  # noqa: E402
from generator.sources.identity import (  # noqa: E402
    SIMILAR,
    SIMILAR_IN_PLACE,
    AddressRecord,
    _band_keys,
    next_record,
    read_record,
    settle_identities,
    similarity,
    sketch_texts,
    write_record,
)

SHARED = PROJECT_ROOT.parent / "shared"


CPU: dict[str, float] = {}
"""Seconds of CPU of the last step timed under each label: on a shared machine the wall time of one
step can triple, its CPU time hardly moves."""


def timed(action, label: str = ""):
    started, cpu = time.perf_counter(), time.process_time()
    result = action()
    CPU[label] = time.process_time() - cpu
    return result, time.perf_counter() - started


def write_input(records: list[dict], path: Path) -> None:
    with path.open("w", encoding="utf-8") as file:
        for record in records:
            file.write(json.dumps({"title": record["title"], "abstract": record["abstract"]}) + "\n")


def typo(text: str, rng: random.Random) -> str:
    words = text.split()
    index = rng.randrange(len(words))
    word = words[index]
    words[index] = word[1] + word[0] + word[2:] if len(word) > 2 else word + "s"
    return " ".join(words)


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=SHARED / "corpora/scale_50k.jsonl")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    arguments = parser.parse_args()
    if not arguments.corpus.is_file():
        raise SystemExit(f"{arguments.corpus}: no such corpus")
    records = [json.loads(line) for line in arguments.corpus.open(encoding="utf-8")]
    rng = random.Random(2026)
    with tempfile.TemporaryDirectory(dir=arguments.work) as scratch:
        root = Path(scratch)
        (root / "abstracts").mkdir()
        source = root / "abstracts" / "papers.jsonl"
        record_path = root / "paper-addresses.json"

        write_input(records, source)
        collection, read_seconds = timed(lambda: read_collection([source]), "read")
        settled, first_seconds = timed(
            lambda: settle_identities(collection.papers, AddressRecord(), root), "match"
        )
        addresses = [f"paper-{paper.id}" for paper in settled.papers]
        _, write_seconds = timed(lambda: write_record(record_path, next_record(settled, addresses)), "write")
        size = record_path.stat().st_size
        print(f"{len(records):,} papers; reading the input {read_seconds:.2f} s (CPU {CPU['read']:.2f} s)")
        print(
            f"first build: matching (sketching every paper) {first_seconds:.2f} s, CPU {CPU['match']:.2f} s "
            f"({CPU['match'] / CPU['read']:.2f}x reading's CPU); writing the record {write_seconds:.2f} s, "
            f"{size / 1e6:.1f} MB ({size / len(records):.0f} bytes a paper)"
        )

        def rebuild(label: str, edited: list[dict]) -> None:
            write_input(edited, source)
            collection, _ = timed(lambda: read_collection([source]), "read")
            previous, load_seconds = timed(lambda: read_record(record_path), "load")
            settled, seconds = timed(lambda: settle_identities(collection.papers, previous, root), "match")
            counts = settled.counts
            ratio = (CPU["load"] + CPU["match"]) / CPU["read"]
            print(
                f"{label}: reading the record {load_seconds:.2f} s (CPU {CPU['load']:.2f}), matching "
                f"{seconds:.2f} s (CPU {CPU['match']:.2f}); together "
                f"{ratio:.2f}x reading the input's CPU ({CPU['read']:.2f} s); "
                f"{counts.by_text:,} by text, {counts.edited:,} edited, {counts.new:,} new, "
                f"{sum(1 for s in settled.successors.values() if s is None):,} removed"
            )
            return settled

        one = [dict(r) for r in records]
        one[1234]["abstract"] = typo(one[1234]["abstract"], rng)
        settled = rebuild("one abstract edited", one)
        assert settled.counts.edited == 1 and settled.counts.new == 0

        many = [dict(r) for r in records]
        chosen = rng.sample(range(1, len(many)), len(many) // 100)
        for index in chosen:
            many[index]["abstract"] = typo(many[index]["abstract"], rng)
        inserted = {
            "title": "Inserted",
            "abstract": "A paragraph inserted before the first paper, about "
            "tidal energy in estuaries measured over twelve years of buoy records.",
        }
        removed = chosen[-1] + 1 if chosen[-1] + 1 not in chosen else chosen[-1] - 1
        many = [inserted] + [r for i, r in enumerate(many) if i != removed]
        settled = rebuild(f"{len(chosen):,} edited, one inserted first, one removed", many)

        print("\nthresholds: estimated similarity of each paper to its most similar other paper")
        sketches = [np.frombuffer(s, dtype=np.uint8) for s in settle_sketches(records)]
        nearest = nearest_others(sketches)
        quantiles = np.quantile(nearest, [0.5, 0.9, 0.99, 0.999, 1.0])
        print("  median, 90%, 99%, 99.9%, max:", ", ".join(f"{q:.3f}" for q in quantiles))
        for threshold in (SIMILAR_IN_PLACE, SIMILAR):
            above = int(np.sum(nearest >= threshold))
            print(f"  papers with another paper at {threshold} or more: {above:,}")
        high = np.argsort(nearest)[-5:]
        for index in high:
            other, score = best_other(sketches, index)
            exact = jaccard(records[index]["abstract"], records[other]["abstract"])
            print(
                f"  {score:.3f} (exact {exact:.3f}): "
                f"{records[index]['title'][:60]!r} ~ {records[other]['title'][:60]!r}"
            )

        print("\nsimulated edits of 2,000 abstracts: estimated similarity to the original (min, 1%, median)")
        sample = rng.sample(records, 2000)
        edits = {
            "one typo": lambda t: typo(t, rng),
            "five typos": lambda t: _repeat(typo, t, 5, rng),
            "a sentence added": lambda t: (
                t + " We release our code and data to support future research on this problem."
            ),
            "a sentence removed": lambda t: " ".join(s for i, s in enumerate(sentences(t)) if i != 1) or t,
            "half the sentences replaced": lambda t: half_replaced(t, rng, records),
        }
        originals = [np.frombuffer(s, dtype=np.uint8) for s in sketch_texts([r["abstract"] for r in sample])]
        for name, edit in edits.items():
            edited = sketch_texts([edit(r["abstract"]) for r in sample])
            scores = np.array(
                [
                    similarity(o, np.frombuffer(e, dtype=np.uint8))
                    for o, e in zip(originals, edited, strict=False)
                ]
            )
            print(
                f"  {name}: {scores.min():.3f}, {np.quantile(scores, 0.01):.3f}, {np.median(scores):.3f}; "
                f"below {SIMILAR}: {np.mean(scores < SIMILAR):.1%}, below {SIMILAR_IN_PLACE}: "
                f"{np.mean(scores < SIMILAR_IN_PLACE):.1%}"
            )


def _repeat(edit, text, times, rng):
    for _ in range(times):
        text = edit(text, rng)
    return text


def half_replaced(text: str, rng: random.Random, records: list[dict]) -> str:
    own = sentences(text)
    other = sentences(rng.choice(records)["abstract"])
    keep = len(own) - len(own) // 2
    return " ".join(own[:keep] + other[: max(1, len(own) - keep)])


def settle_sketches(records: list[dict]) -> list[bytes]:
    return sketch_texts([r["abstract"] for r in records])


def nearest_others(sketches: list[np.ndarray]) -> np.ndarray:
    """Each sketch's highest similarity to another, over the candidates its bands give."""
    bands: dict[bytes, list[int]] = defaultdict(list)
    for index, sketch in enumerate(sketches):
        for key in _band_keys(sketch.tobytes()):
            bands[key].append(index)
    best = np.zeros(len(sketches))
    stacked = np.stack(sketches)
    for members in bands.values():
        if len(members) < 2 or len(members) > 2000:
            continue
        block = stacked[members]
        agree = (block[:, None, :] == block[None, :, :]).mean(axis=2)
        np.fill_diagonal(agree, 0)
        scores = np.maximum(0, (agree - 1 / 256) / (1 - 1 / 256)).max(axis=1)
        best[members] = np.maximum(best[members], scores)
    return best


def best_other(sketches: list[np.ndarray], index: int) -> tuple[int, float]:
    stacked = np.stack(sketches)
    agree = (stacked == sketches[index]).mean(axis=1)
    agree[index] = 0
    other = int(np.argmax(agree))
    return other, max(0.0, (agree[other] - 1 / 256) / (1 - 1 / 256))


def jaccard(first: str, second: str) -> float:
    def shingles(text: str) -> set[tuple[str, ...]]:
        words = re.findall(r"\w+", text.lower())
        return {tuple(words[i : i + 3]) for i in range(max(1, len(words) - 2))}

    a, b = shingles(first), shingles(second)
    return len(a & b) / len(a | b)


if __name__ == "__main__":
    main()

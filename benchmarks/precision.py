"""float32 against bfloat16 autocast for the embedding model, side by side on one corpus.

For each precision: seconds to embed N abstracts (title and abstract, as the build embeds them) and
the short phrases the keyword stage embeds, alternated over several rounds so that machine noise
falls on both; then the cosine of every bfloat16 vector to its float32 twin.

Usage: python benchmarks/precision.py [CORPUS.jsonl] [--papers 400] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from generator.analysis.embed import SentenceTransformerEmbedder, cpu_has_native_bfloat16
from generator.analysis.keyphrases import abstract_candidates
from generator.analysis.text import strip_markup

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = PROJECT_ROOT.parent / "shared" / "corpora" / "icml2024.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--papers", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=2)
    arguments = parser.parse_args()

    with arguments.corpus.open(encoding="utf-8") as lines:
        records = [json.loads(line) for line, _ in zip(lines, range(arguments.papers), strict=False)]
    abstracts = [f"{strip_markup(r['title'])}. {strip_markup(r['abstract'])}" for r in records]
    phrases = sorted({c.form for r in records for c in abstract_candidates(r["abstract"]).values()})
    print(f"{len(abstracts)} abstracts, {len(phrases)} distinct candidate phrases")
    print(f"native bfloat16 on this CPU: {cpu_has_native_bfloat16()}")

    embedders = {p: SentenceTransformerEmbedder(precision=p) for p in ("float32", "bfloat16")}
    for embedder in embedders.values():
        embedder.embed(["warm up"])
    seconds: dict[tuple[str, str], list[float]] = {}
    vectors: dict[tuple[str, str], np.ndarray] = {}
    for _ in range(arguments.rounds):
        for precision, embedder in embedders.items():
            for kind, texts in (("abstracts", abstracts), ("phrases", phrases)):
                start = time.perf_counter()
                vectors[precision, kind] = embedder.embed(texts)
                seconds.setdefault((precision, kind), []).append(time.perf_counter() - start)

    print(f"{'':10} {'float32 s':>10} {'bfloat16 s':>11} {'speed-up':>9} {'min cos':>8} {'mean cos':>9}")
    for kind in ("abstracts", "phrases"):
        exact = statistics.median(seconds["float32", kind])
        fast = statistics.median(seconds["bfloat16", kind])
        cosines = (vectors["float32", kind] * vectors["bfloat16", kind]).sum(axis=1)
        print(
            f"{kind:10} {exact:10.1f} {fast:11.1f} {exact / fast:8.2f}x "
            f"{cosines.min():8.5f} {cosines.mean():9.6f}"
        )


if __name__ == "__main__":
    main()

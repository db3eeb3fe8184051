"""Paper-map quality: do the map's neighbourhoods keep the topics together?

    python benchmarks/map_quality.py [CORPUS.jsonl] [--cache-dir DIR]

(default ../shared/corpora/icml2024.jsonl). Lays out the corpus as ``paper-digest build`` does (the
expanded joint vectors, t-SNE, the digest's topics) and prints, over the papers that have a topic,
the mean share of each paper's 10 nearest points on the map that are in its own topic (chance: the
mean topic share). Also printed: the same share for the 10 nearest papers in the joint space itself,
the upper bound a layout could keep.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT))
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from related_quality import DEFAULT_EVAL, embedded_corpus, load_eval  # noqa: E402

from generator.analysis.paper_map import map_layout  # noqa: E402
from generator.analysis.related import one_thread, paper_space  # noqa: E402
from generator.analysis.topics import find_topics  # noqa: E402
from generator.project.settings import load_settings  # noqa: E402

NEIGHBOURS = 10


def own_topic_share(points: np.ndarray, topic: np.ndarray, neighbours: int = NEIGHBOURS) -> float:
    """Mean over papers with a topic of the share of their nearest points (Euclidean) in it."""
    squared = (points**2).sum(axis=1)
    distances = squared[:, None] + squared[None, :] - 2 * points @ points.T
    np.fill_diagonal(distances, np.inf)
    nearest = np.argsort(distances, axis=1, kind="stable")[:, :neighbours]
    with_topic = topic >= 0
    return float((topic[nearest] == topic[:, None])[with_topic].mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "corpus", nargs="?", type=Path, default=PROJECT_ROOT.parent / "shared" / "corpora" / "icml2024.jsonl"
    )
    parser.add_argument("--cache-dir", type=Path, help="embedding cache (default: the project's cache_dir)")
    arguments = parser.parse_args(argv)
    settings = load_settings(PROJECT_ROOT)
    cache_dir = (arguments.cache_dir or settings.resolve(settings.cache_dir)).absolute()
    records = load_eval(DEFAULT_EVAL).load(str(arguments.corpus))
    texts, vectors = embedded_corpus(records, cache_dir)
    space = paper_space(texts, vectors)
    topics = find_topics(texts, space.vectors)
    topic = np.full(len(texts), -1)
    for number, found in enumerate(topics):
        topic[list(found.members)] = number
    started = time.perf_counter()
    layout = map_layout(space.expanded)
    elapsed = time.perf_counter() - started
    chance = (
        float(np.mean([(topic == t).mean() for t in topic[topic >= 0]]))
        if (topic >= 0).any()
        else float("nan")
    )
    with one_thread():
        in_space = own_topic_share(space.expanded * 10, topic)  # same ranking as the cosine
        on_map = own_topic_share(np.asarray(layout.positions, dtype=np.float64), topic)
    print(
        f"{arguments.corpus.name}: {len(texts)} papers, {len(topics)} topics, map by {layout.method} "
        f"({elapsed:.0f} s)\n  own-topic share of the {NEIGHBOURS} nearest: on the map {on_map:.3f}, "
        f"in the joint space {in_space:.3f}, chance {chance:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

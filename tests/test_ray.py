"""Embedding on a Ray cluster (the ``ray`` extra): a local Ray instance, the real model, a small corpus."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from generator.analysis.embed import SentenceTransformerEmbedder
from generator.cache.embeddings import CachedEmbedder, EmbeddingCache
from tests.conftest import PROJECT_ROOT

# As RayEmbedder does for a local instance: loopback only (read when Ray is first imported).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ray = pytest.importorskip("ray", reason="the ray extra is not installed")
pytestmark = pytest.mark.slow


def abstracts(count: int) -> list[str]:
    from generator.sources import read_collection

    papers = read_collection([PROJECT_ROOT / "abstracts"]).papers
    return [paper.abstract for paper in papers[:count]]


def test_vectors_from_ray_workers_equal_the_single_process_ones_and_fill_the_cache(tmp_path: Path) -> None:
    from generator.analysis.ray_embed import LOCAL, RayEmbedder

    texts = [*abstracts(24), "graph neural networks", "large language models"]
    spans = np.array([[[0, min(40, len(text))], [len(text) // 2, len(text)]] for text in texts])
    on_ray = RayEmbedder(LOCAL, precision="float32", actors=2)
    cache = EmbeddingCache.open(tmp_path / "cache.sqlite3")
    try:
        cached_ray = CachedEmbedder(on_ray, cache)
        from_ray = cached_ray.embed(texts)
        parts_from_ray = cached_ray.embed_spans(texts, spans)  # a paper and its parts, as a build asks
        assert cached_ray.misses == 2 * len(texts)
        assert ray.is_initialized()
    finally:
        on_ray.close()
    assert not ray.is_initialized(), "a local instance started for the build is stopped after it"

    single = SentenceTransformerEmbedder(precision="float32", device="cpu")
    alone = single.embed(texts)
    assert from_ray.shape == alone.shape
    assert float(np.abs(from_ray - alone).max()) < 1e-5
    assert float(np.min(np.sum(from_ray * alone, axis=1))) > 0.99999
    parts_alone = single.embed_spans(texts, spans)
    assert parts_from_ray.shape == parts_alone.shape == (len(texts), 3, alone.shape[1])
    assert float(np.abs(parts_from_ray - parts_alone).max()) < 1e-5

    # The build that follows, on one process, finds every vector in the shared cache.
    local = CachedEmbedder(single, cache)
    again = local.embed(texts)
    parts_again = local.embed_spans(texts, spans)
    assert local.misses == 0 and local.hits == 2 * len(texts)
    assert np.array_equal(again, from_ray) and np.array_equal(parts_again, parts_from_ray)
    assert on_ray.name == single.name
    cache.close()

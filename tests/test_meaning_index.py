"""The files search by meaning reads: int8 vectors, and the inverted file past a size."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from generator.analysis.onnx_export import OnnxModel
from generator.site import meaning_index
from generator.site.meaning_index import (
    INDEX_FILE,
    MeaningPaper,
    meaning_files,
    quantised,
    read_vectors_file,
    snippet,
    vectors_file,
)


@given(
    arrays(np.float32, st.tuples(st.integers(0, 20), st.integers(1, 40)), elements=st.floats(-1, 1, width=32))
)
def test_int8_vectors_read_back_within_half_a_step(vectors: np.ndarray) -> None:
    scales, values = quantised(vectors)
    assert values.dtype == np.int8 and scales.dtype == np.float32
    back = read_vectors_file(vectors_file(vectors), vectors.shape[1])
    assert back.shape == vectors.shape
    steps = np.abs(vectors).max(axis=1, initial=0)[:, None] / 127
    assert (np.abs(back - vectors) <= steps / 2 + 1e-6).all()


def _clustered(count: int, dimensions: int = 32, groups: int = 40, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(groups, dimensions))
    vectors = centres[rng.integers(0, groups, count)] + 0.35 * rng.normal(size=(count, dimensions))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def exported(tmp_path: Path) -> OnnxModel:
    (tmp_path / "model-int8.onnx").write_bytes(b"model")
    (tmp_path / "vocab.txt").write_text("[PAD]\n")
    return OnnxModel(tmp_path, lowercase=True, max_tokens=256, dimensions=32)


def _papers(count: int) -> list[MeaningPaper]:
    return [
        MeaningPaper(f"id{i}", f"papers/p{i}/", f"Title {i}", "A. Author", "Opening …") for i in range(count)
    ]


def test_a_small_digest_is_one_cluster_searched_whole(exported: OnnxModel) -> None:
    vectors = _clustered(300)
    files = meaning_files(_papers(300), vectors, exported)
    index = json.loads(files[INDEX_FILE])
    assert index["clusters"] == [300] and index["probe"] == 1
    assert "meaning/centroids.bin" not in files
    assert files["meaning/model.onnx"] == b"model"
    rows = [row for part in range(3) for row in json.loads(files[f"meaning/papers-{part}.json"])]
    assert [row[0] for row in rows] == [f"id{i}" for i in range(300)]
    assert "meaning/papers-3.json" not in files


@pytest.mark.parametrize("seed", [0, 1])
def test_past_a_size_every_paper_is_in_one_cluster_and_the_probe_finds_its_neighbours(
    seed: int, monkeypatch: pytest.MonkeyPatch, exported: OnnxModel
) -> None:
    monkeypatch.setattr(meaning_index, "SINGLE_CLUSTER_PAPERS", 500)
    monkeypatch.setattr(meaning_index, "PAPERS_PER_CLUSTER", 50)
    vectors = _clustered(2000, seed=seed)
    files = meaning_files(_papers(2000), vectors, exported)
    index = json.loads(files[INDEX_FILE])
    assert len(index["clusters"]) == 40 and sum(index["clusters"]) == 2000
    ids = [row[0] for part in range(20) for row in json.loads(files[f"meaning/papers-{part}.json"])]
    assert sorted(ids) == sorted(f"id{i}" for i in range(2000))
    # The result files follow the vector files' order: a cluster's papers are together.
    stored = np.concatenate([read_vectors_file(files[f"meaning/vectors-{c}.bin"], 32) for c in range(40)])
    order = [int(paper_id[2:]) for paper_id in ids]
    assert np.allclose(stored, vectors[order], atol=0.01)
    assert index["recall"] >= meaning_index.TARGET_RECALL or index["probe"] * 50 * 36 > 1_000_000
    assert 1 <= index["probe"] < 40
    assert len(read_vectors_file(files["meaning/centroids.bin"], 32)) == 40


def test_mismatched_papers_and_vectors_are_refused(exported: OnnxModel) -> None:
    with pytest.raises(ValueError, match="3 papers but 2 vectors"):
        meaning_files(_papers(3), _clustered(2), exported)


def test_snippet_cuts_at_a_word() -> None:
    assert snippet("short text") == "short text"
    cut = snippet("word " * 100, limit=22)
    assert cut == "word word word word …"

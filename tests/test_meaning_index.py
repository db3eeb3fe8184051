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
from generator.analysis.query_encoder import QueryEncoder
from generator.site import meaning_index
from generator.site.meaning_index import (
    INDEX_FILE,
    MeaningPaper,
    all_stored_vectors,
    meaning_files,
    quantised,
    read_encoder_files,
    read_vectors_file,
    search_files,
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
    rows = [row for part in range(12) for row in json.loads(files[f"meaning/papers-{part}.json"])]
    assert [row[0] for row in rows] == [f"id{i}" for i in range(300)]
    assert "meaning/papers-12.json" not in files
    assert json.loads(files["meaning/ids.json"]) == [f"id{i}" for i in range(300)]
    query = vectors[7]
    assert search_files(files, query)[0][0] == 7


@pytest.mark.parametrize("seed", [0, 1])
def test_past_a_size_the_probed_codes_and_the_reranked_rows_find_the_exact_ten(
    seed: int, monkeypatch: pytest.MonkeyPatch, exported: OnnxModel
) -> None:
    monkeypatch.setattr(meaning_index, "SINGLE_CLUSTER_PAPERS", 500)
    monkeypatch.setattr(meaning_index, "PAPERS_PER_CLUSTER", 50)
    monkeypatch.setattr(meaning_index, "MAX_CODE_BYTES", 20_000)
    dimensions = 64
    vectors = _clustered(2000, dimensions=dimensions, seed=seed)
    files = meaning_files(_papers(2000), vectors, exported)
    index = json.loads(files[INDEX_FILE])
    assert len(index["clusters"]) == 40 and sum(index["clusters"]) == 2000
    assert index["code_bytes"] == 32 and "meaning/vectors-0.bin" not in files
    # The probe reads as many clusters' codes as the budget allows, the largest counted.
    largest = sorted(index["clusters"], reverse=True)
    assert sum(largest[: index["probe"]]) * 32 <= 20_000 < sum(largest[: index["probe"] + 1]) * 32
    for cluster, size in enumerate(index["clusters"]):
        assert len(files[f"meaning/codes-{cluster}.bin"]) == size * 32
    # Rows, result files and ids follow one order, in which a cluster's papers are together.
    ids = json.loads(files["meaning/ids.json"])
    shown = [row[0] for part in range(80) for row in json.loads(files[f"meaning/papers-{part}.json"])]
    assert shown == ids and sorted(ids) == sorted(f"id{i}" for i in range(2000))
    order = [int(paper_id[2:]) for paper_id in ids]
    stored = all_stored_vectors(files)
    assert np.allclose(stored, vectors[order], atol=0.02)
    rng = np.random.default_rng(seed + 10)
    queries = vectors[rng.choice(2000, 40, replace=False)] + 0.3 * rng.normal(size=(40, dimensions))
    recalls = []
    for query in queries.astype(np.float32):
        exact = set(np.argsort(-(stored @ query))[:10].tolist())
        best, fetched = search_files(files, query)
        recalls.append(len(exact & set(best)) / 10)
        assert sum(name.startswith("meaning/codes-") for name in fetched) == index["probe"]
    assert np.mean(recalls) >= 0.9
    # A paper's own vector finds it first.
    assert search_files(files, stored[123])[0][0] == 123


def test_mismatched_papers_and_vectors_are_refused(exported: OnnxModel) -> None:
    with pytest.raises(ValueError, match="3 papers but 2 vectors"):
        meaning_files(_papers(3), _clustered(2), exported)


def test_snippet_cuts_at_a_word() -> None:
    assert snippet("short text") == "short text"
    cut = snippet("word " * 100, limit=22)
    assert cut == "word word word word …"


def _encoder(
    dimensions: int = 32, axes: int = 8, tokens: int = 50, seed: int = 0, hidden: int = 6
) -> QueryEncoder:
    rng = np.random.default_rng(seed)
    return QueryEncoder(
        np.sort(rng.choice(1000, tokens, replace=False)).astype(np.int32),
        rng.normal(size=(tokens, axes)).astype(np.float32),
        rng.normal(size=(axes, dimensions)).astype(np.float32),
        rng.normal(size=dimensions).astype(np.float32) * 0.1,
        rng.normal(size=(axes, hidden)).astype(np.float32),
        rng.normal(size=hidden).astype(np.float32) * 0.1,
        rng.normal(size=(hidden, dimensions)).astype(np.float32),
    )


def test_the_quick_encoder_ships_under_hashed_names_and_reads_back(exported: OnnxModel) -> None:
    encoder = _encoder()
    files = meaning_files(_papers(30), _clustered(30), exported, encoder, runtime_bytes=1000)
    index = json.loads(files[INDEX_FILE])
    assert index["full_model_bytes"] == len(b"model") + 1000
    described = index["encoder"]
    for key in ("ids", "vectors", "map", "hidden_in", "hidden_out"):
        name = described[key]
        assert f"meaning/{name}" in files
        assert meaning_index.hashed_name(name.rsplit("-", 1)[0], files[f"meaning/{name}"]) == name
    read = read_encoder_files(files)
    assert read is not None
    assert (read.token_ids == encoder.token_ids).all()
    # The site's int8 encoder gives the float encoder's vectors (cosine), tokens it does not keep ignored.
    texts = [
        [int(encoder.token_ids[i]) for i in (0, 3, 7)],
        [int(encoder.token_ids[5]), 99_999],
        [99_999],
        [],
    ]
    mine, theirs = encoder.encode(texts), read.encode(texts)
    assert ((mine * theirs).sum(axis=1)[:2] >= 0.999).all()
    assert not theirs[2].any() and not theirs[3].any()
    # Another encoder, other bytes, other names: a browser's cached copy is never stale.
    other = json.loads(meaning_files(_papers(30), _clustered(30), exported, _encoder(seed=1))[INDEX_FILE])
    parts = ("ids", "vectors", "map", "hidden_in", "hidden_out")
    assert {other["encoder"][key] for key in parts}.isdisjoint({described[key] for key in parts})


def test_without_a_quick_encoder_the_index_names_none(exported: OnnxModel) -> None:
    files = meaning_files(_papers(5), _clustered(5), exported)
    assert "encoder" not in json.loads(files[INDEX_FILE])
    assert read_encoder_files(files) is None
    with pytest.raises(ValueError, match="maps to 8 axes"):
        meaning_files(_papers(5), _clustered(5), exported, _encoder(dimensions=8))


@given(st.lists(st.lists(st.integers(0, 1200), max_size=12), max_size=6))
def test_a_quick_vector_is_unit_length_or_zero(texts: list[list[int]]) -> None:
    vectors = _encoder().encode(texts)
    norms = np.linalg.norm(vectors, axis=1)
    assert np.all((np.abs(norms - 1) < 1e-5) | (norms == 0))

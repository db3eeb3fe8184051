"""The model exported for the reader's browser (search by meaning) agrees with the one the build runs."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from generator.analysis.onnx_export import MODEL_FILE, OnnxEmbedder
from generator.cache.models import cached_onnx_model, export_folder, onnx_model
from tests.conftest import PROJECT_ROOT, SAMPLE_ABSTRACTS

CORPUS = PROJECT_ROOT.parent / "shared" / "corpora" / "neurips2023.jsonl"
COMPARED = 1000


def test_an_incomplete_export_is_not_used(tmp_path: Path) -> None:
    folder = export_folder(tmp_path, "some-model")
    folder.mkdir(parents=True)
    assert cached_onnx_model(tmp_path, "some-model") is None
    (folder / "tokenizer.json").write_text('{"lowercase": true, "max_tokens": 256, "dimensions": 384}')
    (folder / MODEL_FILE).write_bytes(b"")
    assert cached_onnx_model(tmp_path, "some-model") is None  # no vocabulary
    (folder / "vocab.txt").write_text("[PAD]\n")
    assert cached_onnx_model(tmp_path, "some-model") is not None
    assert export_folder(tmp_path, "another-model") != folder


@pytest.fixture(scope="module")
def export_run(tmp_path_factory: pytest.TempPathFactory):
    """The export, made as a command-line build makes it: with a root logger that has no handler
    (pytest gives it its own, which would hide a library calling ``logging.basicConfig``)."""
    root = logging.getLogger()
    kept = root.handlers[:]
    root.handlers.clear()
    try:
        model = onnx_model(tmp_path_factory.mktemp("cache"))
        added = root.handlers[:]
    finally:
        root.handlers[:] = kept
    return model, added


@pytest.fixture(scope="module")
def exported(export_run):
    return export_run[0]


@pytest.mark.slow
def test_export_leaves_the_root_logger_alone(export_run) -> None:
    # A stderr handler left there prints every later MkDocs INFO line raw, even with --quiet.
    assert export_run[1] == []


@pytest.mark.slow
def test_export_is_made_once_and_kept(exported) -> None:
    assert exported.model_file.stat().st_size < 40_000_000  # quantised: float32 is 90 MB
    vocabulary = exported.vocabulary_file.read_text(encoding="utf-8").splitlines()
    assert vocabulary[:1] == ["[PAD]"] and len(vocabulary) == 30522
    made = exported.model_file.stat().st_mtime_ns
    again = onnx_model(exported.folder.parent.parent)
    assert again == exported and again.model_file.stat().st_mtime_ns == made


def _compare(exported, texts: list[str]) -> np.ndarray:
    from generator.analysis.embed import SentenceTransformerEmbedder

    reference = SentenceTransformerEmbedder(precision="float32").embed(texts)
    vectors = OnnxEmbedder(exported, threads=2).embed(texts)
    assert vectors.shape == reference.shape
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    return (vectors * reference).sum(axis=1)


@pytest.mark.slow
def test_onnx_vectors_agree_with_pytorch_on_short_and_long_texts(exported) -> None:
    texts = [
        *SAMPLE_ABSTRACTS,
        "graph neural networks",
        "LLM",
        "why does Adam generalise worse than SGD",
        "x",
    ]
    assert _compare(exported, texts).min() >= 0.99


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_file(), reason="the shared NeurIPS 2023 corpus is not here")
def test_onnx_vectors_agree_with_pytorch_on_a_thousand_abstracts(exported) -> None:
    with CORPUS.open(encoding="utf-8") as lines:
        papers = [json.loads(line) for _, line in zip(range(COMPARED), lines, strict=False)]
    cosines = _compare(exported, [f"{paper['title']}. {paper['abstract']}" for paper in papers])
    assert len(cosines) == COMPARED
    assert cosines.min() >= 0.99, np.sort(cosines)[:5]

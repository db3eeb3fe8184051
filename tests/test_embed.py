"""The embedding backend: batches by token count, and its precision (auto, float32, bfloat16)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.analysis.embed import (
    SentenceTransformerEmbedder,
    _token_counts,
    cpu_has_native_bfloat16,
    freed_memory_releaser,
    resolve_precision,
    token_batches,
)
from generator.cache.embeddings import CachedEmbedder, EmbeddingCache
from generator.errors import DigestError
from generator.project.settings import load_settings
from tests.conftest import SAMPLE_ABSTRACTS


@given(
    st.lists(st.integers(1, 300), max_size=2000), st.sampled_from([1, 8, 256]), st.sampled_from([64, 8192])
)
def test_token_batches_cover_every_text_once_shortest_first(
    lengths: list[int], max_texts: int, max_tokens: int
) -> None:
    batches = token_batches(lengths, max_texts, max_tokens)
    flat = [index for batch in batches for index in batch]
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths)
    for batch in batches:
        assert 1 <= len(batch) <= max_texts
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= max_tokens


def test_short_texts_share_bigger_batches() -> None:
    phrases = token_batches([4] * 1000)
    abstracts = token_batches([256] * 1000)
    assert [len(b) for b in phrases] == [256, 256, 256, 232]
    assert {len(b) for b in abstracts[:-1]} == {32}


def test_token_counts_stop_where_the_model_truncates() -> None:
    class WordModel:
        max_seq_length = 4

        @staticmethod
        def tokenizer(texts: list[str], **options: bool) -> dict[str, list[list[int]]]:
            return {"input_ids": [[0, *range(len(t.split())), 0] for t in texts]}

    assert _token_counts(WordModel(), ["a", "a b c d e f"]) == [3, 4]
    # A model without a Hugging Face tokenizer is ordered by its texts' lengths.
    assert _token_counts(object(), ["abcd", "abcdefghijkl"]) == [3, 5]


_CPUINFO = "processor\t: {n}\nmodel name\t: Some CPU\nflags\t\t: fpu sse2 avx2 {extra}\n\n"


@pytest.mark.parametrize(
    ("extra", "expected"),
    [("avx512f avx512_bf16 avx512_vnni", True), ("amx_tile amx_bf16", True), ("avx512f avx512_vnni", False)],
)
def test_native_bfloat16_is_read_from_cpu_flags(tmp_path: Path, extra: str, expected: bool) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("".join(_CPUINFO.format(n=n, extra=extra) for n in range(2)))
    assert cpu_has_native_bfloat16(cpuinfo) is expected


def test_no_cpuinfo_means_no_native_bfloat16(tmp_path: Path) -> None:
    assert cpu_has_native_bfloat16(tmp_path / "missing") is False
    (tmp_path / "empty").write_text("")
    assert cpu_has_native_bfloat16(tmp_path / "empty") is False


def test_precision_choices_and_names() -> None:
    assert resolve_precision("float32") == "float32"
    assert resolve_precision("bfloat16") == "bfloat16"
    assert resolve_precision("auto") == ("bfloat16" if cpu_has_native_bfloat16() else "float32")
    with pytest.raises(DigestError, match="unknown precision 'fp8'"):
        resolve_precision("fp8")
    exact = SentenceTransformerEmbedder("some-model", precision="float32")
    fast = SentenceTransformerEmbedder("some-model", precision="bfloat16")
    assert exact.name == "some-model"
    assert fast.name == "some-model (bfloat16)"
    # Slightly different vectors must never be served from each other's cache entries.
    assert EmbeddingCache.key(exact.name, "text") != EmbeddingCache.key(fast.name, "text")


def test_precision_setting_is_checked(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.paper-digest]\nprecision = "float32"\n')
    assert load_settings(tmp_path).precision == "float32"
    (tmp_path / "pyproject.toml").write_text('[tool.paper-digest]\nprecision = "half"\n')
    with pytest.raises(DigestError, match="'precision' must be one of auto, float32, bfloat16"):
        load_settings(tmp_path)


@pytest.mark.slow
def test_bfloat16_vectors_match_float32() -> None:
    """bfloat16 autocast keeps every vector within a cosine of 0.999 of float32, on abstracts and phrases."""
    texts = [*SAMPLE_ABSTRACTS, "graph neural networks", "LLM", "zeroth-order optimization", "x"]
    exact = SentenceTransformerEmbedder(precision="float32").embed(texts)
    fast = SentenceTransformerEmbedder(precision="bfloat16").embed(texts)
    assert exact.dtype == fast.dtype == np.float32
    assert fast.shape == exact.shape
    np.testing.assert_allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)
    cosines = (exact * fast).sum(axis=1)
    assert cosines.min() > 0.999
    assert not np.array_equal(exact, fast)  # the second run really used another arithmetic


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_parts_of_a_text_are_pooled_from_the_one_pass_over_it(precision: str) -> None:
    embedder = SentenceTransformerEmbedder(precision=precision)
    texts = [
        "Graph neural networks oversmooth. Deep ones more so. We propose a fix.",
        "Large language models hallucinate. Retrieval helps. We measure by how much.",
    ]
    heads = ["Graph neural networks oversmooth.", "Large language models hallucinate."]
    whole_span = [[0, len(text)] for text in texts]
    spans = np.array([[[0, len(head)], whole, [5, 5]] for head, whole in zip(heads, whole_span, strict=True)])
    pooled = embedder.embed_spans(texts, spans)
    assert pooled.shape == (2, 4, 384) and pooled.dtype == np.float32
    # the whole is the text's embedding, as ``embed`` makes it
    assert (pooled[:, 0] * embedder.embed(texts)).sum(axis=1).min() > 0.9999
    # a range holding no token start is a zero row; the others are unit vectors
    assert not pooled[:, 3].any()
    np.testing.assert_allclose(np.linalg.norm(pooled[:, :3], axis=2), 1.0, atol=1e-5)
    # every token of the text, without [CLS] and [SEP], is close to the mean pooling of all of them
    assert (pooled[:, 2] * pooled[:, 0]).sum(axis=1).min() > 0.98
    # a head sentence read in its text: nearer its own sentence read alone than the other text's
    alone = embedder.embed(heads)
    similarity = pooled[:, 1] @ alone.T
    assert similarity[0, 0] > similarity[0, 1] and similarity[1, 1] > similarity[1, 0]
    assert similarity[0, 0] < 0.999  # in context, not the sentence embedded on its own


def test_cached_parts_are_keyed_by_text_and_ranges(tmp_path: Path, fake_embedder) -> None:
    embedder = CachedEmbedder(fake_embedder, EmbeddingCache.open(tmp_path / "c.sqlite3"))
    texts = ["alpha beta. gamma delta", "epsilon zeta. eta"]
    spans = np.array([[[0, 11]], [[0, 13]]])
    first = embedder.embed_spans(texts, spans)
    assert first.shape == (2, 2, 64) and embedder.misses == 2
    again = embedder.embed_spans([texts[1], texts[0], texts[1]], spans[[1, 0, 1]])
    assert embedder.misses == 2 and embedder.hits == 3
    np.testing.assert_array_equal(again[1], first[0])
    embedder.embed_spans(texts[:1], np.array([[[0, 5]]]))  # other ranges of a known text: other vectors
    assert embedder.misses == 3
    embedder.embed(texts[:1])  # and the text's own vector is another entry again
    assert embedder.misses == 4
    with pytest.raises(ValueError, match="character ranges"):
        embedder.embed_spans(texts, spans[:1])


def test_freed_memory_releaser_is_safe_to_call() -> None:
    release = freed_memory_releaser()
    release()
    release()

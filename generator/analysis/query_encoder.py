"""A small static query encoder, so the search box ranks by meaning as it opens (issue 39).

The full model (``onnx_export``) is about 48 MB with its runtime; this encoder is a table of token
vectors (Model2Vec's idea: a transformer's output for each vocabulary token alone, distilled into a
static table) plus a linear map into the papers' own vector space. A query is tokenised exactly as the
model reads it (BERT's basic tokenizer and WordPiece, ``javascripts/meaning.js``), its tokens' vectors
averaged, mapped and normalised: the result is compared with the papers' build vectors, so the papers
keep the full model's vectors and only the query side is approximate.

Two parts, made in two places:

- **The recipe** (``query_encoder.npz``, shipped in the wheel, 2.0 MB; fitted by
  ``benchmarks/train_query_encoder.py`` on ``scale_50k.jsonl``, never on a test query set): which
  tokens are kept (those seen at least a few times in 50,000 titles and abstracts; the rest are too rare
  to matter to a query and would only add bytes), each kept token's weight (smooth inverse frequency:
  common words count less), a projection of the model's 384 axes to 256, and the map from those 256
  back to the model's space (a least-squares fit of the full model's vectors of titles and title
  fragments, reduced to rank 256, so the projection keeps what the map needs), and a small hidden
  layer added to the map (256 → 1,024, ReLU → the model's axes), trained with the projection and map
  on the full model's vectors of query-like texts: a mean of static token vectors cannot see which
  words go together ("deep" in "deep learning" is not the "deep" of "deep water"), the hidden layer
  reads the mean as a whole (held-out cosine to the full model's vectors 0.77 → 0.87).
- **The token vectors**, distilled at build time from the digest's own model (each kept token read
  alone between ``[CLS]`` and ``[SEP]``, mean-pooled as the model pools), then weighted and projected:
  no extra package, a minute or two once per model, kept in the cache folder.

The site gets the token vectors as int8 with a float32 scale per token (the meaning files' vector
format) and the map likewise; see ``generator.site.meaning_index``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

RECIPE_FILE = Path(__file__).with_name("query_encoder.npz")
DISTIL_VERSION = "1"
"""Part of the cached token vectors' key: raise it when the distillation changes."""
DISTIL_BATCH = 1024


@dataclass(frozen=True)
class Recipe:
    """What ``benchmarks/train_query_encoder.py`` fitted: see the module's docstring."""

    model: str
    token_ids: np.ndarray
    """The kept tokens' vocabulary ids, ascending (int32)."""
    weights: np.ndarray
    """Each kept token's weight (float32)."""
    projection: np.ndarray
    """Model axes × encoder axes (float32)."""
    map: np.ndarray
    """Encoder axes × model axes (float32)."""
    bias: np.ndarray
    """Model axes (float32)."""
    hidden_in: np.ndarray
    """Encoder axes × hidden units (float32)."""
    hidden_bias: np.ndarray
    """Hidden units (float32)."""
    hidden_out: np.ndarray
    """Hidden units × model axes (float32)."""

    def save(self, path: Path) -> None:
        np.savez_compressed(
            path,
            model=np.array(self.model),
            token_ids=self.token_ids.astype(np.int32),
            weights=self.weights.astype(np.float32),
            projection=self.projection.astype(np.float32),
            map=self.map.astype(np.float32),
            bias=self.bias.astype(np.float32),
            # Half precision: the site ships them as int8 rows, and the wheel is 2.5 MB smaller.
            hidden_in=self.hidden_in.astype(np.float16),
            hidden_bias=self.hidden_bias.astype(np.float32),
            hidden_out=self.hidden_out.astype(np.float16),
        )

    @staticmethod
    def load(path: Path = RECIPE_FILE) -> Recipe:
        with np.load(path) as data:
            return Recipe(
                str(data["model"]),
                data["token_ids"],
                data["weights"],
                data["projection"],
                data["map"],
                data["bias"],
                data["hidden_in"].astype(np.float32),
                data["hidden_bias"],
                data["hidden_out"].astype(np.float32),
            )

    def fingerprint(self) -> str:
        digest = hashlib.sha256()
        parts = (self.token_ids, self.weights, self.projection, self.map, self.bias)
        for part in (*parts, self.hidden_in, self.hidden_bias, self.hidden_out):
            digest.update(np.ascontiguousarray(part).tobytes())
        return digest.hexdigest()[:16]


@dataclass(frozen=True)
class QueryEncoder:
    """Token vectors (weighted and projected), the map into the model's space and the hidden layer
    added to it."""

    token_ids: np.ndarray
    token_vectors: np.ndarray
    """Kept tokens × encoder axes (float32)."""
    map: np.ndarray
    bias: np.ndarray
    hidden_in: np.ndarray
    hidden_bias: np.ndarray
    hidden_out: np.ndarray

    def mapped(self, mean: np.ndarray) -> np.ndarray:
        """A token mean (encoder axes) in the model's space, before normalising: the map plus the
        hidden layer's ReLU units."""
        hidden = np.maximum(mean @ self.hidden_in + self.hidden_bias, 0.0)
        return mean @ self.map + self.bias + hidden @ self.hidden_out

    def encode(self, token_ids: Sequence[Sequence[int]]) -> np.ndarray:
        """Each text's vector in the model's space (normalised), from its token ids without ``[CLS]``
        and ``[SEP]``: the mean of its kept tokens' vectors, mapped. A text of no kept token gets zeros
        (it is near nothing)."""
        rows = {int(token): row for row, token in enumerate(self.token_ids)}
        out = np.zeros((len(token_ids), self.map.shape[1]), dtype=np.float32)
        for at, ids in enumerate(token_ids):
            kept = [rows[int(token)] for token in ids if int(token) in rows]
            if kept:
                out[at] = self.mapped(self.token_vectors[kept].mean(axis=0))
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)


def encoder_for(recipe: Recipe, raw_token_vectors: np.ndarray) -> QueryEncoder:
    """The encoder from the model's own vectors of the kept tokens (one row each, the recipe's order)."""
    weighted = raw_token_vectors.astype(np.float32) * recipe.weights[:, None]
    return QueryEncoder(
        recipe.token_ids,
        weighted @ recipe.projection,
        recipe.map,
        recipe.bias,
        recipe.hidden_in,
        recipe.hidden_bias,
        recipe.hidden_out,
    )


def raw_token_vectors(model: object, token_ids: np.ndarray) -> np.ndarray:
    """The model's output for each token read alone (``[CLS] token [SEP]``), mean-pooled over the three
    as sentence-transformers pools a text: Model2Vec's distillation, without its package (which pins
    other versions of the libraries the build uses). ``model`` is a loaded ``SentenceTransformer``."""
    import torch

    transformer = model[0]  # type: ignore[index]
    tokenizer = transformer.tokenizer
    bert = transformer.auto_model.eval()
    out = np.zeros((len(token_ids), bert.config.hidden_size), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, len(token_ids), DISTIL_BATCH):
            middle = torch.as_tensor(token_ids[start : start + DISTIL_BATCH], dtype=torch.long)[:, None]
            ids = torch.cat(
                [
                    torch.full_like(middle, tokenizer.cls_token_id),
                    middle,
                    torch.full_like(middle, tokenizer.sep_token_id),
                ],
                dim=1,
            )
            hidden = bert(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state
            out[start : start + len(middle)] = hidden.float().mean(dim=1).numpy()
    return out


def recipe_for(model_name: str) -> Recipe | None:
    """The shipped recipe when it was fitted for ``model_name``; None for another model (the search
    box then offers the full model only)."""
    if not RECIPE_FILE.is_file():
        return None
    recipe = Recipe.load()
    if model_name not in (recipe.model, f"sentence-transformers/{recipe.model}"):
        return None
    return recipe


def distilled_token_vectors(model_name: str, recipe: Recipe) -> np.ndarray:
    """The model's own vectors of the recipe's kept tokens (``raw_token_vectors``), the model loaded
    offline for them."""
    from sentence_transformers import SentenceTransformer

    from generator.analysis.onnx_export import model_location

    model = SentenceTransformer(model_location(model_name), device="cpu")
    return raw_token_vectors(model, recipe.token_ids)

"""Fit the small query encoder's recipe (``generator/analysis/query_encoder.npz``) on ``scale_50k.jsonl``.

Only the 50,000-paper scale corpus is read (19 conferences, 1987–2025, no keywords or labels): none of
the three query sets of ``benchmarks/search_relevance.py`` (NeurIPS 2023 keywords, NLP tracks, CVPR
2019 sessions) nor ICML 2024 is touched, so their P@10 measures a fit that never saw them.

1. Token counts over every title and abstract (the model's tokenizer): tokens seen at least
   ``--least`` times are kept (the rest cost 260 bytes each in the reader's download for words that
   50,000 papers hardly use).
2. Each kept token's vector: the model's output for the token alone (``query_encoder.raw_token_vectors``),
   weighted by smooth inverse frequency ``a / (a + p)``.
3. Training texts like readers' queries: titles and fragments of 1–5 words of titles and abstracts,
   embedded by the full model (the target). Their token means are regressed on the targets (ridge,
   with a bias); the fitted map is reduced to rank ``--dimensions`` (the top right singular vectors of
   the fitted values), which gives the projection the site's token table uses.
4. ``a``, the ridge and the kept-token floor are chosen on held-out scale_50k texts (cosine to the full
   model's vector), then the recipe is refitted on all training texts.

    PYTHONPATH=. python benchmarks/train_query_encoder.py ../shared/corpora/scale_50k.jsonl \\
        --work /tmp/query-encoder [--write]

Deterministic (seeded sampling, closed-form fits); the distilled token vectors depend on the model only.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from generator.analysis.embed import DEFAULT_MODEL
from generator.analysis.onnx_export import model_location
from generator.analysis.query_encoder import RECIPE_FILE, Recipe, encoder_for, raw_token_vectors
from generator.analysis.text import strip_markup

TITLES = 10_000
TITLE_FRAGMENTS = 4_000
ABSTRACT_FRAGMENTS = 4_000
HELD_OUT = 2_000


def fragment(text: str, rng: np.random.Generator) -> str:
    words = text.split()
    size = int(rng.integers(1, 6))
    start = int(rng.integers(0, max(1, len(words) - size + 1)))
    return " ".join(words[start : start + size])


def training_texts(rows: list[dict]) -> list[str]:
    rng = np.random.default_rng(0)
    picked = rng.choice(len(rows), TITLES + TITLE_FRAGMENTS, replace=False)
    texts = [strip_markup(rows[i]["title"]) for i in picked[:TITLES]]
    texts += [fragment(strip_markup(rows[i]["title"]), rng) for i in picked[TITLES:]]
    texts += [
        fragment(strip_markup(rows[i]["abstract"]), rng)
        for i in rng.choice(len(rows), ABSTRACT_FRAGMENTS, replace=False)
    ]
    return texts


def cached(path: Path, make) -> np.ndarray:
    if path.is_file():
        return np.load(path)
    started = time.perf_counter()
    value = make()
    np.save(path, value)
    print(f"  {path.name}: {time.perf_counter() - started:.0f} s", flush=True)
    return value


def token_means(ids: list[list[int]], kept: np.ndarray, vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each text's mean of its kept tokens' rows of ``vectors``, and whether it had any."""
    row = np.full(int(kept.max()) + 1 if len(kept) else 1, -1, dtype=np.int64)
    row[kept] = np.arange(len(kept))
    out = np.zeros((len(ids), vectors.shape[1]), dtype=np.float64)
    has = np.zeros(len(ids), dtype=bool)
    for at, text_ids in enumerate(ids):
        rows = [row[t] for t in text_ids if t < len(row) and row[t] >= 0]
        if rows:
            out[at] = vectors[rows].mean(axis=0)
            has[at] = True
    return out, has


def fit(x: np.ndarray, y: np.ndarray, ridge: float, rank: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Projection (axes × rank), map (rank × axes) and bias: ridge regression of ``y`` on ``x``, reduced
    to ``rank`` along the fitted values' top singular directions."""
    mean_x, mean_y = x.mean(axis=0), y.mean(axis=0)
    xc, yc = x - mean_x, y - mean_y
    full = np.linalg.solve(xc.T @ xc + ridge * len(x) * np.eye(x.shape[1]), xc.T @ yc)
    _, _, directions = np.linalg.svd(xc @ full, full_matrices=False)
    basis = directions[:rank].T  # axes × rank, orthonormal columns
    projection = full @ basis
    return projection, basis.T, mean_y - mean_x @ projection @ basis.T


def cosines(predicted: np.ndarray, target: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(predicted, axis=1) * np.linalg.norm(target, axis=1)
    return (predicted * target).sum(axis=1) / np.where(norms > 0, norms, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--work", type=Path, default=Path("/tmp/query-encoder"))
    parser.add_argument("--dimensions", type=int, default=256)
    parser.add_argument("--write", action="store_true", help=f"write {RECIPE_FILE.name} into the package")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)

    import torch
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    model = SentenceTransformer(model_location(DEFAULT_MODEL), device="cpu")
    tokenizer = model.tokenizer
    rows = [json.loads(line) for line in args.corpus.read_text(encoding="utf-8").splitlines() if line.strip()]

    def count_tokens() -> np.ndarray:
        counts = np.zeros(tokenizer.vocab_size, dtype=np.int64)
        texts = [strip_markup(row["title"]) + ". " + strip_markup(row["abstract"]) for row in rows]
        for start in range(0, len(texts), 2000):
            for ids in tokenizer(texts[start : start + 2000], add_special_tokens=False)["input_ids"]:
                np.add.at(counts, ids, 1)
        return counts

    counts = cached(args.work / "counts.npy", count_tokens)
    counts[tokenizer.all_special_ids] = 0
    every_token = np.arange(tokenizer.vocab_size)
    raw = cached(args.work / "tokens.npy", lambda: raw_token_vectors(model, every_token))
    texts = training_texts(rows)
    target = cached(
        args.work / "train_y.npy",
        lambda: model.encode(texts, batch_size=128, normalize_embeddings=True, convert_to_numpy=True),
    )
    ids = tokenizer(texts, add_special_tokens=False)["input_ids"]
    train, held = slice(HELD_OUT, None), slice(0, HELD_OUT)
    probability = counts / counts.sum()

    def score(least: int, smoothing: float, ridge: float, on_all: bool = False):
        kept = np.flatnonzero(counts >= least).astype(np.int32)
        weights = (smoothing / (smoothing + probability[kept])).astype(np.float32)
        x, has = token_means(ids, kept, raw[kept] * weights[:, None])
        part = slice(None) if on_all else train
        use = has[part]
        projection, mapping, bias = fit(x[part][use], target[part][use], ridge, args.dimensions)
        recipe = Recipe(DEFAULT_MODEL, kept, weights, projection, mapping, bias)
        encoder = encoder_for(recipe, raw[kept])
        predicted = encoder.encode([ids[i] for i in range(HELD_OUT)])
        return recipe, float(cosines(predicted, target[held]).mean())

    print(f"{'least':>6}{'a':>8}{'ridge':>8}{'tokens':>8}{'MB':>6}{'held-out cosine':>17}")
    best = None
    for least in (5,):
        for smoothing in (1e-3, 1e-2, 1e-1, 1.0):
            for ridge in (1e-6, 1e-5, 1e-4):
                recipe, value = score(least, smoothing, ridge)
                size = len(recipe.token_ids) * (args.dimensions + 4) / 1e6
                print(
                    f"{least:6}{smoothing:8.0e}{ridge:8.0e}{len(recipe.token_ids):8}{size:6.2f}{value:17.4f}"
                )
                if best is None or value > best[0] + 1e-3 or (value > best[0] - 1e-3 and least > best[1][0]):
                    best = (value, (least, smoothing, ridge))
    assert best is not None
    least, smoothing, ridge = best[1]
    recipe, _ = score(least, smoothing, ridge, on_all=True)
    print(f"chosen: least {least}, a {smoothing:.0e}, ridge {ridge:.0e} (held-out cosine {best[0]:.4f})")
    if args.write:
        recipe.save(RECIPE_FILE)
        print(f"wrote {RECIPE_FILE} ({RECIPE_FILE.stat().st_size / 1e6:.2f} MB), {recipe.fingerprint()}")


if __name__ == "__main__":
    main()

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
   model's vector).
5. The hidden layer (``--hidden`` ReLU units, added to the map) is trained with the projection and the
   map, from the linear fit, on more query-like texts (``MORE_TEXTS``: titles, fragments, and lists of
   2–4 fragments joined by commas, "and" or "&", as readers list subjects), minimising 1 − cosine to the
   full model's vectors (Adam, cosine-annealed rate, seeded, one thread). The held-out texts are never
   trained on; their cosine is printed before and after.

    PYTHONPATH=. python benchmarks/train_query_encoder.py ../shared/corpora/scale_50k.jsonl \\
        --work /tmp/query-encoder [--write]

Deterministic (seeded sampling, closed-form fits, a seeded one-thread training); the distilled token
vectors depend on the model only. The hidden layer's training takes about 10 minutes (one thread),
embedding its texts by the full model about 12 minutes once (cached in ``--work``).
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
MORE_TEXTS = ((1, 20_000, 15_000, 15_000, 15_000), (7, 25_000, 25_000, 40_000, 40_000))
"""Sets of query-like texts for the hidden layer: seed, titles, title fragments, abstract fragments,
lists. The last ``LIST_HELD_OUT`` lists of the first set are held out."""
LIST_HELD_OUT = 1_000
EPOCHS = 40
BATCH = 256


def fragment(text: str, rng: np.random.Generator, shortest: int = 1, longest: int = 5) -> str:
    words = text.split()
    size = int(rng.integers(shortest, longest + 1))
    start = int(rng.integers(0, max(1, len(words) - size + 1)))
    return " ".join(words[start : start + size])


def query_like_texts(
    rows: list[dict], seed: int, titles: int, fragments: int, passages: int, lists: int
) -> tuple[list[str], list[int]]:
    """Titles, fragments of 1–5 words of titles and of abstracts, and lists of 2–4 fragments of 1–3
    words of one paper joined as readers list subjects ("a, b & c", "a and b"); and the rows they come
    from."""
    rng = np.random.default_rng(seed)
    picked = rng.permutation(len(rows))
    texts = [strip_markup(rows[i]["title"]) for i in picked[:titles]]
    texts += [fragment(strip_markup(rows[i]["title"]), rng) for i in picked[titles : titles + fragments]]
    sources = [*map(int, picked[: titles + fragments])]
    chosen = rng.choice(len(rows), passages)
    texts += [fragment(strip_markup(rows[i]["abstract"]), rng) for i in chosen]
    sources += map(int, chosen)
    for i in rng.choice(len(rows), lists):
        source = strip_markup(rows[i]["title"]) + " " + strip_markup(rows[i]["abstract"])
        parts = [fragment(source, rng, 1, 3).strip(".,;:()") for _ in range(int(rng.integers(2, 5)))]
        joiner = (", ", " & ", " and ")[int(rng.integers(0, 3))]
        last = ", & " if joiner == " & " and len(parts) > 2 else joiner
        texts.append(", ".join(parts[:-1]) + last + parts[-1])
        sources.append(int(i))
    return texts, sources


def training_texts(rows: list[dict]) -> tuple[list[str], list[int]]:
    """The texts and the rows they come from."""
    rng = np.random.default_rng(0)
    picked = rng.choice(len(rows), TITLES + TITLE_FRAGMENTS, replace=False)
    texts = [strip_markup(rows[i]["title"]) for i in picked[:TITLES]]
    texts += [fragment(strip_markup(rows[i]["title"]), rng) for i in picked[TITLES:]]
    passages = rng.choice(len(rows), ABSTRACT_FRAGMENTS, replace=False)
    texts += [fragment(strip_markup(rows[i]["abstract"]), rng) for i in passages]
    return texts, [*map(int, picked), *map(int, passages)]


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


def no_hidden_layer(mapping: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A hidden layer of no units (the linear recipe)."""
    return (
        np.zeros((mapping.shape[0], 0), np.float32),
        np.zeros(0, np.float32),
        np.zeros((0, mapping.shape[1]), np.float32),
    )


def with_hidden_layer(linear: Recipe, means: np.ndarray, targets: np.ndarray, hidden: int) -> Recipe:
    """``linear`` with a hidden layer added to its map, trained (with the projection and the map) on
    the texts' weighted token means (model axes) towards their full-model vectors."""
    import torch

    torch.manual_seed(0)
    torch.set_num_threads(1)  # one thread: the same sums in the same order, so the same recipe
    projection = torch.nn.Parameter(torch.tensor(linear.projection, dtype=torch.float32))
    mapping = torch.nn.Parameter(torch.tensor(linear.map, dtype=torch.float32))
    bias = torch.nn.Parameter(torch.tensor(linear.bias, dtype=torch.float32))
    hidden_in = torch.nn.Linear(linear.map.shape[0], hidden)
    hidden_out = torch.nn.Linear(hidden, linear.map.shape[1])
    torch.nn.init.zeros_(hidden_out.weight)  # starts as the linear fit
    torch.nn.init.zeros_(hidden_out.bias)
    parameters = [projection, mapping, bias, *hidden_in.parameters(), *hidden_out.parameters()]
    optimiser = torch.optim.Adam(parameters, lr=1e-3)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, EPOCHS)
    x = torch.tensor(means, dtype=torch.float32)
    y = torch.tensor(targets, dtype=torch.float32)

    def mapped(batch: torch.Tensor) -> torch.Tensor:
        z = batch @ projection
        return z @ mapping + bias + hidden_out(torch.relu(hidden_in(z)))

    started = time.perf_counter()
    for epoch in range(EPOCHS):
        order = torch.randperm(len(x))
        total = 0.0
        for start in range(0, len(x), BATCH):
            batch = order[start : start + BATCH]
            loss = 1 - torch.nn.functional.cosine_similarity(mapped(x[batch]), y[batch]).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss) * len(batch)
        schedule.step()
        seconds = time.perf_counter() - started
        print(f"  epoch {epoch + 1}: training cosine {1 - total / len(x):.4f} ({seconds:.0f} s)", flush=True)
    with torch.no_grad():
        # The output layer's bias goes into the map's: one bias, as the site ships it.
        return Recipe(
            linear.model,
            linear.token_ids,
            linear.weights,
            projection.numpy().copy(),
            mapping.numpy().copy(),
            (bias + hidden_out.bias).numpy().copy(),
            # In the half precision the recipe file keeps them, so what is measured and fingerprinted
            # here is what ships.
            hidden_in.weight.T.numpy().astype(np.float16).astype(np.float32),
            hidden_in.bias.numpy().copy(),
            hidden_out.weight.T.numpy().astype(np.float16).astype(np.float32),
        )


def cosines(predicted: np.ndarray, target: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(predicted, axis=1) * np.linalg.norm(target, axis=1)
    return (predicted * target).sum(axis=1) / np.where(norms > 0, norms, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--work", type=Path, default=Path("/tmp/query-encoder"))
    parser.add_argument("--dimensions", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=1024, help="the hidden layer's units")
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
    texts, text_sources = training_texts(rows)
    target = cached(
        args.work / "train_y.npy",
        lambda: model.encode(texts, batch_size=128, normalize_embeddings=True, convert_to_numpy=True),
    )
    ids = tokenizer(texts, add_special_tokens=False)["input_ids"]
    train, held = slice(HELD_OUT, None), slice(0, HELD_OUT)
    probability = counts / counts.sum()

    def score(least: int, smoothing: float, ridge: float):
        kept = np.flatnonzero(counts >= least).astype(np.int32)
        weights = (smoothing / (smoothing + probability[kept])).astype(np.float32)
        x, has = token_means(ids, kept, raw[kept] * weights[:, None])
        use = has[train]
        projection, mapping, bias = fit(x[train][use], target[train][use], ridge, args.dimensions)
        recipe = Recipe(DEFAULT_MODEL, kept, weights, projection, mapping, bias, *no_hidden_layer(mapping))
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
                    best = (value, (least, smoothing, ridge), recipe)
    assert best is not None
    least, smoothing, ridge = best[1]
    # The hidden layer starts from the linear fit without the held-out texts, so their cosine after it
    # is measured on texts no part of the recipe saw.
    linear = best[2]
    print(f"chosen: least {least}, a {smoothing:.0e}, ridge {ridge:.0e} (held-out cosine {best[0]:.4f})")

    more_texts: list[str] = []
    more_sources: list[int] = []
    more_targets = []
    for seed, *sizes in MORE_TEXTS:
        texts_of_seed, sources = query_like_texts(rows, seed, *sizes)
        more_texts += texts_of_seed
        more_sources += sources
        more_targets.append(
            cached(
                args.work / f"more-{seed}_y.npy",
                lambda texts=texts_of_seed: model.encode(
                    texts, batch_size=256, normalize_embeddings=True, convert_to_numpy=True
                ),
            )
        )
    more_ids = tokenizer(more_texts, add_special_tokens=False)["input_ids"]
    lists_end = sum(MORE_TEXTS[0][1:])
    held_lists = slice(lists_end - LIST_HELD_OUT, lists_end)
    # No text of a held-out text's paper is trained on (the same title is often drawn again).
    every_sources = text_sources + more_sources
    held_papers = {every_sources[i] for i in range(HELD_OUT)}
    held_papers |= {more_sources[i] for i in range(held_lists.start, held_lists.stop)}
    every_ids, every_target = ids + more_ids, np.vstack([target, *more_targets])
    trained_on = [
        i
        for i in range(HELD_OUT, len(every_ids))
        if every_sources[i] not in held_papers and not held_lists.start <= i - len(ids) < held_lists.stop
    ]
    print(f"hidden layer: {len(trained_on)} training texts ({len(held_papers)} held-out papers left out)")
    kept = linear.token_ids
    means, has = token_means(every_ids, kept, raw[kept] * linear.weights[:, None])
    chosen = [i for i in trained_on if has[i]]
    recipe = with_hidden_layer(linear, means[chosen], every_target[chosen], args.hidden)
    linear_encoder, encoder = encoder_for(linear, raw[kept]), encoder_for(recipe, raw[kept])
    for label, part_ids, part_target in (
        ("held-out texts", ids[:HELD_OUT], target[:HELD_OUT]),
        ("held-out lists", more_ids[held_lists], more_targets[0][held_lists]),
    ):
        before = cosines(linear_encoder.encode(part_ids), part_target).mean()
        after = cosines(encoder.encode(part_ids), part_target).mean()
        print(
            f"{label}: cosine to the full model {before:.4f} (linear) -> {after:.4f} (with the hidden layer)"
        )
    if args.write:
        recipe.save(RECIPE_FILE)
        print(f"wrote {RECIPE_FILE} ({RECIPE_FILE.stat().st_size / 1e6:.2f} MB), {recipe.fingerprint()}")


if __name__ == "__main__":
    main()

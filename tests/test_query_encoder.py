"""The quick query encoder's recipe (shipped) and what a build makes of it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from generator.analysis.query_encoder import RECIPE_FILE, Recipe, encoder_for
from generator.cache.models import query_encoder


def test_the_shipped_recipe_fits_the_default_model_and_reads_back(tmp_path: Path) -> None:
    recipe = Recipe.load()
    assert recipe.model == "all-MiniLM-L6-v2"
    kept = len(recipe.token_ids)
    assert (np.diff(recipe.token_ids) > 0).all() and recipe.weights.shape == (kept,)
    assert recipe.projection.shape == (384, recipe.map.shape[0]) and recipe.map.shape[1] == 384
    units = recipe.hidden_bias.shape[0]
    assert recipe.hidden_in.shape == (recipe.map.shape[0], units) and recipe.hidden_out.shape == (units, 384)
    # What the reader downloads for it stays within issue 39's budget (int8 + a scale per row).
    axes = recipe.map.shape[0]
    assert kept * (axes + 4) + axes * (units + 384 + 8) + units * (384 + 4) < 5_000_000
    recipe.save(tmp_path / "again.npz")
    assert Recipe.load(tmp_path / "again.npz").fingerprint() == recipe.fingerprint()
    assert RECIPE_FILE.stat().st_size < 2_500_000  # the wheel carries it


def test_another_model_gets_no_quick_encoder(tmp_path: Path) -> None:
    assert query_encoder(tmp_path, "some/other-model") is None
    assert not (tmp_path / "query-encoder").exists()


def test_the_encoder_weights_and_projects_the_models_token_vectors() -> None:
    recipe = Recipe.load()
    rng = np.random.default_rng(0)
    raw = rng.normal(size=(len(recipe.token_ids), 384)).astype(np.float32)
    encoder = encoder_for(recipe, raw)
    row = 17
    expected = (raw[row] * recipe.weights[row]) @ recipe.projection
    assert np.allclose(encoder.token_vectors[row], expected, atol=1e-4)
    vector = encoder.encode([[int(recipe.token_ids[row])]])[0]
    hidden = np.maximum(expected @ recipe.hidden_in + recipe.hidden_bias, 0)
    assert 0 < (hidden > 0).sum() < len(hidden)  # the hidden layer is used, and is not linear
    mapped = expected @ recipe.map + recipe.bias + hidden @ recipe.hidden_out
    assert np.allclose(vector, mapped / np.linalg.norm(mapped), atol=1e-5)
    # Without its hidden layer the vector is another one: the layer is part of the encoder.
    linear = expected @ recipe.map + recipe.bias
    assert float(vector @ (linear / np.linalg.norm(linear))) < 0.999

"""What the build keeps in the cache folder beside the database: the model exported for the reader's
browser (``analysis.onnx_export``) and the quick query encoder's distilled token vectors
(``analysis.query_encoder``). Each is made once per model (and recipe) and kept under a key of what
made it; each is written beside its place and renamed into it, so an interrupted build leaves no half
file. The analysis makes them; only the pipeline, through here, keeps and finds them."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from generator.analysis.embed import DEFAULT_MODEL
from generator.analysis.onnx_export import (
    EXPORT_VERSION,
    MODEL_FILE,
    OPSET,
    SETTINGS_FILE,
    VOCABULARY_FILE,
    OnnxModel,
    export_onnx,
)
from generator.analysis.query_encoder import (
    DISTIL_VERSION,
    QueryEncoder,
    distilled_token_vectors,
    encoder_for,
    recipe_for,
)


def export_folder(cache_dir: Path, model_name: str) -> Path:
    key = hashlib.sha256(f"{model_name}\0{EXPORT_VERSION}\0{OPSET}".encode()).hexdigest()[:16]
    return cache_dir / "onnx" / key


def cached_onnx_model(cache_dir: Path, model_name: str) -> OnnxModel | None:
    """The model's export in the cache folder, if it was made and is complete."""
    folder = export_folder(cache_dir, model_name)
    try:
        settings = json.loads((folder / SETTINGS_FILE).read_text(encoding="utf-8"))
        if not (folder / MODEL_FILE).is_file() or not (folder / VOCABULARY_FILE).is_file():
            return None
        return OnnxModel(
            folder, bool(settings["lowercase"]), int(settings["max_tokens"]), int(settings["dimensions"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def onnx_model(cache_dir: Path, model_name: str = DEFAULT_MODEL) -> OnnxModel:
    """The model's int8 ONNX export, made on first use and kept in ``cache_dir``."""
    found = cached_onnx_model(cache_dir, model_name)
    if found is not None:
        return found
    folder = export_folder(cache_dir, model_name)
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".export-", dir=folder.parent))
    try:
        exported = export_onnx(model_name, staging)
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return OnnxModel(folder, exported.lowercase, exported.max_tokens, exported.dimensions)


def query_encoder(cache_dir: Path, model_name: str = DEFAULT_MODEL) -> QueryEncoder | None:
    """The digest's query encoder, distilled from its model on first use and kept in ``cache_dir``;
    None when the shipped recipe was fitted for another model."""
    recipe = recipe_for(model_name)
    if recipe is None:
        return None
    key = hashlib.sha256(f"{model_name}\0{DISTIL_VERSION}\0{recipe.fingerprint()}".encode()).hexdigest()[:16]
    path = cache_dir / "query-encoder" / f"{key}.npy"
    try:
        raw = np.load(path)
        if raw.shape[0] != len(recipe.token_ids):
            raise ValueError("stale")
    except (OSError, ValueError):
        raw = distilled_token_vectors(model_name, recipe)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, staging = tempfile.mkstemp(suffix=".npy", dir=path.parent)
        with os.fdopen(handle, "wb") as file:
            np.save(file, raw)
        os.replace(staging, path)
    return encoder_for(recipe, raw)

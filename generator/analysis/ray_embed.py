"""Embedding across a Ray cluster with Ray Data (the optional ``ray`` extra, ``--ray ADDRESS``).

``RayEmbedder`` is one more backend behind the ``Embedder`` interface: the build wraps it in the same
content-addressed cache as the local model, under the same name (model and precision), so vectors
computed on a cluster serve every later build on any machine, and a build after it embeds nothing.

Each Ray actor loads the model once and embeds batches of texts with the local backend's own code
(``SentenceTransformerEmbedder``), so a worker computes what a single process computes; only the
grouping of texts into batches differs, which changes float32 vectors by rounding alone
(``tests/test_ray.py`` holds them to 1e-5 of the single-process ones).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from generator.analysis.embed import DEFAULT_MODEL, ProgressCallback, SentenceTransformerEmbedder, check_spans
from generator.errors import DigestError

LOCAL = "local"
"""``--ray local`` starts a Ray instance on this machine for the build (and stops it after)."""
TEXTS_PER_RAY_BATCH = 512
"""Texts handed to an actor at a time: large enough that sorting by length inside it pads little,
small enough that a slow actor does not hold up the end of the job."""


class _EmbeddingActor:
    """Runs on a Ray worker: the model, loaded once per actor, and what it embeds."""

    def __init__(self, model_name: str, precision: str, threads: int) -> None:
        import torch

        torch.set_num_threads(max(1, threads))
        self.backend = SentenceTransformerEmbedder(model_name, precision=precision, device="cpu")

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        texts = [str(text) for text in batch["text"]]
        if "spans" in batch:
            return {
                "index": batch["index"],
                "vector": self.backend.embed_spans(texts, np.stack(batch["spans"])),
            }
        return {"index": batch["index"], "vector": self.backend.embed(texts)}


class RayEmbedder:
    """Embeds with actors on a Ray cluster; ``address`` is what ``ray.init`` takes (``auto``,
    ``ray://HOST:10001``, ``HOST:6379``) or ``local`` for an instance on this machine."""

    def __init__(
        self,
        address: str,
        model_name: str = DEFAULT_MODEL,
        precision: str = "auto",
        actors: int | None = None,
        cpus_per_actor: int = 1,
    ) -> None:
        # The precision is settled here, on the driver, and every worker uses it as given: it is
        # part of the cache key, so all vectors under one name must be computed the same way.
        local = SentenceTransformerEmbedder(model_name, precision=precision, device="cpu")
        self._model_name = model_name
        self.precision = local.precision
        self._name = local.name
        self.address = address
        self.actors = actors
        self.cpus_per_actor = cpus_per_actor
        self._started_here = False

    @property
    def name(self) -> str:
        return self._name

    def _connect(self):  # -> the ray module
        if self.address == LOCAL:
            # A build's own instance lives on loopback: Ray otherwise binds its processes to the
            # machine's network address. Read when Ray is imported.
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        try:
            import ray
        except ImportError:
            raise DigestError(
                "--ray needs Ray Data: pip install 'paper-digest-site[ray]' (on the cluster's machines too)"
            ) from None
        if not ray.is_initialized():
            # No usage reports to the Ray project from a digest build.
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            try:
                if self.address == LOCAL:
                    # On loopback: a build's own instance needs no network interface.
                    ray.init(
                        _node_ip_address="127.0.0.1",
                        include_dashboard=False,
                        log_to_driver=False,
                        configure_logging=False,
                    )
                    self._started_here = True
                else:
                    ray.init(
                        address=self.address,
                        include_dashboard=False,
                        log_to_driver=False,
                        configure_logging=False,
                    )
            except (ConnectionError, RuntimeError, ValueError) as error:
                raise DigestError(f"cannot reach the Ray cluster at {self.address!r}: {error}") from None
        return ray

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return self._run([{"index": index, "text": text} for index, text in enumerate(texts)], progress)

    def embed_spans(
        self, texts: Sequence[str], spans: np.ndarray, progress: ProgressCallback | None = None
    ) -> np.ndarray:
        spans = check_spans(texts, spans)
        if not texts:
            return np.zeros((0, 1 + spans.shape[1], 0), dtype=np.float32)
        rows = [{"index": index, "text": text, "spans": spans[index]} for index, text in enumerate(texts)]
        return self._run(rows, progress)

    def _run(self, rows: list[dict], progress: ProgressCallback | None) -> np.ndarray:
        """The actors' vectors for ``rows`` (each with its ``index``), in row order."""
        ray = self._connect()
        # The build reports progress itself; Ray Data's own bars would interleave with it.
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        context.print_on_execution_start = False
        cpus = int(ray.cluster_resources().get("CPU", 1))
        actors = self.actors or max(1, cpus // self.cpus_per_actor)
        dataset = ray.data.from_items(rows, override_num_blocks=max(1, len(rows) // TEXTS_PER_RAY_BATCH))
        vectors = dataset.map_batches(
            _EmbeddingActor,
            fn_constructor_kwargs={
                "model_name": self._model_name,
                "precision": self.precision,
                "threads": self.cpus_per_actor,
            },
            batch_size=TEXTS_PER_RAY_BATCH,
            batch_format="numpy",
            concurrency=min(actors, max(1, -(-len(rows) // TEXTS_PER_RAY_BATCH))),
            num_cpus=self.cpus_per_actor,
        )
        out: np.ndarray | None = None
        for batch in vectors.iter_batches(batch_size=None, batch_format="numpy"):
            found = np.asarray(np.stack(batch["vector"]), dtype=np.float32)
            if out is None:
                out = np.empty((len(rows), *found.shape[1:]), dtype=np.float32)
            out[np.asarray(batch["index"], dtype=np.int64)] = found
            if progress:
                progress(len(found))
        assert out is not None
        return out

    def close(self) -> None:
        """Stop the Ray instance this embedder started (``local``); a cluster is left running."""
        if self._started_here:
            import ray

            ray.shutdown()
            self._started_here = False

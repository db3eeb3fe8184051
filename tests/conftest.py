from __future__ import annotations

import gzip
import hashlib
import json
import posixpath
import re
from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class FakeEmbedder:
    """Deterministic bag-of-words hashing: texts sharing words get similar vectors. No model needed."""

    name = "fake-hashing-64"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str], progress=None) -> np.ndarray:
        self.calls.append(len(texts))
        vectors = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                bucket = int(hashlib.md5(word.encode()).hexdigest(), 16) % 64
                vectors[row, bucket] += 1.0
            vectors[row, 0] += 0.01  # no all-zero rows
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        if progress:
            progress(len(texts))
        return vectors

    def embed_spans(self, texts: Sequence[str], spans, progress=None) -> np.ndarray:
        """Each text and each of its ranges hashed alone (a zero row for an empty range)."""
        spans = np.asarray(spans)
        out = np.zeros((len(texts), 1 + spans.shape[1], 64), dtype=np.float32)
        if len(texts):
            out[:, 0] = self.embed(texts)
        for part in range(spans.shape[1]):
            pieces = [text[start:end] for text, (start, end) in zip(texts, spans[:, part], strict=True)]
            filled = [row for row, piece in enumerate(pieces) if piece.strip()]
            if filled:
                out[filled, 1 + part] = self.embed([pieces[row] for row in filled])
        return out


def embed_views(embedder, texts: Sequence[str]):
    """``texts`` embedded as the analysis embeds a paper: whole, with their opening (first two
    sentences) and, for about half of them (chosen by their text, so a paper keeps its title wherever
    it is), a title (its first six words) as parts; the others have no title."""
    from generator.analysis.related import OPENING_SENTENCES, PaperEmbeddings
    from generator.analysis.text import split_sentences

    spans = np.zeros((len(texts), 2, 2), dtype=np.int64)
    for row, text in enumerate(texts):
        if hashlib.md5(text.encode()).digest()[0] % 2 == 0:
            spans[row, 0] = (0, len(" ".join(text.split()[:6])))
        opening = " ".join(split_sentences(text)[:OPENING_SENTENCES])
        spans[row, 1] = (0, len(opening))
    vectors = embedder.embed_spans(texts, spans)
    return PaperEmbeddings(text=vectors[:, 0], title=vectors[:, 1], opening=vectors[:, 2])


def search_records(site: Path) -> list[dict]:
    """The pages in the site's Pagefind index as Pagefind stores them (``url``, ``content``, ``meta``):
    one gzipped fragment each, after Pagefind's signature."""
    records = []
    for fragment in sorted((site / "pagefind" / "fragment").glob("*.pf_fragment")):
        data = gzip.decompress(fragment.read_bytes())
        assert data.startswith(b"pagefind_dcd"), fragment
        records.append(json.loads(data[len(b"pagefind_dcd") :]))
    return records


@pytest.fixture
def fake_embedder(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    # The readers' stray model weighs KeyBERT's similarities, which the fake vectors make meaningless:
    # with them it would withhold keywords at random. Its own tests give it explicitly.
    monkeypatch.setattr("generator.analysis.keywords.keyword_strays", lambda: None)
    return FakeEmbedder()


def write_text_input(path: Path, name: str, abstracts: Sequence[str]) -> Path:
    path.write_text(name + "\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    return path


SAMPLE_ABSTRACTS = [
    "We present GraphMix, a method for semi-supervised node classification with graph neural networks. "
    "Graph neural networks learn node representations by message passing over the graph.",
    "We study graph neural networks for node classification and show that message passing "
    "oversmooths node representations on deep graphs.",
    "We introduce **C**ontrolled **P**robability sampling for large language models, which improves "
    "decoding of large language models on reasoning benchmarks with $p < 0.5$ thresholds.",
    "Large language models can be steered at decoding time. We propose a reward-guided decoding method "
    "for large language models and evaluate it on reasoning benchmarks.",
    "We analyse stochastic gradient descent with momentum for convex optimization and prove a convergence "
    "rate of $O(1/\\sqrt{T})$ for smooth convex objectives.",
    "This paper studies convex optimization with stochastic gradient descent and derives convergence "
    "rates for adaptive step sizes in smooth convex problems.",
    "We propose a diffusion model for image generation that denoises images in a learned latent space "
    "and improves image generation quality.",
]


@pytest.fixture(scope="session", params=["mkdocs", "zensical"])
def engine(request: pytest.FixtureRequest) -> str:
    """The engine a browser test's site is rendered with: every such test runs against both sites
    (``-k mkdocs`` or ``-k zensical`` picks one)."""
    if request.param == "zensical":
        pytest.importorskip(
            "zensical", reason="the zensical engine: pip install 'paper-digest-site[zensical]'"
        )
    return request.param


@pytest.fixture(scope="session")
def bundled_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The bundled ICML 2024 digest built once with the real model, as a user would build it."""
    from generator.cli import main

    root = tmp_path_factory.mktemp("bundled")
    paths = {"docs": root / "docs", "site": root / "site", "cache": root / "cache"}
    arguments = ["build", "--quiet", "--project", str(PROJECT_ROOT)]
    for option in ("docs", "site", "cache"):
        arguments += [f"--{option}-dir", str(paths[option])]
    assert main(arguments) == 0
    paths["arguments"] = arguments  # type: ignore[assignment]
    return paths


@pytest.fixture(scope="session")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory):
    """This checkout's wheel in a fresh virtual environment (slow: it installs every dependency)."""
    from tests.wheel_support import install_wheel

    return install_wheel(tmp_path_factory.mktemp("package"))


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for every browser test (Playwright allows one sync session at a time)."""
    from tests.browser_support import launched_chromium

    with launched_chromium() as browser:
        yield browser


class _Addresses(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is not None and (name, tag) in {("href", "a"), ("href", "link"), ("src", "script")}:
                self.found.append(value)


def broken_links(site: Path) -> list[str]:
    """Every address in the site's pages (links, stylesheets, scripts) that leads to no file in it.

    Lists of links are written as HTML, which MkDocs does not check: this is their check."""
    broken = []
    for page in sorted(site.rglob("*.html")):
        parser = _Addresses()
        parser.feed(page.read_text(encoding="utf-8"))
        folder = page.parent.relative_to(site).as_posix()
        for address in parser.found:
            path = urlsplit(address).path
            if urlsplit(address).scheme or address.startswith(("#", "//")) or not path:
                continue
            # An absolute path (the 404 page's) is read from the root of the site's address.
            target = posixpath.normpath(posixpath.join(folder, unquote(path)).lstrip("/"))
            if target.startswith("../") or not (
                (site / target).is_file() or (site / target / "index.html").is_file()
            ):
                broken.append(f"{page.relative_to(site)}: {address}")
    return broken

"""Related papers in the joint space, topics, the paper map and their pages (fake embedder, no model)."""

from __future__ import annotations

import json
import re
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer

from generator.analysis import paper_map, related
from generator.analysis.analyse import analyse
from generator.analysis.explain import (
    closeness_text,
    keyphrase_vocabulary,
    shared_keyphrases,
    similarity_scale,
)
from generator.analysis.paper_map import map_layout
from generator.analysis.related import (
    LEXICAL_MAX_WORDS,
    MIN_PAPERS_FOR_JOINT_SPACE,
    PaperEmbeddings,
    count_phrases,
    fit_space,
    joint_vectors,
    paper_space,
    phrases,
    related_papers,
    same_word,
)
from generator.analysis.topics import (
    as_written,
    assign_topics,
    carried,
    find_topics,
    fit_topics,
    label_topics,
    pick_label,
    structured_topic_count,
    topic_count,
)
from generator.build import BuildRequest, build_digest
from generator.cache.database import CACHE_DATABASE
from generator.model import Collection, Keyword, Paper, SourceLocation
from generator.progress import Reporter
from generator.project.settings import load_settings
from generator.site.plain_math import readable_title
from generator.site.render import MAP_DATA, MAP_DATA_PREFIX, PageRenderer
from tests.conftest import PROJECT_ROOT, SAMPLE_ABSTRACTS, FakeEmbedder, embed_views

THEMES = {
    "graphs": "graph neural networks node classification message passing graph convolution edges "
    "heterophily oversmoothing molecular graphs link prediction",
    "language": "large language models decoding reasoning prompts tokens instruction tuning "
    "chain-of-thought hallucination retrieval augmented generation",
    "optimisation": "stochastic gradient descent convex optimization convergence rate step size "
    "momentum adaptive methods nonconvex objectives variance reduction",
}
COMMON = ["we", "study", "results", "experiments", "data", "benchmarks", "analysis", "approach"]


def themed_corpus(per_theme: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """Abstracts drawn from three disjoint vocabularies, plus words every abstract uses."""
    random = np.random.default_rng(seed)
    texts, themes = [], []
    for number in range(per_theme):
        for theme, vocabulary in THEMES.items():
            words = vocabulary.split()
            picked = [words[i] for i in random.integers(0, len(words), 30)] + list(random.choice(COMMON, 8))
            texts.append(f"Paper {number} on {theme}. " + " ".join(picked) + ".")
            themes.append(theme)
    return texts, themes


def papers_of(texts: list[str]) -> tuple[Paper, ...]:
    """Themed texts as papers: the first sentence is the title."""
    location = SourceLocation(Path("x.jsonl"), 1)
    return tuple(
        Paper(id=f"p{i}", abstract=text.split(". ", 1)[1], title=text.split(". ", 1)[0], source=location)
        for i, text in enumerate(texts)
    )


def themed_digest(per_theme: int, embedder: FakeEmbedder):
    texts, themes = themed_corpus(per_theme)
    collection = Collection("Themes", papers_of(texts))
    return analyse(collection, embedder, Reporter(quiet=True), 5, 5).complete(), themes


def map_data(script: str) -> dict:
    """The map's data from the script that carries it."""
    assert script.startswith(MAP_DATA_PREFIX) and script.endswith(";\n")
    return json.loads(script.removeprefix(MAP_DATA_PREFIX).removesuffix(";\n"))


# --- related papers ------------------------------------------------------------------------------


def test_related_in_the_joint_space_are_sane_and_explained(fake_embedder) -> None:
    texts, themes = themed_corpus(15)
    embeddings = embed_views(fake_embedder, texts)
    keywords = [[Keyword(themes[i], 1.0), Keyword(f"own {i}", 1.0)] for i in range(len(texts))]
    space = paper_space(texts, embeddings)
    # the embedding, the LSA, the opening and the title, side by side
    assert space.vectors.shape[0] == len(texts) and space.vectors.shape[1] > 3 * embeddings.text.shape[1]
    found = related_papers(space, keywords, 5)
    same_theme = []
    for index, near in enumerate(found):
        assert len(near) == 5
        assert index not in [r.index for r in near]
        scores = [r.score for r in near]
        assert scores == sorted(scores, reverse=True)
        assert all(0 < s <= 1 for s in scores)
        for r in near:
            both = {k.text for k in keywords[index]} & {k.text for k in keywords[r.index]}
            assert set(r.shared_keywords) <= both
            same_theme.append(themes[r.index] == themes[index])
    assert np.mean(same_theme) > 0.9


def test_the_opening_and_a_given_title_are_views_of_their_own(fake_embedder) -> None:
    texts, _ = themed_corpus(20)
    embeddings = embed_views(fake_embedder, texts)
    counts = count_phrases(texts)
    fit = fit_space(counts, embeddings)
    assert fit.opening_mean is not None and fit.title_mean is not None
    vectors = joint_vectors(fit, counts, embeddings)
    titled = np.flatnonzero(embeddings.has_title)
    assert MIN_PAPERS_FOR_JOINT_SPACE <= len(titled) < len(texts)
    np.testing.assert_allclose(np.linalg.norm(vectors[titled], axis=1), 1, atol=1e-5)

    # The same paper without its title: its title block is zero, and its dot product with every paper
    # loses exactly their title term (the other views keep their weight, nothing is renormalised).
    paper, title_block = titled[0], slice(-embeddings.text.shape[1], None)
    untitled = embeddings.title.copy()
    untitled[paper] = 0
    without = joint_vectors(fit, counts, PaperEmbeddings(embeddings.text, embeddings.opening, untitled))
    assert not without[paper, title_block].any()
    np.testing.assert_allclose(
        without[paper] @ vectors.T,
        vectors[paper] @ vectors.T - (vectors[paper, title_block] @ vectors[:, title_block].T),
        atol=1e-5,
    )
    assert np.linalg.norm(without[paper]) < 1

    # Too few papers with a title: no title view; no openings embedded: no opening view.
    few = embeddings.title.copy()
    few[titled[MIN_PAPERS_FOR_JOINT_SPACE - 1 :]] = 0
    sparse_titles = fit_space(counts, PaperEmbeddings(embeddings.text, embeddings.opening, few))
    assert sparse_titles.opening_mean is not None and sparse_titles.title_mean is None
    plain = fit_space(counts, PaperEmbeddings(embeddings.text))
    assert plain.opening_mean is None and plain.title_mean is None
    assert joint_vectors(plain, counts, PaperEmbeddings(embeddings.text)).shape[1] < vectors.shape[1]
    with pytest.raises(ValueError, match="no titles were embedded"):
        joint_vectors(fit, counts, PaperEmbeddings(embeddings.text, embeddings.opening))


def test_a_long_joint_vector_is_cut_to_the_axes_that_keep_its_dot_products(
    fake_embedder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from generator.analysis.fit import DigestFit
    from generator.analysis.topics import TopicFit
    from generator.cache.database import CacheDatabase
    from generator.cache.fit import FitStore

    texts, _ = themed_corpus(30)
    embeddings = embed_views(fake_embedder, texts)
    counts = count_phrases(texts)
    whole = joint_vectors(fit_space(counts, embeddings), counts, embeddings)
    monkeypatch.setattr(related, "JOINT_DIMENSIONS", 40)
    fit = fit_space(counts, embeddings)
    assert fit.projection is not None and fit.projection.shape == (whole.shape[1], 40)
    cut = joint_vectors(fit, counts, embeddings)
    assert cut.shape == (len(texts), 40)
    np.testing.assert_allclose(cut.T @ cut, np.eye(40) * np.diag(cut.T @ cut), atol=1e-3)  # axes orthogonal
    kept, all_of = cut @ cut.T, whole @ whole.T
    assert np.corrcoef(kept.ravel(), all_of.ravel())[0, 1] > 0.95
    assert np.all(np.linalg.norm(cut, axis=1) <= np.linalg.norm(whole, axis=1) + 1e-5)
    # kept with the digest's fit, so an edit is placed on the same axes
    store = FitStore(CacheDatabase(tmp_path / CACHE_DATABASE), fake_embedder.name)
    store.save(
        DigestFit(fake_embedder.name, ("k",), fit, TopicFit(np.zeros((0, 40)), ()), np.zeros((1, 2)), "m")
    )
    loaded = store.load()
    assert loaded is not None and loaded.space.projection is not None
    np.testing.assert_array_equal(loaded.space.projection, fit.projection)
    monkeypatch.setattr(related, "JOINT_DIMENSIONS", 10_000)
    assert fit_space(counts, embeddings).projection is None


def test_related_do_not_depend_on_chunking(fake_embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    texts, _ = themed_corpus(10)
    space = paper_space(texts, embed_views(fake_embedder, texts))
    keywords = [[] for _ in texts]
    whole = related_papers(space, keywords, 5)
    monkeypatch.setattr(related, "CHUNK_ROWS", 7)
    chunked = related_papers(space, keywords, 5)
    # Products of differently shaped blocks may differ in the last bits, so near-ties can swap.
    for near, again in zip(whole, chunked, strict=True):
        assert [r.score for r in again] == pytest.approx([r.score for r in near], abs=2e-4)
    assert sum(near == again for near, again in zip(whole, chunked, strict=True)) >= 0.9 * len(whole)


def _neighbour_table(vectors: np.ndarray, count: int, approximate: bool) -> tuple[np.ndarray, np.ndarray]:
    chunks = list(related.nearest_neighbours(vectors, count, approximate))
    return np.vstack([c[1] for c in chunks]), np.vstack([c[2] for c in chunks])


def test_approximate_neighbours_agree_with_the_exact_ones() -> None:
    """The HNSW search finds (almost) the exact neighbours, best first, never the row itself, with
    the exact similarities; a digest past APPROXIMATE_FROM takes it by default."""
    random = np.random.default_rng(4)
    centres = random.normal(size=(30, 48))
    vectors = related.normalise_rows(centres[random.integers(0, 30, 3000)] + random.normal(size=(3000, 48)))
    vectors = vectors.astype(np.float32)
    exact, exact_scores = _neighbour_table(vectors, 5, approximate=False)
    found, scores = _neighbour_table(vectors, 5, approximate=True)
    rows = np.arange(len(vectors))[:, None]
    assert not (found == rows).any() and (found >= 0).all()
    assert (np.diff(scores, axis=1) <= 0).all()
    np.testing.assert_allclose(scores, np.einsum("nd,nkd->nk", vectors, vectors[found]), atol=1e-5)
    recall = np.mean([len(set(a) & set(b)) / 5 for a, b in zip(found, exact, strict=True)])
    assert recall >= 0.98, recall
    np.testing.assert_allclose(scores[:, 0], exact_scores[:, 0], atol=1e-5)


def test_approximate_neighbours_of_a_tiny_set_fill_what_there_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fewer rows than the graph is asked for (it pads with -1): every other row, none twice."""
    vectors = related.normalise_rows(np.random.default_rng(5).normal(size=(4, 8))).astype(np.float32)
    found, _ = _neighbour_table(vectors, 5, approximate=True)
    assert found.shape == (4, 3)
    for row, neighbours in enumerate(found):
        assert sorted(neighbours) == [i for i in range(4) if i != row]
    monkeypatch.setattr(related, "APPROXIMATE_FROM", 4)
    calls: list[int] = []
    graph_search = related.approximate_candidates
    monkeypatch.setattr(
        related, "approximate_candidates", lambda v, c: calls.append(len(v)) or graph_search(v, c)
    )
    by_default, _ = _neighbour_table(vectors, 2, approximate=None)
    assert calls == [4] and by_default.shape == (4, 2)


_WORDS = ["graph", "neural", "networks", "language", "models", "the", "of", "convex", "loss", "gnns", "."]
_VOCABULARY = ["graph", "graph neural", "neural networks", "loss", "unseen phrase"]


@settings(deadline=None)  # 500 texts take a while on a loaded machine; the counts are what is checked
@given(
    st.lists(st.lists(st.sampled_from(_WORDS), max_size=30).map(" ".join), min_size=1, max_size=40),
    st.sampled_from([1, 19, 20, 499, 500]),
    st.lists(st.sampled_from(_VOCABULARY), min_size=1, unique=True),
)
def test_phrases_counted_once_match_counting_them_again(
    distinct: list[str], size: int, vocabulary: list[str]
) -> None:
    """The shared counts give what scikit-learn's CountVectorizer gives, with the related-papers
    space's document-frequency cut (which changes at 20 and at 500 texts) and over a fitted vocabulary."""
    # Each phrase "own…" is in two texts: the cut keeps it in a digest of 500 texts.
    texts = [f"{distinct[i % len(distinct)]} own{i // 2}" for i in range(size)]
    counts = count_phrases(texts)

    def analyzer(text: str) -> list[str]:
        return phrases(text, LEXICAL_MAX_WORDS)

    common, terms = counts.common()
    cut = CountVectorizer(
        analyzer=analyzer, min_df=2 if len(texts) >= 500 else 1, max_df=0.5 if len(texts) >= 20 else 1.0
    )
    try:
        expected = cut.fit_transform(texts)
    except ValueError:  # nothing survives the cut
        assert terms.size == 0
    else:
        assert terms.tolist() == cut.get_feature_names_out().tolist()
        assert (common != expected).nnz == 0
    fixed = CountVectorizer(analyzer=analyzer, vocabulary=vocabulary)
    assert (counts.over(np.array(vocabulary)) != fixed.transform(texts)).nnz == 0


# --- topics --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("papers", "topics"), [(0, 0), (1, 1), (3, 1), (8, 2), (57, 5), (2529, 36), (2634, 36), (10_000, 40)]
)
def test_topic_count(papers: int, topics: int) -> None:
    assert topic_count(papers) == topics


def test_topics_partition_the_papers_and_are_named_by_their_own_words(fake_embedder) -> None:
    texts, themes = themed_corpus(15)
    topics = find_topics(texts, paper_space(texts, embed_views(fake_embedder, texts)).vectors)
    assert len(topics) == topic_count(len(texts)) == 5
    members = sorted(i for topic in topics for i in topic.members)
    assert members == list(range(len(texts)))
    assert [len(t.members) for t in topics] == sorted((len(t.members) for t in topics), reverse=True)
    labels = [topic.label for topic in topics]
    assert len(set(labels)) == len(labels)
    phrases = [p for topic in topics for p in topic.phrases]
    assert len(set(phrases)) == len(phrases), "a phrase labels one topic only"
    for topic in topics:
        theme_counts = {t: sum(themes[i] == t for i in topic.members) for t in THEMES}
        main_theme = max(theme_counts, key=theme_counts.__getitem__)
        assert theme_counts[main_theme] == len(topic.members), "each topic is one theme"
        assert 1 <= len(topic.phrases) <= 3
        assert topic.label == " · ".join(topic.phrases)
        # The abstracts are word salad: check words, not word order. Two topics of one theme share
        # its words, so a pair of common words that chance gathered in one of them may name it.
        for phrase in topic.phrases:
            assert set(phrase.split()) <= set(THEMES[main_theme].split()) | set(COMMON), (phrase, main_theme)


def test_label_phrases_merge_rather_than_repeat() -> None:
    assert pick_label([("neural", 3.0), ("networks", 2.0), ("neural networks", 1.5)]) == ["neural networks"]
    assert pick_label([("rl", 3.0), ("policy", 2.0), ("reinforcement learning", 1.5)]) == [
        "reinforcement learning",
        "policy",
    ]
    assert pick_label([("graph", 3.0), ("graphs", 2.0), ("molecules", 1.0)]) == ["graph", "molecules"]
    assert pick_label([("mt", 3.0), ("multi-task learning", 2.0)]) == ["mt", "multi-task learning"]
    assert pick_label([("video", 3.0), ("vision-language models", 2.0), ("vlms", 1.0)]) == [
        "video",
        "vision-language models",
    ]
    assert pick_label([("models", 9.0), ("learning", 8.0), ("privacy", 1.0)]) == ["privacy"]
    four = [("privacy", 4.0), ("robustness", 3.0), ("fairness", 2.0), ("calibration", 1.0)]
    assert pick_label(four) == ["privacy", "robustness", "fairness"]
    # never a single vague word, nor a phrase ending on an adjective or a verb
    vague = [("ml", 9.0), ("local", 8.0), ("insights", 7.0), ("model", 6.0), ("large", 5.0), ("privacy", 1.0)]
    assert pick_label(vague) == ["privacy"]
    assert pick_label([("graph neural", 3.0), ("proposed method", 2.0), ("graph neural networks", 1.0)]) == [
        "graph neural networks"
    ]
    assert pick_label([("text generation", 3.0), ("generated", 2.0), ("decoding", 1.0)]) == [
        "text generation",
        "decoding",
    ]
    reading = "machine reading comprehension"
    assert pick_label([("rc", 3.0), (reading, 2.0)]) == [reading]
    # the fillers the learned word statistics find (common, or no noun) name no topic alone
    fillers = [
        ("research", 9.0),
        ("linear", 8.0),
        ("finding", 7.0),
        ("online", 6.0),
        ("linear regression", 1.0),
    ]
    assert pick_label(fillers) == ["linear regression"]


def test_a_topic_carries_a_phrase_most_of_its_papers_use_and_few_others() -> None:
    support = np.array([[3.0, 0.0, 2.0], [1.0, 4.0, 6.0]])  # topics of 4 and 8 papers, three phrases
    assert carried(support, np.array([4, 8])).tolist() == [[True, False, False], [False, True, False]]


def test_topic_names_are_carried_by_their_topics() -> None:
    """Each label phrase is used by at least a quarter of its topic's papers and at least three times
    as often there as elsewhere; a phrase one paper of a topic repeats does not name it."""
    proteins = [f"Protein folding with sequence models, part {i}." for i in range(5)]
    proteins[0] += " Quantum annealing quantum annealing quantum annealing quantum annealing."
    graphs = [f"Graph coloring with message passing, part {i}. Sequence models." for i in range(6)]
    counts = count_phrases(proteins + graphs)
    labels = label_topics(counts, [list(range(5)), list(range(5, 11))])
    assert "protein folding" in labels[0] and not any("annealing" in p for p in labels[0])
    assert "graph coloring" in labels[1] or "message passing" in labels[1]
    assert not any("sequence" in p for label in labels for p in label)  # used by both topics


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("graph", "graphs", True),
        ("generate", "generation", True),
        ("summarization", "summaries", True),
        ("policy", "policies", True),
        ("bias", "biases", True),
        ("translation", "transformer", False),
        ("graph", "grammar", False),
        ("rl", "rlhf", False),
    ],
)
def test_forms_of_one_word(a: str, b: str, same: bool) -> None:
    assert same_word(a, b) is same


# --- the map -------------------------------------------------------------------------------------


def stored_layout(cache: Path, vectors: np.ndarray) -> paper_map.MapLayout:
    """The map as the build lays it out: given the stored layouts, a fresh t-SNE one stored."""
    from generator.cache.database import open_cache
    from generator.cache.layouts import LayoutStore

    database = open_cache(cache)
    store = LayoutStore(database, len(vectors))
    job = paper_map.start_map_layout(vectors, store.known())
    layout = job.result()
    fresh = job.fresh()
    if fresh is not None:
        store.save(*fresh)
    database.close()  # type: ignore[union-attr]
    return layout


def test_map_layout_is_cached_by_its_input(tmp_path: Path) -> None:
    from generator.cache.layouts import KIND

    random = np.random.default_rng(0)
    embeddings = random.normal(size=(60, 16)).astype(np.float32)
    first = stored_layout(tmp_path, embeddings)
    assert first.method == "t-SNE" and not first.from_cache
    database = sqlite3.connect(tmp_path / CACHE_DATABASE)
    assert database.execute("SELECT COUNT(*) FROM entries WHERE kind = ?", (KIND,)).fetchone()[0] == 1
    assert first.positions.shape == (60, 2)
    assert first.positions.min() >= 0 and first.positions.max() <= 1
    again = stored_layout(tmp_path, embeddings)
    assert again.from_cache
    np.testing.assert_array_equal(again.positions, first.positions)
    other = stored_layout(tmp_path, embeddings[::-1].copy())
    assert not other.from_cache

    with database:  # damage the stored layout (the one kept: the last laid out, other's)
        database.execute("UPDATE entries SET data = ? WHERE kind = ?", (b"not a numpy file", KIND))
    database.close()
    repaired = stored_layout(tmp_path, embeddings[::-1].copy())
    assert not repaired.from_cache
    np.testing.assert_allclose(repaired.positions, other.positions)  # deterministic
    assert stored_layout(tmp_path, embeddings[::-1].copy()).from_cache
    # A layout given in that does not fit the papers is laid out afresh, never trusted.
    wrong = {paper_map.layout_key(embeddings): np.zeros((59, 2))}
    assert not map_layout(embeddings, wrong).from_cache


def test_small_digests_and_failures_get_pca(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    random = np.random.default_rng(1)
    assert map_layout(random.normal(size=(10, 8))).method == "PCA"
    for count in (0, 1, 2):
        positions = map_layout(random.normal(size=(count, 8))).positions
        assert positions.shape == (count, 2)
        assert ((positions >= 0) & (positions <= 1)).all()

    def broken(_embeddings):
        raise ValueError("no t-SNE today")

    # No worker process to be had: laid out here, where t-SNE fails, so PCA.
    def no_process(*_arguments, **_options) -> None:
        raise OSError("no processes today")

    monkeypatch.setattr(paper_map.subprocess, "Popen", no_process)
    monkeypatch.setattr(paper_map, "_tsne", broken)
    fallback = map_layout(random.normal(size=(80, 8)))
    assert fallback.method == "PCA" and fallback.positions.shape == (80, 2)


def test_a_map_worker_that_dies_is_replaced_by_a_layout_in_the_build(tmp_path: Path) -> None:
    embeddings = np.random.default_rng(2).normal(size=(60, 16)).astype(np.float32)
    job = paper_map.start_map_layout(embeddings)
    assert job._process is not None
    job._process.kill()
    laid_out = job.result()
    assert laid_out.method == "t-SNE" and laid_out.positions.shape == (60, 2)
    np.testing.assert_allclose(laid_out.positions, map_layout(embeddings).positions)


def test_large_digests_are_laid_out_by_fft_tsne(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Past FFT_TSNE_FROM papers openTSNE lays the map out: a real layout (close points stay close),
    deterministic, and cached under its own version (a scikit-learn layout is never read for it)."""
    random = np.random.default_rng(3)
    centres = random.normal(size=(4, 16)) * 4
    group = np.repeat(np.arange(4), 60)
    vectors = (centres[group] + random.normal(size=(240, 16))).astype(np.float32)
    monkeypatch.setattr(paper_map, "FFT_TSNE_FROM", 200)
    calls: list[int] = []
    fft_tsne = paper_map._fft_tsne
    monkeypatch.setattr(paper_map, "_fft_tsne", lambda v: calls.append(len(v)) or fft_tsne(v))
    with related.one_thread():
        positions, method = paper_map._fresh_layout(vectors)
    assert method == "t-SNE" and calls == [240]
    assert positions.shape == (240, 2) and positions.min() >= 0 and positions.max() <= 1
    # Each point's 10 nearest on the map are mostly of its own group.
    distances = ((positions[:, None] - positions[None]) ** 2).sum(-1)
    np.fill_diagonal(distances, np.inf)
    nearest = np.argsort(distances, axis=1)[:, :10]
    assert (group[nearest] == group[:, None]).mean() > 0.9
    with related.one_thread():
        again, _ = paper_map._fresh_layout(vectors)
    np.testing.assert_allclose(again, positions)

    from generator.cache.database import CacheDatabase
    from generator.cache.layouts import LayoutStore

    database = CacheDatabase(tmp_path / CACHE_DATABASE)
    LayoutStore(database, 240).save("key", positions)
    assert LayoutStore(database, 240).known().get("key") is not None
    monkeypatch.setattr(paper_map, "FFT_TSNE_FROM", 1_000)  # the same count now asks for the other method
    assert LayoutStore(database, 240).known().get("key") is None
    database.close()


# --- pages and export ----------------------------------------------------------------------------


def test_topic_pages_map_and_export(fake_embedder) -> None:
    digest, _ = themed_digest(15, fake_embedder)
    files = PageRenderer().render(digest)
    export = json.loads(files["papers.json"])
    topic_pages = {p for p in files if p.startswith("topics/") and p != "topics/index.md"}
    assert len(topic_pages) == len(digest.topics) == 5
    # The index (served at topics/) links every topic page, in the digest's topic order (largest first).
    linked = [f"topics/{slug}.md" for slug in re.findall(r'<a href="([^"./]+)/">', files["topics/index.md"])]
    assert set(linked) == topic_pages
    for topic, page in zip(digest.topics, linked, strict=True):
        assert f"# Topic: {topic.label}" in files[page]
        listed = re.findall(r'<a href="\.\./\.\./papers/([^"]+)/">', files[page])  # served at topics/x/
        assert listed == [digest.papers[member].entry.slug for member in topic.members]

    by_id = {record["id"]: record for record in export}
    for position, paper in enumerate(digest.papers):
        record = by_id[paper.entry.paper.id]
        assert record["topic"] == digest.topics[paper.topic].label
        assert len(record["map"]) == 2 and all(0 <= v <= 1 for v in record["map"])
        page = files[f"papers/{paper.entry.slug}.md"]
        assert '<strong>Topic:</strong> <a href="../../topics/' in page
        assert f'"../../map/#paper={paper.entry.slug}"' in page
        assert position in digest.topics[paper.topic].members

    data = map_data(files[MAP_DATA])
    assert len(data["papers"]) == len(export)
    assert [point[4] for point in data["papers"]] == [record["url"] for record in export]
    assert [point[:2] for point in data["papers"]] == [record["map"] for record in export]
    assert {point[2] for point in data["papers"]} == set(range(len(digest.topics)))
    assert [t["label"] for t in data["topics"]] == [t.label for t in digest.topics]
    assert 'data-src="../assets/paper-map.js"' in files["map.md"]
    assert readable_title("$\\bf{\\Phi}_\\textrm{Flow}$: \\texttt{MoE} {x}") == "Φ_Flow: MoE x"
    assert len(files["map.md"].encode()) < 4_000


def test_related_links_show_closeness_and_shared_keyphrases(fake_embedder) -> None:
    digest, _ = themed_digest(8, fake_embedder)
    files = PageRenderer().render(digest)
    explained = 0
    for paper in digest.papers:
        page = files[f"papers/{paper.entry.slug}.md"].split("## Related papers", 1)[1]
        assert "shared terms" not in page
        for r in paper.related:
            assert r.closeness is not None and 0 < r.closeness <= 1
            assert closeness_text(r.closeness) + " in this digest" in page
            if r.shared_keywords:
                explained += 1
                assert "both about: " + ", ".join(r.shared_keywords) in page
    assert explained


def test_shared_keyphrases_come_from_the_vocabulary_and_prefer_longer_phrases() -> None:
    keywords = [[Keyword("wasserstein wormhole", 1.0)], [Keyword("optimal transport", 1.0)], []]
    candidate_keys = [
        {"wasserstein wormhole", "optimal transport", "model"},
        {"wasserstein wormhole", "optimal transport", "model"},
        {"model"},
    ]
    spellings = {key: key for keys in candidate_keys for key in keys}

    def embed(texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), 2), dtype=np.float32) / np.sqrt(2)

    vectors = np.ones((3, 2), dtype=np.float32) / np.sqrt(2)
    vocabulary = keyphrase_vocabulary(keywords, candidate_keys, spellings, embed, vectors)
    assert set(vocabulary.spelling) == {"wasserstein wormhole", "optimal transport"}  # "model" is no keyword
    shared = shared_keyphrases(vocabulary, 0, 1)
    assert set(shared) == {"wasserstein wormhole", "optimal transport"}
    assert shared_keyphrases(vocabulary, 0, 2) == ()
    # "wormhole" is mentioned (a tail of "wasserstein wormhole") but gives way to the longer phrase
    keywords[2] = [Keyword("wormhole", 1.0)]
    vocabulary = keyphrase_vocabulary(keywords, candidate_keys, spellings, embed, vectors)
    assert "wormhole" not in shared_keyphrases(vocabulary, 0, 1)


def test_closeness_places_a_similarity_among_all_pairs() -> None:
    vectors = np.eye(4, dtype=np.float32)
    vectors[1] = vectors[0]  # one pair of six is identical, the others orthogonal
    scale = similarity_scale(vectors)
    assert scale.closeness(1.0) == pytest.approx(1 / 6)
    assert scale.closeness(0.0) == 1.0
    assert closeness_text(0.004) == "closest 0.4% of pairs"
    assert closeness_text(0.0001) == "closest 0.01% of pairs"
    assert closeness_text(0.00043) == "closest 0.05% of pairs"
    assert closeness_text(0.000999) == "closest 0.1% of pairs"
    assert closeness_text(0.0) == "closest 0.01% of pairs"
    assert closeness_text(0.0099) == "closest 1% of pairs"
    assert closeness_text(0.023) == "closest 3% of pairs"
    sampled = similarity_scale(np.eye(50, dtype=np.float32), pairs=100)
    assert len(sampled.similarities) == 100 and not sampled.similarities.any()  # never a paper with itself


@pytest.mark.parametrize("count", [1, 2, 3])
def test_tiny_digests_analyse_and_render(fake_embedder, count: int) -> None:
    location = SourceLocation(Path("x.txt"), 1)
    papers = tuple(
        Paper(id=str(i), abstract=a, source=location) for i, a in enumerate(SAMPLE_ABSTRACTS[:count])
    )
    digest = analyse(Collection("Tiny", papers), fake_embedder, Reporter(quiet=True), 5, 5).complete()
    assert len(digest.topics) == 1
    assert all(p.topic == 0 and p.map_position is not None for p in digest.papers)
    assert all(len(p.related) == min(5, count - 1) for p in digest.papers)
    files = PageRenderer().render(digest)
    assert len(map_data(files[MAP_DATA])["papers"]) == count
    assert "topics/index.md" in files and "map.md" in files


def test_two_paper_digest_builds_a_site_with_topics_and_map(tmp_path: Path) -> None:
    source = tmp_path / "two.txt"
    source.write_text("Two Papers\n\n" + "\n\n".join(SAMPLE_ABSTRACTS[:2]) + "\n", encoding="utf-8")
    request = BuildRequest((source,), tmp_path / "docs", tmp_path / "site")
    build_digest(load_settings(PROJECT_ROOT), request, Reporter(quiet=True), embedder=FakeEmbedder())
    site = tmp_path / "site"
    assert (site / "map" / "index.html").is_file() and (site / MAP_DATA).is_file()
    assert (site / "javascripts" / "map.js").is_file()
    topic_pages = [p for p in (site / "topics").glob("*/index.html")]
    assert len(topic_pages) == 1
    nav = (site / "index.html").read_text(encoding="utf-8").split('<nav class="md-nav md-nav--primary"', 1)[1]
    assert 'href="topics/"' in nav and 'href="map/"' in nav


# --- the map in a browser (bundled digest, real model) ------------------------------------------


@pytest.mark.slow
@pytest.mark.browser
def test_map_in_a_browser(bundled_build: dict[str, Path], tmp_path: Path) -> None:
    """The map draws every paper from its own site (nothing from elsewhere), hovering shows the
    title over a real link, a click opens the paper, a drag moves the map, a paper's "on the map"
    link picks that paper out, and on a touch screen a first tap shows the title."""
    from tests.browser_support import SiteServer, build_site_at, chromium_executable

    executable = chromium_executable()
    if executable is None:
        pytest.skip("Chromium not found: apt-get install chromium")
    site = tmp_path / "site"
    server = SiteServer(site)
    try:
        build_site_at(PROJECT_ROOT / "mkdocs.yml", bundled_build["docs"], site, server.origin + "/")
        assert len((site / "map" / "index.html").read_bytes()) < 40_000
        # Playwright's sync API refuses to start where another sync session (the browser tests'
        # session-wide Chromium) runs its event loop, so this one gets a thread of its own.
        with ThreadPoolExecutor(1) as pool:
            pool.submit(_drive_the_map, executable, server.origin, site).result()
    finally:
        server.close()


def _drive_the_map(executable: str, origin: str, site: Path) -> None:
    from playwright.sync_api import sync_playwright

    from tests.browser_support import CHROMIUM_ARGS, VIEWPORT, PageMonitor, block_third_parties, url_path

    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    points_data = map_data((site / MAP_DATA).read_text(encoding="utf-8"))
    shown_titles = {entry[4]: entry[3] for entry in points_data["papers"]}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        page.set_default_timeout(20_000)
        monitor = PageMonitor(origin)
        monitor.attach(page)
        block_third_parties(page, origin)

        page.goto(origin + "/map/")
        page.wait_for_selector(".paper-map[data-drawn]")
        page.wait_for_load_state("networkidle")  # leaving mid-request would count as a failed request
        the_map = page.locator(".paper-map")
        assert the_map.get_attribute("data-points") == str(len(papers))
        assert the_map.get_attribute("data-drawn") == str(len(papers)), "every paper is on screen at first"
        topics = {record["topic"] for record in papers} - {None}
        assert page.locator(".paper-map__legend [data-topic]").count() == len(topics)
        hrefs = page.evaluate(
            """() => { const map = document.querySelector('.paper-map');
                 return Array.from({length: Number(map.dataset.points)}, (_, i) => map.paperMap.href(i)); }"""
        )
        assert sorted(h.removeprefix("../") for h in hrefs) == sorted(r["url"] for r in papers)

        # Point at a paper that no other dot covers and nothing lies over, as a reader would.
        uncovered, (x, y) = page.evaluate(
            """() => {
                 const map = document.querySelector('.paper-map');
                 const canvas = map.querySelector('canvas');
                 for (let i = 0; i < Number(map.dataset.points); i++) {
                   const at = map.paperMap.point(i);
                   const top = map.paperMap.paperAt(at.x, at.y);
                   if (top === i && document.elementFromPoint(at.x, at.y) === canvas) {
                     return [i, [at.x, at.y]];
                   }
                 }
                 return [-1, [0, 0]];
               }"""
        )
        assert uncovered >= 0
        target = hrefs[uncovered].removeprefix("../")
        page.mouse.move(x, y)
        tip = page.locator(".paper-map__tip")
        assert tip.is_visible()
        assert tip.inner_text().startswith(shown_titles[target])
        # The dot under the pointer is a real link (a new tab, the link's address), at the dot.
        link = page.locator(".paper-map__view a.paper-map__point")
        assert link.get_attribute("href") == hrefs[uncovered]
        assert page.evaluate("([x, y]) => document.elementFromPoint(x, y).tagName", [x, y]) == "A"
        page.mouse.click(x, y)
        page.wait_for_url(f"**/{target}")
        page.wait_for_load_state("networkidle")

        page.get_by_role("link", name=re.compile("on the map")).click()
        page.wait_for_selector(".paper-map[data-picked]")
        assert url_path(page.url) == "/map/"
        assert page.locator(".paper-map__point.is-picked").is_visible()
        assert page.locator(".paper-map__tip").is_visible()
        picked_name = page.locator(".paper-map .paper-map__picked")
        assert picked_name.count() == 1 and picked_name.is_visible()
        assert shown_titles[target].startswith(picked_name.text_content().rstrip("…"))

        page.fill(".paper-map__bar input", "zzzz-no-such-title")
        assert page.locator(".paper-map__count").inner_text().startswith("0 of ")

        # A drag moves the map, and one that ends on a dot opens nothing.
        where = "i => document.querySelector('.paper-map').paperMap.point(i)"
        before = page.evaluate(where, uncovered)
        page.mouse.move(before["x"] - 120, before["y"])
        page.mouse.down()
        page.mouse.move(before["x"], before["y"], steps=8)
        page.mouse.up()
        page.wait_for_timeout(100)
        after = page.evaluate(where, uncovered)
        assert abs(after["x"] - before["x"] - 120) < 2 and abs(after["y"] - before["y"]) < 2
        assert url_path(page.url) == "/map/"

        # On a touch screen the first tap shows the title, the second opens the paper.
        touch = browser.new_context(viewport=VIEWPORT, has_touch=True).new_page()
        touch.set_default_timeout(20_000)
        block_third_parties(touch, origin)
        touch.goto(origin + "/map/")
        touch.wait_for_selector(".paper-map[data-drawn]")
        touch.wait_for_load_state("networkidle")
        at = touch.evaluate(where, uncovered)
        touch.touchscreen.tap(at["x"], at["y"])
        assert touch.locator(".paper-map__tip").is_visible()
        assert touch.locator(".paper-map__tip").inner_text().startswith(shown_titles[target])
        assert url_path(touch.url) == "/map/"
        touch.touchscreen.tap(at["x"], at["y"])
        touch.wait_for_url(f"**/{target}")
        browser.close()
    assert monitor.errors == []
    assert monitor.third_party == []


def test_the_map_worker_runs_from_a_script_without_running_the_script_again(tmp_path: Path) -> None:
    import subprocess
    import sys

    script = tmp_path / "lay_out.py"
    script.write_text(
        "import sys\n"
        "from pathlib import Path\n"
        "import numpy as np\n"
        "from generator.analysis.paper_map import start_map_layout\n"
        "runs = Path(sys.argv[1])\n"
        "runs.write_text(runs.read_text() + 'run ')\n"
        "vectors = np.random.default_rng(0).normal(size=(60, 16)).astype(np.float32)\n"
        "job = start_map_layout(vectors)\n"
        "print(job.result().method, job._process.returncode)\n",
        encoding="utf-8",
    )
    runs = tmp_path / "runs.txt"
    runs.write_text("")
    command = [sys.executable, str(script), str(runs)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["t-SNE", "0"], "laid out by the worker, which succeeded"
    assert runs.read_text() == "run ", "the worker did not run the caller's script"


def test_topic_count_follows_the_structure_of_the_data() -> None:
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(4, 32))
    grouped = np.repeat(centres, 30, axis=0) + 0.3 * rng.normal(size=(120, 32))
    grouped /= np.linalg.norm(grouped, axis=1, keepdims=True)
    assert structured_topic_count(grouped, 8) >= 4
    noise = rng.normal(size=(120, 32))
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    assert structured_topic_count(noise, 8) == 0
    fit = fit_topics(count_phrases(["same words here"] * 120), noise)
    assert len(fit.centres) == 0 and assign_topics(fit, noise) == []


def test_topic_labels_are_spelled_as_their_papers_write_them() -> None:
    texts = [
        "We align LLMs with RLHF. The LLM improves. Bayesian priors help.",
        "Large Language Models (LLMs) and DP-SGD. Bayesian updates. A transformer; The transformer.",
        "Vision-Language models and vision-language models. Vision-Language models, too.",
    ]
    phrases = (
        "large language models",
        "llm",
        "rlhf",
        "dp-sgd",
        "bayesian",
        "transformer",
        "unseen",
        "vision-language models",
    )
    assert as_written(phrases, texts) == (
        "large language models",
        "LLM",
        "RLHF",
        "DP-SGD",
        "Bayesian",
        "transformer",
        "unseen",
        "vision-language models",
    )

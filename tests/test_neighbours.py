"""Related papers updated where papers changed: the same lists as computing them whole (fake embedder)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from generator.analysis import related
from generator.analysis.fit import paper_key
from generator.analysis.neighbours import NeighbourState, neighbour_key, paper_neighbours
from generator.analysis.related import count_phrases, fit_space
from generator.build import BuildRequest, build_digest
from generator.cache.database import CACHE_DATABASE, CacheDatabase
from generator.cache.neighbours import KIND, NeighbourStore
from generator.progress import Reporter
from generator.project.settings import Settings
from tests.conftest import embed_views
from tests.test_topics_related import themed_corpus


def _same_lists(one: NeighbourState, other: NeighbourState) -> None:
    assert one.keys == other.keys
    np.testing.assert_array_equal(one.vectors, other.vectors)
    for mine, theirs in ((one.expansion, other.expansion), (one.related, other.related)):
        np.testing.assert_array_equal(mine.indices, theirs.indices)
        np.testing.assert_allclose(mine.scores, theirs.scores, rtol=0, atol=1e-6)


@pytest.mark.parametrize(
    "change",
    ["edit", "remove", "add", "edit and reorder", "edit, on the axes of a cut joint vector"],
)
def test_an_update_gives_the_lists_a_whole_computation_gives(
    fake_embedder, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "cut" in change:
        monkeypatch.setattr(related, "JOINT_DIMENSIONS", 48)
    texts, _ = themed_corpus(150, seed=3)  # 450 papers: one change stays an update
    embeddings = embed_views(fake_embedder, texts)
    fit = fit_space(count_phrases(texts), embeddings)
    assert (fit.projection is not None) == ("cut" in change)
    before = paper_neighbours(fit, texts, [paper_key(t) for t in texts], embeddings, 5)
    assert before.recomputed_rows is None

    changed = list(texts)
    if change.startswith("edit"):
        changed[100] = texts[100] + " " + texts[201]  # now also about another theme
    elif change == "remove":
        del changed[42]
    else:
        changed.insert(7, texts[3] + " " + texts[5] + " again")
    if change.endswith("reorder"):
        changed = changed[::-1]
    vectors = embed_views(fake_embedder, changed)
    keys = [paper_key(t) for t in changed]
    whole = paper_neighbours(fit, changed, keys, vectors, 5)
    updated = paper_neighbours(fit, changed, keys, vectors, 5, previous=before.state)

    # An edit that mixes two of three themes reaches many lists of this tiny world (117 of 450 rows).
    assert updated.recomputed_rows is not None and 0 < updated.recomputed_rows < len(changed) // 3
    _same_lists(updated.state, whole.state)
    np.testing.assert_allclose(updated.space.expanded, whole.space.expanded, atol=1e-6)
    # and a second update from the updated state still agrees
    again = paper_neighbours(fit, texts, [paper_key(t) for t in texts], embeddings, 5, previous=updated.state)
    _same_lists(again.state, before.state)


def test_many_changes_or_another_count_compute_the_lists_whole(fake_embedder) -> None:
    texts, _ = themed_corpus(40)
    embeddings = embed_views(fake_embedder, texts)
    keys = [paper_key(t) for t in texts]
    fit = fit_space(count_phrases(texts), embeddings)
    before = paper_neighbours(fit, texts, keys, embeddings, 5)
    assert paper_neighbours(fit, texts, keys, embeddings, 5, previous=before.state).recomputed_rows == 0
    assert paper_neighbours(fit, texts, keys, embeddings, 6, previous=before.state).recomputed_rows is None
    edited = [t + " more words" for t in texts[:10]] + texts[10:]
    vectors = embed_views(fake_embedder, edited)
    result = paper_neighbours(fit, edited, [paper_key(t) for t in edited], vectors, 5, previous=before.state)
    assert result.recomputed_rows is None
    twins = texts[:-1] + texts[:1]  # two papers with one text: rows could not be told apart
    result = paper_neighbours(
        fit, twins, [paper_key(t) for t in twins], embed_views(fake_embedder, twins), 5, previous=before.state
    )
    assert result.recomputed_rows is None


def test_the_store_round_trips_and_ignores_damage(tmp_path: Path, fake_embedder) -> None:
    texts, _ = themed_corpus(10)
    embeddings = embed_views(fake_embedder, texts)
    fit = fit_space(count_phrases(texts), embeddings)
    state = paper_neighbours(fit, texts, [paper_key(t) for t in texts], embeddings, 5).state
    database = CacheDatabase(tmp_path / CACHE_DATABASE)
    store = NeighbourStore(database, fake_embedder.name)
    key = neighbour_key(fake_embedder.name, fit, 5)
    assert key != neighbour_key(fake_embedder.name, fit, 4)
    assert key != neighbour_key(fake_embedder.name, replace(fit, semantic_spread=fit.semantic_spread * 2), 5)
    assert store.load(key) is None
    store.save(key, state)
    _same_lists(store.load(key), state)
    other = NeighbourStore(database, "another-model")  # each model keeps its own row, as its fit
    other.save(neighbour_key("another-model", fit, 5), state)
    _same_lists(store.load(key), state)
    store.save(key, state)
    assert other.load(neighbour_key("another-model", fit, 5)) is not None
    with sqlite3.connect(tmp_path / CACHE_DATABASE) as raw:
        raw.execute("UPDATE entries SET data = substr(data, 1, 100) WHERE kind = ?", (KIND,))
    raw.close()
    assert store.load(key) is None
    database.close()


def test_an_edited_build_updates_the_related_papers_as_a_whole_computation_would(
    tmp_path: Path, fake_embedder
) -> None:
    texts, _ = themed_corpus(140)  # 420 papers: one edit (two keys) stays an update
    records = [{"id": f"p{i}", "abstract": t} for i, t in enumerate(texts)]
    source = tmp_path / "papers.jsonl"
    settings = Settings(project_root=tmp_path, cache_dir=Path("cache"))
    request = BuildRequest((source,), tmp_path / "docs", None, name="Themes")

    def build() -> tuple[list[str], dict]:
        source.write_text("".join(json.dumps(row) + "\n" for row in records), encoding="utf-8")
        lines: list[str] = []
        reporter = Reporter(quiet=True)
        reporter.info = lines.append  # type: ignore[method-assign]
        build_digest(settings, request, reporter, fake_embedder)
        papers = json.loads((request.docs_dir / "papers.json").read_text())
        return lines, {paper["id"]: paper["related"] for paper in papers}

    build()
    records[30] = {**records[30], "abstract": records[30]["abstract"] + " " + texts[31]}
    lines, updated = build()
    assert any(line.startswith("related papers: updated") for line in lines), lines
    with sqlite3.connect(tmp_path / "cache" / CACHE_DATABASE) as database:
        database.execute("DELETE FROM entries WHERE kind IN (?, ?)", (KIND, "last analysis"))
    lines, whole = build()
    assert not any(line.startswith("related papers: updated") for line in lines), lines
    assert updated == whole

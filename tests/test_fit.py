"""The digest-wide fit is kept between builds: a small edit moves the edited paper, not the site."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from generator.analysis import fit as fit_module
from generator.analysis.analyse import analyse
from generator.cache.database import CacheDatabase, open_cache
from generator.cache.fit import FitStore
from generator.cache.stores import AnalysisStores
from generator.model import Collection, Digest, Paper
from generator.progress import Reporter
from tests.conftest import FakeEmbedder
from tests.test_topics_related import papers_of, themed_corpus


def run(papers: tuple[Paper, ...], embedder: FakeEmbedder, cache: Path, refit: bool = False) -> Digest:
    """The analysis as the build runs it: given what the cache in ``cache`` holds, and what it found
    stored there (the steps' results at once, the fit and map once the map is done)."""
    database = open_cache(cache)
    stores = AnalysisStores.on(database, embedder.name, len(papers))
    pending = analyse(Collection("Themes", papers), embedder, Reporter(quiet=True), 5, 5, stores.known(refit))
    stores.keep_steps(pending.found)
    digest = pending.complete()
    stores.keep_map(pending.found)
    database.close()  # type: ignore[union-attr]
    return digest


def fit_store(cache: Path, embedder: FakeEmbedder) -> FitStore:
    return FitStore(CacheDatabase(cache / "cache.sqlite3"), embedder.name)


def topic_labels(digest: Digest) -> list[str | None]:
    return [None if p.topic is None else digest.topics[p.topic].label for p in digest.papers]


def related_ids(digest: Digest) -> list[list[int]]:
    return [[r.index for r in p.related] for p in digest.papers]


def test_an_edit_moves_only_the_edited_paper(fake_embedder: FakeEmbedder, tmp_path: Path) -> None:
    texts, _ = themed_corpus(20)  # 60 papers: up to 3 may change before a refit
    papers = papers_of(texts)
    first = run(papers, fake_embedder, tmp_path)
    again = run(papers, fake_embedder, tmp_path)
    assert topic_labels(again) == topic_labels(first)
    assert related_ids(again) == related_ids(first)
    assert [p.map_position for p in again.papers] == [p.map_position for p in first.papers]

    edited = list(papers)
    edited[7] = Paper(
        id="p7", abstract=papers[7].abstract + " momentum", title=papers[7].title, source=papers[7].source
    )
    after = run(tuple(edited), fake_embedder, tmp_path)
    moved = [
        i
        for i, (a, b) in enumerate(zip(first.papers, after.papers, strict=True))
        if a.map_position != b.map_position
    ]
    assert moved == [7]
    assert all(0 <= x <= 1 and 0 <= y <= 1 for x, y in (p.map_position for p in after.papers))
    assert [t.label for t in after.topics] == [t.label for t in first.topics]
    changed_topics = [
        i for i, (a, b) in enumerate(zip(topic_labels(first), topic_labels(after), strict=True)) if a != b
    ]
    assert changed_topics in ([], [7])
    # Related lists change only where the edited paper enters or leaves one, or is the paper.
    for index, (before, now) in enumerate(zip(related_ids(first), related_ids(after), strict=True)):
        if before != now:
            assert index == 7 or 7 in before or 7 in now, index

    refitted = run(tuple(edited), fake_embedder, tmp_path, refit=True)
    assert [p.map_position for p in refitted.papers] != [p.map_position for p in after.papers]


def test_many_changes_refit(
    fake_embedder: FakeEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts, _ = themed_corpus(20)
    run(papers_of(texts), fake_embedder, tmp_path)
    store = fit_store(tmp_path, fake_embedder)
    saved = store.read_bytes()
    more, _ = themed_corpus(22, seed=1)  # 66 papers, most of them new: more than 5%
    run(papers_of(more), fake_embedder, tmp_path)
    fit = store.load()
    assert fit is not None and len(fit.paper_keys) == 66 and store.read_bytes() != saved

    monkeypatch.setattr(fit_module, "REFIT_SHARE", 0.0)
    assert not fit.reusable_for(list(fit.paper_keys[:-1]), fake_embedder.embed(["x"]).shape[1])


def test_changes_are_told_as_a_reader_counts_them(fake_embedder: FakeEmbedder, tmp_path: Path) -> None:
    texts, _ = themed_corpus(20)
    run(papers_of(texts), fake_embedder, tmp_path)
    fit = fit_store(tmp_path, fake_embedder).load()
    assert fit is not None
    keys = list(fit.paper_keys)
    assert fit.describe_changes(keys) == "no paper changed"
    edited = [*keys[:-1], "an edited abstract"]
    assert fit.changed_papers(edited) == 2  # the old text and the new one
    assert fit.describe_changes(edited) == "1 paper new or edited, 1 old text gone (edited or removed)"
    assert fit.describe_changes(keys[:-2]) == "2 old texts gone (edited or removed)"
    assert fit.describe_changes([*keys, "a", "b"]) == "2 papers new or edited"


@pytest.mark.parametrize("damage", [b"", b"not a numpy archive", None])
def test_unreadable_fit_is_refitted(
    fake_embedder: FakeEmbedder, tmp_path: Path, damage: bytes | None
) -> None:
    texts, _ = themed_corpus(20)
    papers = papers_of(texts)
    first = run(papers, fake_embedder, tmp_path)
    store = fit_store(tmp_path, fake_embedder)
    if damage is None:  # a well-formed archive with inconsistent contents
        with np.load(io.BytesIO(store.read_bytes() or b"")) as archive:
            arrays = dict(archive)
        arrays["positions"] = arrays["positions"][:-1]
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        store.write_bytes(buffer.getvalue())
    else:
        store.write_bytes(damage)
    assert store.load() is None
    again = run(papers, fake_embedder, tmp_path)
    assert topic_labels(again) == topic_labels(first)
    np.testing.assert_allclose([p.map_position for p in again.papers], [p.map_position for p in first.papers])
    assert store.load() is not None


def test_unchanged_inputs_reuse_the_stored_analysis(
    fake_embedder: FakeEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    from generator import build as build_module
    from generator.build import BuildRequest, build_digest
    from generator.project.settings import load_settings
    from tests.conftest import PROJECT_ROOT, SAMPLE_ABSTRACTS, write_text_input

    settings = replace(load_settings(PROJECT_ROOT), cache_dir=tmp_path / "cache")
    source = write_text_input(tmp_path / "in.txt", "Test Digest", SAMPLE_ABSTRACTS)
    request = BuildRequest((source,), tmp_path / "docs", None)
    analyses: list[int] = []
    real_analysis = build_module.analyse
    monkeypatch.setattr(
        build_module, "analyse", lambda *a, **k: (analyses.append(1), real_analysis(*a, **k))[1]
    )

    first = build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    again = build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert len(analyses) == 1 and again.docs.written == 0
    assert again.digest == first.digest

    write_text_input(
        source, "Test Digest", [*SAMPLE_ABSTRACTS[:-1], SAMPLE_ABSTRACTS[-1] + " Code is released."]
    )
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert len(analyses) == 2
    build_digest(settings, replace(request, refit=True), Reporter(quiet=True), fake_embedder)
    assert len(analyses) == 3

    import sqlite3

    from generator.cache.database import CACHE_DATABASE

    with sqlite3.connect(settings.cache_dir / CACHE_DATABASE) as database:
        database.execute("UPDATE entries SET data = ? WHERE kind = 'last analysis'", (b'{"papers": [',))
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert len(analyses) == 4
    monkeypatch.setattr("generator.cache.analysis.source_fingerprint", lambda: "other code")
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert len(analyses) == 5


def test_an_analysis_given_what_it_found_finds_nothing_new(fake_embedder: FakeEmbedder) -> None:
    """No cache at all: what one analysis returns as found, given back as known, gives the same
    digest and nothing new to store (the analysis is a function of its inputs)."""
    from generator.analysis.analyse import Known

    collection = Collection("Themes", papers_of(themed_corpus(20)[0]))
    first = analyse(collection, fake_embedder, Reporter(quiet=True), 5, 5)
    digest = first.complete()
    found = first.found
    assert found.fit is not None and found.neighbours is not None and found.layout is not None
    assert len(found.candidates.new) == len(found.candidates.keys) == len(collection.papers)
    assert len(found.similarities.new) == len(collection.papers)
    known = Known(
        candidates=found.candidates.new,
        similarities=found.similarities.new,
        fit=found.fit,
        neighbours=dict([found.neighbours]),
        layouts=dict([found.layout]),
    )
    again = analyse(collection, fake_embedder, Reporter(quiet=True), 5, 5, known)
    assert again.complete() == digest
    assert again.found.candidates.new == {} and again.found.similarities.new == {}
    assert again.found.candidates.keys == found.candidates.keys
    assert again.found.fit is None and again.found.neighbours is None and again.found.layout is None


def test_the_code_fingerprint_covers_the_learned_models(tmp_path: Path, monkeypatch) -> None:
    """A stored analysis made with another title model, verdict model or keyword model is not reused."""
    import shutil

    import generator

    package = Path(generator.__file__).parent
    copy = tmp_path / "generator"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(generator, "__file__", str(copy / "__init__.py"))
    fingerprint = generator.source_fingerprint.__wrapped__  # uncached: the files change between calls
    before = fingerprint()
    learned_files = [
        "analysis/title_model.npz",
        "analysis/title_verdicts.npz",
        "analysis/title_usage.json",
        "analysis/keyphrases/keyword_strays.json",
    ]
    for learned in learned_files:
        path = copy / learned
        path.write_bytes(path.read_bytes() + b" ")
        after = fingerprint()
        assert after != before, learned
        before = after

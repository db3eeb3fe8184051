"""The one cache: a SQLite database holding embeddings and every other stored result."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from generator.cache.database import CACHE_DATABASE, CacheDatabase, StoredEntries, open_cache
from generator.cache.embeddings import CachedEmbedder, EmbeddingCache
from tests.conftest import FakeEmbedder


def test_every_store_writes_into_one_database(tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    from generator.build import BuildRequest, build_digest
    from generator.progress import Reporter
    from generator.project.settings import Settings
    from tests.conftest import SAMPLE_ABSTRACTS, write_text_input
    from tests.test_topics_related import themed_corpus

    source = write_text_input(tmp_path / "in.txt", "Themes", themed_corpus(20)[0] + SAMPLE_ABSTRACTS)
    settings = Settings(project_root=tmp_path, cache_dir=tmp_path / "cache")
    build_digest(
        settings, BuildRequest((source,), tmp_path / "docs", None), Reporter(quiet=True), fake_embedder
    )
    assert [p.name for p in (tmp_path / "cache").iterdir() if not p.name.startswith(CACHE_DATABASE)] == []
    with sqlite3.connect(tmp_path / "cache" / CACHE_DATABASE) as database:
        kinds = {kind for (kind,) in database.execute("SELECT DISTINCT kind FROM entries")}
    assert kinds == {
        "keyphrase candidates",
        "keyword similarities",
        "paper neighbours",
        "digest fit",
        "map layout",
        "last analysis",
    }


def test_a_failed_write_keeps_what_was_stored(tmp_path: Path) -> None:
    database = CacheDatabase(tmp_path / CACHE_DATABASE)
    database.put("kind", "a", "v1", b"first")

    class Broken:
        def __iter__(self):
            yield ("b", b"second")
            raise sqlite3.DatabaseError("disk gone mid-write")

    database.put_many("kind", Broken(), "v1", keep_only=[])  # best effort: no exception, no change
    assert database.get("kind", "a", "v1") == b"first" and database.get("kind", "b", "v1") is None
    assert database.get("kind", "a", "other code") is None
    database.close()


@pytest.mark.parametrize("content", [b"not a database at all", b"SQLite format 3\x00" + b"\x00" * 100])
def test_a_damaged_file_is_started_anew(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / CACHE_DATABASE
    path.write_bytes(content)
    database = CacheDatabase(path, check=True)
    assert database.was_reset
    database.put("kind", "a", "v1", b"x")
    database.close()
    assert open_cache(tmp_path).get("kind", "a", "v1") == b"x"  # type: ignore[union-attr]


def test_a_database_of_another_schema_is_started_anew(tmp_path: Path) -> None:
    path = tmp_path / CACHE_DATABASE
    with sqlite3.connect(path) as foreign:
        foreign.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        foreign.execute("INSERT INTO meta VALUES ('schema', '0')")
    foreign.close()
    assert CacheDatabase(path).was_reset


def test_vectors_of_an_older_cache_folder_move_in(tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    legacy = tmp_path / "embeddings.sqlite3"
    with sqlite3.connect(legacy) as old:
        old.execute("CREATE TABLE vectors (key BLOB PRIMARY KEY, dim INTEGER NOT NULL, data BLOB NOT NULL)")
        vector = fake_embedder.embed(["graph neural networks"])[0]
        key = EmbeddingCache.key(fake_embedder.name, "graph neural networks")
        old.execute("INSERT INTO vectors VALUES (?, ?, ?)", (key, len(vector), vector.tobytes()))
    old.close()
    (tmp_path / "candidates.json").write_text("{}")
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "x.npy").write_bytes(b"")

    embedder = CachedEmbedder(fake_embedder, EmbeddingCache.open(tmp_path / CACHE_DATABASE))
    found = embedder.embed(["graph neural networks"])
    assert embedder.hits == 1 and embedder.misses == 0
    np.testing.assert_array_equal(found[0], vector)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in tmp_path.iterdir() if p.name.startswith(CACHE_DATABASE)
    )
    embedder.cache.close()


def test_the_last_analysis_reads_back_as_it_was(tmp_path: Path, fake_embedder: FakeEmbedder) -> None:
    from generator.analysis.analyse import analyse
    from generator.cache.analysis import AnalysisCache
    from generator.model import Collection
    from generator.progress import Reporter
    from tests.test_topics_related import papers_of, themed_corpus

    collection = Collection("Themes", papers_of(themed_corpus(20)[0]))
    digest = analyse(collection, fake_embedder, Reporter(quiet=True), 5, 5).complete()
    assert any(r.closeness is not None and r.shared_keywords for p in digest.papers for r in p.related)
    database = CacheDatabase(tmp_path / CACHE_DATABASE)
    AnalysisCache(database, fake_embedder.name).save("key", digest)
    database.close()
    store = AnalysisCache(open_cache(tmp_path), fake_embedder.name)
    assert store.load("key", collection, fake_embedder.name) == digest
    assert store.load("other key", collection, fake_embedder.name) is None


@pytest.mark.parametrize("cached_embedder", [False, True])
def test_a_build_opens_the_cache_once(
    tmp_path: Path, fake_embedder: FakeEmbedder, monkeypatch: pytest.MonkeyPatch, cached_embedder: bool
) -> None:
    """Only the pipeline opens the cache, and once per build, whether the embedder brings the
    connection (the command line's) or not (a test's), a fresh build or one reusing the last."""
    from generator.build import BuildRequest, build_digest
    from generator.progress import Reporter
    from generator.project.settings import Settings
    from tests.conftest import SAMPLE_ABSTRACTS, write_text_input
    from tests.test_topics_related import themed_corpus

    opened: list[Path] = []
    original = CacheDatabase.__init__

    def counting(self: CacheDatabase, path: Path, check: bool = False) -> None:
        opened.append(path)
        original(self, path, check)

    monkeypatch.setattr(CacheDatabase, "__init__", counting)
    source = write_text_input(tmp_path / "in.txt", "Themes", themed_corpus(20)[0] + SAMPLE_ABSTRACTS)
    settings = Settings(project_root=tmp_path, cache_dir=tmp_path / "cache")
    for edit in ("", "An edited abstract about graph neural networks and their training.\n"):
        if edit:
            source.write_text(source.read_text() + "\n" + edit)
        for reuse in (False, True):  # the second of each is a rebuild that reuses the analysis whole
            opened.clear()
            embedder = (
                CachedEmbedder(fake_embedder, EmbeddingCache.open(tmp_path / "cache" / CACHE_DATABASE))
                if cached_embedder
                else fake_embedder
            )
            result = build_digest(
                settings, BuildRequest((source,), tmp_path / "docs", None), Reporter(quiet=True), embedder
            )
            if isinstance(embedder, CachedEmbedder):
                embedder.cache.close()
            assert result.analysis_reused == reuse
            assert opened == [tmp_path / "cache" / CACHE_DATABASE]


def test_stored_entries_read_as_a_mapping_of_what_decodes(tmp_path: Path) -> None:
    database = CacheDatabase(tmp_path / CACHE_DATABASE)
    database.put_many("kind", [("a", b"1"), ("b", b"not a number"), ("c", b"3")], "v1")
    database.put("kind", "d", "v0", b"4")  # another code wrote it: not read

    def number(data: bytes) -> int | None:
        return int(data) if data.isdigit() else None

    for prefetch in (False, True):
        entries = StoredEntries(database, "kind", "v1", number, prefetch=prefetch)
        assert entries.get("a") == 1 and entries["c"] == 3
        assert entries.get("b") is None and "b" not in entries  # damaged: absent, never trusted
        assert entries.get("d") is None and entries.get("e") is None
        assert sorted(entries) == ["a", "b", "c"]
    assert StoredEntries(None, "kind", "v1", number).get("a") is None  # no cache: nothing known
    database.close()

"""Page addresses that survive edits: matching papers to the address record, and the pages left at old
addresses (``generator.sources.identity``, ``generator.site.redirects``)."""

from __future__ import annotations

import base64
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.build import BuildRequest, build_digest
from generator.errors import DigestError
from generator.finish.pages import NOT_SEARCHED_MARK
from generator.finish.sitemap import leave_out_of_sitemap, sitemap_without
from generator.model import Paper, SourceLocation
from generator.progress import Reporter
from generator.project.settings import Settings
from generator.site.redirects import MOVED_DATA, redirect_files, redirect_page, removed_addresses
from generator.site.render import PageRenderer
from generator.sources import read_collection
from generator.sources.base import paper_id_from_abstract
from generator.sources.identity import (
    ADDRESS_RECORD,
    SIMILAR,
    SIMILAR_IN_PLACE,
    AddressRecord,
    PageNote,
    Redirect,
    next_record,
    read_record,
    record_text,
    redirects,
    settle_identities,
    similarity,
    sketch_texts,
)
from tests.conftest import PROJECT_ROOT, FakeEmbedder

EXAMPLE = PROJECT_ROOT / "generator/project/example/000_5aaa146f96fdc071.txt"
ABSTRACTS = [p for p in EXAMPLE.read_text(encoding="utf-8").split("\n\n")[1:] if p.strip()][:8]
OTHER_ABSTRACT = (
    (PROJECT_ROOT / "generator/project/example/001_be6b612b2a72bab3.txt").read_text().split("\n\n")[1]
)
"""An abstract none of the tests' records hold."""
ROOT = Path("/digest")


EMPTY = AddressRecord()


def papers_of(
    abstracts: list[str], file: str = "abstracts/papers.txt", ids: list[str] | None = None
) -> list[Paper]:
    return [
        Paper(
            id=ids[i] if ids else paper_id_from_abstract(text),
            abstract=text,
            source=SourceLocation(ROOT / file, 3 + 2 * i),
        )
        for i, text in enumerate(abstracts)
    ]


def build_record(papers: list[Paper], previous: AddressRecord = EMPTY) -> tuple[list[Paper], AddressRecord]:
    """Settle ``papers`` against ``previous`` and record them at addresses named after their ids (the
    analysis would name them after their titles; which name is no matter here)."""
    settled = settle_identities(papers, previous, ROOT)
    addresses = [paper.address or f"page-{paper.id}" for paper in settled.papers]
    return list(settled.papers), next_record(settled, addresses)


def address_of(record: AddressRecord, paper: Paper) -> str:
    return next(known.address for known in record.papers if known.id == paper.id)


def typo(text: str) -> str:
    fixed = text.replace(" the ", " teh ", 1)
    assert fixed != text
    return fixed


def test_a_typo_fix_keeps_the_id_and_address() -> None:
    first, record = build_record(papers_of(ABSTRACTS))
    edited = [*ABSTRACTS]
    edited[2] = typo(edited[2])
    second, next_ = build_record(papers_of(edited), read_back(record))
    assert [p.id for p in second] == [p.id for p in first]
    assert address_of(next_, second[2]) == address_of(record, first[2])
    assert next_.retired == ()
    # Without the record, the typo would have given the paper another id.
    assert paper_id_from_abstract(edited[2]) != first[2].id


def test_a_paragraph_inserted_before_a_paper_keeps_every_address() -> None:
    first, record = build_record(papers_of(ABSTRACTS))
    inserted = "A new abstract about tidal energy in estuaries, measured over twelve years of buoy records."
    edited = [ABSTRACTS[0], inserted, *ABSTRACTS[1:]]
    edited[4] = typo(edited[4])  # moved one place down and edited: matched by overlap
    second, next_ = build_record(papers_of(edited), read_back(record))
    assert [p.id for p in second if p.abstract != inserted] == [p.id for p in first]
    assert {k.address for k in next_.papers} >= {k.address for k in record.papers}
    assert next_.retired == ()


def test_a_removed_paper_leaves_a_redirect_to_home_that_outlives_later_builds() -> None:
    first, record = build_record(papers_of(ABSTRACTS))
    _, record2 = build_record(papers_of(ABSTRACTS[:3] + ABSTRACTS[4:]), read_back(record))
    gone = address_of(record, first[3])
    assert redirects(record2) == [Redirect(gone, None)]
    _, record3 = build_record(papers_of(ABSTRACTS[:3] + ABSTRACTS[4:]), read_back(record2))
    assert redirects(record3) == [Redirect(gone, None)]
    # It comes back: same id and address, and no redirect.
    back, record4 = build_record(papers_of(ABSTRACTS), read_back(record3))
    assert back[3].id == first[3].id and address_of(record4, back[3]) == gone
    assert record4.retired == ()


def test_a_renamed_file_keeps_the_addresses() -> None:
    first, record = build_record(papers_of(ABSTRACTS))
    edited = [*ABSTRACTS]
    edited[5] = typo(edited[5])
    second, next_ = build_record(papers_of(edited, file="abstracts/icml-2024.txt"), read_back(record))
    assert [p.id for p in second] == [p.id for p in first]
    assert next_.retired == () and next_.papers[0].file == "abstracts/icml-2024.txt"


def test_a_rewrite_in_place_keeps_the_address_but_a_new_paper_elsewhere_does_not() -> None:
    first, record = build_record(papers_of(ABSTRACTS))
    words = ABSTRACTS[1].split()
    # Its first half kept, the rest replaced: too little overlap to be found anywhere, enough in place.
    rewrite = " ".join(words[: len(words) // 2]) + " " + OTHER_ABSTRACT
    rewritten = similarity(*(np_sketch(t) for t in (rewrite, ABSTRACTS[1])))
    assert SIMILAR_IN_PLACE <= rewritten < SIMILAR
    in_place = [*ABSTRACTS]
    in_place[1] = rewrite
    second, _ = build_record(papers_of(in_place[:6]), read_back(record))
    assert second[1].id == first[1].id
    moved = [ABSTRACTS[0], *ABSTRACTS[2:6], rewrite]
    third, record3 = build_record(papers_of(moved), read_back(record))
    assert third[-1].id != first[1].id
    assert Redirect(address_of(record, first[1]), None) in redirects(record3)


def test_unrelated_abstracts_are_far_below_the_threshold() -> None:
    sketches = [np_sketch(text) for text in ABSTRACTS]
    scores = [similarity(a, b) for i, a in enumerate(sketches) for b in sketches[i + 1 :]]
    assert max(scores) < 0.15
    assert similarity(np_sketch(typo(ABSTRACTS[0])), sketches[0]) > 0.85


def test_own_ids_are_kept_and_a_changed_id_moves_the_page() -> None:
    ids = [f"paper-{i}" for i in range(len(ABSTRACTS))]
    first, record = build_record(papers_of(ABSTRACTS, ids=ids))
    assert [p.id for p in first] == ids
    changed = [*ids]
    changed[4] = "paper-four"
    edited = [*ABSTRACTS]
    edited[0] = ABSTRACTS[7]  # an own id names the paper, whatever its text now is
    second, next_ = build_record(papers_of(edited, ids=changed), read_back(record))
    assert [p.id for p in second] == changed
    assert address_of(next_, second[0]) == address_of(record, first[0])
    assert redirects(next_) == [Redirect("page-paper-4", "page-paper-four")]


def test_a_paper_whose_old_id_another_paper_now_has_gets_a_new_one() -> None:
    first, record = build_record(papers_of(ABSTRACTS[:3]))
    edited = [typo(ABSTRACTS[0]), *ABSTRACTS[1:3]]
    # The edited paper keeps its id; a paper with its old text is added under the old text's hash.
    second, _ = build_record(papers_of([*edited, ABSTRACTS[0]]), read_back(record))
    assert second[3].id == first[0].id  # the exact text is the recorded paper
    assert len({p.id for p in second}) == 4


def test_the_record_reads_back_and_refuses_a_broken_file(tmp_path: Path) -> None:
    _, record = build_record(papers_of(ABSTRACTS))
    path = tmp_path / ADDRESS_RECORD
    path.write_text(record_text(record), encoding="utf-8")
    assert read_record(path) == record
    assert json.loads(path.read_text())["about"].startswith("Written by paper-digest build")
    assert read_record(tmp_path / "missing.json") == AddressRecord()
    path.write_text(record_text(record).replace('"format": 1', "<<<<<<< HEAD"), encoding="utf-8")
    with pytest.raises(DigestError, match=r"paper-addresses\.json:3: not valid JSON.*restore it from git"):
        read_record(path)
    path.write_text('{"format": 1, "papers": [{"id": "x"}]}', encoding="utf-8")
    with pytest.raises(DigestError, match="not an address record"):
        read_record(path)


def test_a_moved_papers_page_runs_no_script_and_leads_on() -> None:
    moved = redirect_page(Redirect("old-abc123", "new-def456"), "papers")
    assert '<meta http-equiv="refresh" content="0; url=../new-def456/">' in moved
    assert "<script" not in moved and "default-src 'none'" in moved
    files = redirect_files([Redirect("old-abc123", "new-def456"), Redirect("gone-abc123", None)], "papers")
    # A removed paper's page is one of the site's (``removed_paper_pages``), not a file of its own.
    assert set(files) == {"papers/old-abc123/index.html", MOVED_DATA}
    assert removed_addresses(files[MOVED_DATA]) == ["papers/gone-abc123/"]


def test_a_removed_papers_page_is_a_page_of_the_site_that_goes_nowhere_by_itself() -> None:
    pages = PageRenderer().removed_paper_pages([Redirect("old-abc123", None), Redirect("a-b", "c-d")])
    assert list(pages) == ["papers/old-abc123.md"]
    page = pages["papers/old-abc123.md"]
    assert "\ntemplate: generated-page.html\n" in page and "# This paper is no longer in the digest" in page
    # Not a paper: out of the search index, and search engines asked to forget it.
    assert NOT_SEARCHED_MARK in page and '<meta name="robots" content="noindex">' in page
    assert "[Go to the home page](../index.md)" in page and 'class="paper-not-found"' in page
    # No timed refresh: the reader leaves when they have read the note (axe's meta-refresh).
    assert "refresh" not in page
    assert "since." not in page.replace("has since been", "")


def test_a_removed_papers_page_names_it_and_says_where_it_is_through_later_builds() -> None:
    """The note at a removed paper's address names the paper as its page did (saying so when the
    title was derived) and links the paper itself when its input gave a link; the record keeps both
    while the address stays retired, through builds that read it back from the file."""
    papers = papers_of(ABSTRACTS[:3])
    settled = settle_identities(papers, EMPTY, ROOT)
    notes = [
        PageNote("Tidal <Energy> & Estuaries", False, "https://example.org/paper?id=1&v=2"),
        PageNote("A title chosen from the abstract", True),
        PageNote("Third", False),
    ]
    record = next_record(settled, [f"page-{p.id}" for p in settled.papers], notes)
    assert read_back(record) == record
    _, later = build_record(papers_of([ABSTRACTS[2]]), read_back(record))
    _, later = build_record(papers_of([ABSTRACTS[2]]), read_back(later))
    left = {r.address: r for r in redirects(later)}
    given, derived = left[f"page-{papers[0].id}"], left[f"page-{papers[1].id}"]
    assert (given.target, given.page, derived.page) == (None, notes[0], notes[1])

    pages = PageRenderer().removed_paper_pages([given, derived])
    given_page = pages[f"papers/{given.address}.md"]
    assert "“Tidal &lt;Energy&gt; &amp; Estuaries”" in given_page and "Paper Digest wrote" not in given_page
    assert 'title: "No longer in the digest: Tidal &lt;Energy&gt; &amp; Estuaries"' in given_page
    assert '<a href="https://example.org/paper?id=1&amp;v=2">' in given_page
    derived_page = pages[f"papers/{derived.address}.md"]
    assert (
        "“A title chosen from the abstract” (a title Paper Digest wrote from its abstract: the paper "
        "came without one)" in derived_page
    )
    assert "still at" not in derived_page


def test_a_removed_papers_page_shows_its_title_as_the_paper_page_did() -> None:
    """Markdown and HTML in a title read as written; its math is typeset, as on the paper's page."""
    note = PageNote("A [link](javascript:x) <b>bold</b> for $\\alpha$-*nets*", False, "javascript:alert(1)")
    page = PageRenderer().removed_paper_pages([Redirect("x-1", None, note)])["papers/x-1.md"]
    assert "“A \\[link\\](javascript:x) &lt;b&gt;bold&lt;/b&gt; for $\\alpha$-\\*nets\\*”" in page
    assert "alert" not in page and "still at" not in page  # no link that is not http(s)


def test_a_record_link_that_is_no_web_address_is_refused(tmp_path: Path) -> None:
    settled = settle_identities(papers_of(ABSTRACTS[:1]), EMPTY, ROOT)
    record = next_record(settled, ["page-a"], [PageNote("T", False, "https://example.org/")])
    path = tmp_path / ADDRESS_RECORD
    path.write_text(record_text(record).replace("https://example.org/", "javascript:alert(1)"), "utf-8")
    with pytest.raises(DigestError, match="not an address record"):
        read_record(path)


def np_sketch(text: str):
    import numpy as np

    return np.frombuffer(sketch_texts([text])[0], dtype=np.uint8)


def read_back(record: AddressRecord) -> AddressRecord:
    """The record as the next build reads it from the file."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ADDRESS_RECORD
        path.write_text(record_text(record), encoding="utf-8")
        return read_record(path)


# --- whole builds ---------------------------------------------------------------------------------


def write_digest(root: Path, abstracts: list[str], name: str = "papers.txt") -> None:
    folder = root / "abstracts"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / name).write_text("Test Digest\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")


def build(root: Path, embedder: FakeEmbedder) -> dict[str, str]:
    """Build the digest's Markdown; each paper's address by its text's first words."""
    settings = Settings(project_root=root, cache_dir=Path(".cache/paper-digest"))
    request = BuildRequest((root / "abstracts",), root / "docs", None, address_record=root / ADDRESS_RECORD)
    result = build_digest(settings, request, Reporter(quiet=True), embedder)
    return {" ".join(p.entry.paper.abstract.split()[:6]): p.entry.slug for p in result.digest.papers}


def test_edits_keep_addresses_through_builds_and_a_clean_clone(tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    root = tmp_path / "digest"
    write_digest(root, ABSTRACTS)
    first = build(root, embedder)
    assert len(first) == len(ABSTRACTS)
    assert all((root / "docs/papers" / f"{slug}.md").is_file() for slug in first.values())

    inserted = "A new abstract about tidal energy in estuaries, measured over twelve years of buoy records."
    edited = [ABSTRACTS[0], inserted, typo(ABSTRACTS[1]), *ABSTRACTS[2:5], *ABSTRACTS[6:]]
    write_digest(root, edited, name="renamed.txt")
    second = build(root, embedder)
    removed = " ".join(ABSTRACTS[5].split()[:6])
    assert {k: v for k, v in second.items() if k in first} == {k: v for k, v in first.items() if k != removed}
    gone = root / "docs/papers" / f"{first[removed]}.md"
    assert "no longer in the digest" in gone.read_text(encoding="utf-8")
    moved = json.loads((root / "docs" / MOVED_DATA).read_text(encoding="utf-8"))["moved"]
    assert moved == {f"papers/{first[removed]}/": None}

    # A clean clone: the digest's files and the record, no cache, no docs.
    clone = tmp_path / "clone"
    shutil.copytree(
        root, clone, ignore=shutil.ignore_patterns(".cache", "docs", "site", ".docs.*", ".site.*")
    )
    assert build(clone, FakeEmbedder()) == second
    assert (clone / "docs/papers" / f"{first[removed]}.md").read_text() == gone.read_text()
    assert (clone / ADDRESS_RECORD).read_text() == (root / ADDRESS_RECORD).read_text()


def test_without_a_record_the_ids_are_the_text_hashes(tmp_path: Path) -> None:
    write_digest(tmp_path, ABSTRACTS[:3])
    collection = read_collection([tmp_path / "abstracts"])
    settled = settle_identities(collection.papers, AddressRecord(), tmp_path)
    assert [p.id for p in settled.papers] == [paper_id_from_abstract(t) for t in ABSTRACTS[:3]]
    assert [replace(p, address=None) for p in settled.papers] == list(collection.papers)


# --- the record is a file anyone can edit ----------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "id": JSON | st.text(min_size=1, max_size=12),
        "address": JSON | st.sampled_from(["ok-abc123", "../../escape", "a/b", "UPPER", ""]),
        "own_id": JSON,
        "file": JSON | st.just("abstracts/x.txt"),
        "position": JSON,
        "text": JSON | st.just("0123456789ab"),
        "sketch": JSON | st.just("AA==") | st.just(base64.b64encode(bytes(64)).decode()),
        "successor": JSON,
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    document=st.one_of(
        JSON,
        st.fixed_dictionaries(
            {"format": st.just(1) | JSON},
            optional={
                "papers": st.lists(FIELDS, max_size=3) | JSON,
                "retired": st.lists(FIELDS, max_size=3) | JSON,
            },
        ),
    )
)
def test_any_record_file_is_read_or_refused_with_a_message(tmp_path: Path, document: object) -> None:
    path = tmp_path / ADDRESS_RECORD
    path.write_text(json.dumps(document), encoding="utf-8")
    try:
        record = read_record(path)
    except DigestError as error:
        assert str(path) in str(error)
        return
    for address in [k.address for k in record.papers] + [r.address for r in record.retired]:
        assert "/" not in address and not address.startswith(".")  # a folder in docs/papers, no other


def test_a_deeply_nested_record_is_refused(tmp_path: Path) -> None:
    path = tmp_path / ADDRESS_RECORD
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(DigestError):
        read_record(path)


# --- the sitemap ----------------------------------------------------------------------------------

MKDOCS_SITEMAP = """<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
    <url>
         <loc>https://o.github.io/repo/</loc>
         <lastmod>2024-07-01</lastmod>
    </url>
    <url>
         <loc>https://o.github.io/repo/papers/gone-abc123/</loc>
         <lastmod>2024-07-01</lastmod>
    </url>
    <url>
         <loc>https://o.github.io/repo/papers/kept-gone-abc123/</loc>
         <lastmod>2024-07-01</lastmod>
    </url>
</urlset>"""
ZENSICAL_SITEMAP = """<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url>
        <loc>/papers/gone-abc123/</loc>
      </url>
      <url>
        <loc>/papers/kept-abc123/</loc>
      </url>
</urlset>"""


def test_the_removed_papers_pages_leave_either_engines_sitemap_and_no_other_page() -> None:
    mkdocs = sitemap_without(MKDOCS_SITEMAP, ["papers/gone-abc123/"])
    assert "gone-abc123/</loc>" in mkdocs and "papers/gone-abc123" not in mkdocs
    assert (
        mkdocs.count("<url>") == mkdocs.count("</url>") == 2
        and "<loc>https://o.github.io/repo/</loc>" in mkdocs
    )
    zensical = sitemap_without(ZENSICAL_SITEMAP, ["papers/gone-abc123/"])
    assert zensical.count("<url>") == 1 and "kept-abc123" in zensical and zensical.endswith("</urlset>")
    assert sitemap_without(ZENSICAL_SITEMAP, []) == ZENSICAL_SITEMAP


def test_the_gzipped_sitemap_is_written_again_with_its_time(tmp_path: Path) -> None:
    import gzip
    import io

    (tmp_path / "sitemap.xml").write_text(MKDOCS_SITEMAP, encoding="utf-8")
    packed = io.BytesIO()
    with gzip.GzipFile(fileobj=packed, filename="sitemap.xml.gz", mode="wb", mtime=1_700_000_000) as file:
        file.write(MKDOCS_SITEMAP.encode())
    (tmp_path / "sitemap.xml.gz").write_bytes(packed.getvalue())
    leave_out_of_sitemap(tmp_path, ["papers/gone-abc123/"])
    text = (tmp_path / "sitemap.xml").read_text(encoding="utf-8")
    assert "papers/gone-abc123/" not in text
    zipped = (tmp_path / "sitemap.xml.gz").read_bytes()
    assert gzip.decompress(zipped).decode() == text and zipped[4:8] == packed.getvalue()[4:8]

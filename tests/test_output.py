"""The build replaces docs and site only when everything succeeded."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest

from generator.build import BuildRequest, build_digest
from generator.errors import DigestError
from generator.model import AnalysedPaper, Digest
from generator.progress import Reporter
from generator.project.settings import load_settings
from generator.site.output import MANIFEST_NAME
from tests.conftest import PROJECT_ROOT, SAMPLE_ABSTRACTS, search_records, write_text_input


def snapshot(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _site_builds(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each site build the build asks for from now on (the site is still built), as whether it was
    an update."""
    from generator import build as build_module

    updates: list[bool] = []
    real_build_site = build_module.build_site

    def build_site(*arguments, **options):  # type: ignore[no-untyped-def]
        updates.append(options.get("update", False))
        return real_build_site(*arguments, **options)

    monkeypatch.setattr(build_module, "build_site", build_site)
    return updates


@pytest.fixture
def project(tmp_path: Path) -> dict:
    settings = replace(load_settings(PROJECT_ROOT), cache_dir=tmp_path / "cache")
    source = write_text_input(tmp_path / "in.txt", "Test Digest", SAMPLE_ABSTRACTS)
    request = BuildRequest((source,), tmp_path / "out" / "docs", tmp_path / "out" / "site")
    return {"settings": settings, "request": request, "source": source, "root": tmp_path}


def test_failed_mkdocs_build_leaves_previous_output_identical(project: dict, fake_embedder) -> None:
    settings, request = project["settings"], project["request"]
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    docs_before, site_before = snapshot(request.docs_dir), snapshot(request.site_dir)
    input_before = project["source"].read_bytes()
    assert "papers.json" in site_before and "index.md" in docs_before

    write_text_input(
        project["source"], "Test Digest", [*SAMPLE_ABSTRACTS, "A brand new abstract about optics."]
    )
    broken = project["root"] / "broken.yml"
    broken.write_text("site_name: x\ntheme:\n  name: no-such-theme\n")
    with pytest.raises(DigestError):
        build_digest(replace(settings, mkdocs_config=broken), request, Reporter(quiet=True), fake_embedder)

    assert snapshot(request.docs_dir) == docs_before
    assert snapshot(request.site_dir) == site_before
    assert not [
        p for p in request.docs_dir.parent.iterdir() if p.name.startswith(".") and "staging" in p.name
    ]
    assert project["source"].read_bytes() != input_before  # we changed it, the build did not


def test_rebuild_keeps_unchanged_files_and_hand_written_pages(project: dict, fake_embedder) -> None:
    settings, request = project["settings"], project["request"]
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    own_page = request.docs_dir / "notes.md"
    own_page.write_text("# My notes\n")
    index = request.docs_dir / "index.md"
    stamp = index.stat().st_mtime_ns
    result = build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert result.docs.written == 0
    assert index.stat().st_mtime_ns == stamp
    assert own_page.read_text() == "# My notes\n"
    assert (request.site_dir / "notes" / "index.html").is_file()
    # The project's hand-written files came along into this other docs folder.
    assert (request.docs_dir / "javascripts" / "mathjax.js").is_file()


def test_removed_paper_pages_disappear(project: dict, fake_embedder) -> None:
    settings, request = project["settings"], project["request"]
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    pages = set((request.docs_dir / "papers").iterdir())
    write_text_input(project["source"], "Test Digest", SAMPLE_ABSTRACTS[:-1])
    result = build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert result.docs.removed >= 1
    assert len(set((request.docs_dir / "papers").iterdir())) == len(pages) - 1


def test_interrupted_build_leaves_previous_output(project: dict, fake_embedder, monkeypatch) -> None:
    settings, request = project["settings"], project["request"]
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    docs_before, site_before = snapshot(request.docs_dir), snapshot(request.site_dir)

    def interrupted(*_args: object, **_options: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("generator.build.build_site", interrupted)
    write_text_input(project["source"], "Test Digest", SAMPLE_ABSTRACTS[:3])
    with pytest.raises(KeyboardInterrupt):
        build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert snapshot(request.docs_dir) == docs_before
    assert snapshot(request.site_dir) == site_before


def test_unchanged_rebuild_skips_mkdocs_but_a_change_rebuilds(
    project: dict, fake_embedder, monkeypatch
) -> None:
    settings, request = project["settings"], project["request"]
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    site_before = snapshot(request.site_dir)
    calls = _site_builds(monkeypatch)
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert calls == []
    assert snapshot(request.site_dir) == site_before
    assert not [p for p in request.site_dir.parent.iterdir() if "staging" in p.name]
    monkeypatch.setenv("SITE_URL", "https://example.org/digest/")
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert len(calls) == 1
    write_text_input(project["source"], "Test Digest", SAMPLE_ABSTRACTS[:-1])
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert len(calls) == 2


def test_updated_site_is_the_site_a_full_build_makes(project: dict, fake_embedder, monkeypatch) -> None:
    settings, request = project["settings"], project["request"]
    # A page no edit touches: the update does not render it again, yet it must stay searchable.
    request.docs_dir.mkdir(parents=True)
    (request.docs_dir / "notes.md").write_text("# Notes\n\nOur reading group meets on Tuesdays.\n")
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    edited = [f"{SAMPLE_ABSTRACTS[0]} We also release our code.", *SAMPLE_ABSTRACTS[1:-1]]
    edited.append("A brand new abstract about optics, lenses and the cameras that hold them.")
    write_text_input(project["source"], "Test Digest", edited)
    updates = _site_builds(monkeypatch)
    result = build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert updates == [True] and result.docs.removed >= 1
    full = replace(
        request, docs_dir=project["root"] / "full" / "docs", site_dir=project["root"] / "full" / "site"
    )
    full.docs_dir.mkdir(parents=True)
    (full.docs_dir / "notes.md").write_bytes((request.docs_dir / "notes.md").read_bytes())
    build_digest(settings, full, Reporter(quiet=True), fake_embedder)
    assert updates == [True, False]

    # The search index too: the update indexed the whole site again, pages rendered or not.
    assert snapshot(request.site_dir) == snapshot(full.site_dir)
    searched = {record["url"]: record["content"] for record in search_records(request.site_dir)}
    assert "Tuesdays" in searched["/notes/"], "the page the update did not render is still searched"
    assert any("We also release our code" in text for text in searched.values()), "the edit is searched"
    assert any("optics, lenses" in text for text in searched.values()), "the new paper is searched"
    assert not any(".staging" in p.name for p in request.site_dir.parent.iterdir())


def test_a_removed_papers_page_in_an_update_is_the_page_a_full_build_makes(
    project: dict, fake_embedder, monkeypatch
) -> None:
    """With an address record, a removed paper's page replaces its paper's page: an update renders it
    (and leaves it out of the sitemap and its gzipped copy) as a full build from the same record does."""
    settings, root = project["settings"], project["root"]
    request = replace(project["request"], address_record=root / "out" / "paper-addresses.json")
    first = build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    gone = next(p.entry.slug for p in first.digest.papers if p.entry.paper.abstract == SAMPLE_ABSTRACTS[-1])
    record = request.address_record.read_bytes()
    write_text_input(project["source"], "Test Digest", SAMPLE_ABSTRACTS[:-1])
    updates = _site_builds(monkeypatch)
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    full_root = root / "full"
    full = replace(
        request,
        docs_dir=full_root / "docs",
        site_dir=full_root / "site",
        address_record=full_root / "paper-addresses.json",
    )
    full_root.mkdir()
    full.address_record.write_bytes(record)
    build_digest(settings, full, Reporter(quiet=True), fake_embedder)
    assert updates == [True, False]

    page = (request.site_dir / "papers" / gone / "index.html").read_text(encoding="utf-8")
    assert "This paper is no longer in the digest" in page and 'class="md-header' in page
    sitemap = (request.site_dir / "sitemap.xml").read_text(encoding="utf-8")
    assert f"papers/{gone}/" not in sitemap and "papers/" in sitemap
    assert snapshot(request.site_dir) == snapshot(full.site_dir)


def test_an_update_over_linked_files_leaves_the_published_site_as_it_was(
    project: dict, fake_embedder, monkeypatch
) -> None:
    """The update starts from hard links to the published site's files; MkDocs and the hook then
    write every changed file anew, so a build that fails after them leaves the site byte for byte."""
    settings, request = project["settings"], project["request"]
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    site_before = snapshot(request.site_dir)
    edited = [f"{SAMPLE_ABSTRACTS[0]} We also release our code.", *SAMPLE_ABSTRACTS[1:]]
    write_text_input(project["source"], "Test Digest", edited)
    from generator import build as build_module

    linked: list[int] = []
    real_build_site = build_module.build_site

    def build_then_fail(*arguments, **options):
        staged_site = arguments[2]
        linked.append(sum(1 for p in staged_site.rglob("*") if p.is_file() and p.stat().st_nlink > 1))
        real_build_site(*arguments, **options)
        raise DigestError("stopped after MkDocs")

    monkeypatch.setattr(build_module, "build_site", build_then_fail)
    with pytest.raises(DigestError, match="stopped after MkDocs"):
        build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert linked and linked[0] > 0.9 * len(site_before), "the update did not start from links"
    assert snapshot(request.site_dir) == site_before


def test_replaced_folders_are_removed_after_the_build(project: dict, fake_embedder) -> None:
    """The old docs and site are deleted by a process of their own, with any a stopped build left."""
    import time

    settings, request = project["settings"], project["request"]
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    stale = request.site_dir.parent / f".{request.site_dir.name}.old-1-1"
    (stale / "papers").mkdir(parents=True)
    (stale / "papers" / "index.html").write_text("left by a build stopped while removing it")
    write_text_input(project["source"], "Test Digest", SAMPLE_ABSTRACTS[:-1])
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert (request.site_dir / "index.html").is_file() and (request.docs_dir / "index.md").is_file()

    def leftovers() -> list[str]:
        return [p.name for p in request.site_dir.parent.iterdir() if ".old-" in p.name]

    deadline = time.monotonic() + 30
    while leftovers() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert leftovers() == []


def test_an_owners_plugin_or_hook_gets_a_copied_site(tmp_path: Path) -> None:
    from generator.engine.settings import site_files_may_be_shared

    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\n")
    assert site_files_may_be_shared(config)
    config.write_text("site_name: x\nplugins:\n  - tags\n")
    assert not site_files_may_be_shared(config)
    config.write_text("site_name: x\nhooks:\n  - my_hook.py\n")
    assert not site_files_may_be_shared(config)


def test_updated_hand_written_file_reaches_another_docs_folder(
    project: dict, fake_embedder, tmp_path
) -> None:
    settings, request = project["settings"], project["request"]
    own_root = tmp_path / "project"
    (own_root / "docs" / "javascripts").mkdir(parents=True)
    for name in ("mkdocs.yml", "pyproject.toml"):
        (own_root / name).write_bytes((PROJECT_ROOT / name).read_bytes())
    (own_root / "site_templates").symlink_to(PROJECT_ROOT / "site_templates")
    (own_root / "generator").symlink_to(PROJECT_ROOT / "generator")
    script = own_root / "docs" / "javascripts" / "extra.js"
    script.write_text("// first\n")
    settings = replace(settings, project_root=own_root, mkdocs_config=PROJECT_ROOT / "mkdocs.yml")
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    script.write_text("// second\n")
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert (request.docs_dir / "javascripts" / "extra.js").read_text() == "// second\n"


def test_site_built_while_the_map_is_laid_out_gets_the_map(project: dict, fake_embedder, monkeypatch) -> None:
    """A digest large enough for t-SNE: MkDocs builds the site while a worker lays out the map, and
    the files holding positions are complete, the same in docs and site, before anything is published."""
    import io

    from generator import build as build_module
    from tests.test_topics_related import themed_corpus

    settings, request = project["settings"], project["request"]
    write_text_input(project["source"], "Themes", themed_corpus(20)[0])
    log = io.StringIO()
    build_digest(settings, request, Reporter(log), fake_embedder)
    map_lines = [line for line in log.getvalue().splitlines() if line.startswith("paper map")]
    assert len(map_lines) == 1 and "(t-SNE, laid out in a worker process" in map_lines[0], map_lines
    for name in ("papers.json", "assets/paper-map.js"):
        assert (request.site_dir / name).read_bytes() == (request.docs_dir / name).read_bytes()
    positions = [paper["map"] for paper in json.loads((request.site_dir / "papers.json").read_text())]
    assert len(positions) == 60 and len({tuple(p) for p in positions}) == 60

    calls: list[object] = []
    monkeypatch.setattr(build_module, "build_site", lambda *a, **k: calls.append(a))
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert calls == [], "the site's stamp covers the map files written after MkDocs"


@pytest.mark.parametrize("relative", ["../outside.md", "papers/../../outside.md", "/etc/passwd", ""])
def test_no_docs_file_is_written_outside_the_docs_folder(tmp_path: Path, relative: str) -> None:
    from generator.site.output import StagedOutput

    output = StagedOutput(tmp_path / "docs", None)
    try:
        with pytest.raises(DigestError, match="outside"):
            output.write_docs({relative: "x"}, "Digest", None)
    finally:
        output.discard()
    assert sorted(p.name for p in tmp_path.rglob("*")) == []


def _paper_pages_rendered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    from generator.site.render import PageRenderer

    rendered: list[str] = []
    real = PageRenderer._paper_page

    def counted(self: PageRenderer, digest: Digest, paper: AnalysedPaper, shown: dict) -> str:
        rendered.append(paper.entry.slug)
        return real(self, digest, paper, shown)

    monkeypatch.setattr(PageRenderer, "_paper_page", counted)
    return rendered


def test_a_rebuild_renders_only_the_paper_pages_whose_content_changed(
    project: dict, fake_embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_topics_related import themed_corpus

    texts, _ = themed_corpus(20)  # 60 papers: an edit changes a few related lists, not all
    records = [
        {"id": f"p{i}", "title": t.split(". ", 1)[0], "abstract": t.split(". ", 1)[1]}
        for i, t in enumerate(texts)
    ]
    source = project["root"] / "papers.jsonl"

    def write(rows: list[dict]) -> None:
        source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")

    write(records)
    settings, request = project["settings"], replace(project["request"], inputs=(source,))
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    rendered = _paper_pages_rendered(monkeypatch)
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert rendered == [], "nothing changed: no paper page is rendered"

    records[7] = {**records[7], "abstract": records[7]["abstract"] + " We also release our code."}
    write(records)
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert 1 <= len(rendered) <= len(records) // 2, rendered
    edited = next(
        p for p in (request.docs_dir / "papers").glob("*.md") if "release our code" in p.read_text()
    )
    assert edited.stem in rendered

    # The kept pages are exactly what a build from nothing writes.
    full = replace(
        request, docs_dir=project["root"] / "full" / "docs", site_dir=project["root"] / "full" / "site"
    )
    build_digest(settings, full, Reporter(quiet=True), fake_embedder)
    generated = set(json.loads((full.docs_dir / MANIFEST_NAME).read_text())["files"])
    assert {k: v for k, v in snapshot(request.docs_dir).items() if k in generated} == {
        k: v for k, v in snapshot(full.docs_dir).items() if k in generated
    }


def test_a_paper_page_edited_by_hand_or_deleted_is_rendered_again(
    project: dict, fake_embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, request = project["settings"], project["request"]
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    first, second = sorted((request.docs_dir / "papers").glob("*.md"))[:2]
    made = first.read_bytes(), second.read_bytes()
    first.write_text("# Changed by hand\n")
    second.unlink()
    rendered = _paper_pages_rendered(monkeypatch)
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert sorted(rendered) == sorted([first.stem, second.stem])
    assert (first.read_bytes(), second.read_bytes()) == made


def test_paper_pages_are_keyed_by_code_templates_and_options(tmp_path: Path) -> None:
    from generator.site.render import PageRenderer, RenderOptions

    shipped = PageRenderer()._paper_template_key()
    assert shipped is not None and shipped == PageRenderer()._paper_template_key()
    assert PageRenderer(RenderOptions(site_url="https://example.org/"))._paper_template_key() != shipped
    (tmp_path / "keyword.md.j2").write_text("{{ keyword }}\n")
    (tmp_path / ".keyword.md.j2.swp").write_bytes(b"\xff\xfe\x00 an editor's swap file, not a template")
    assert PageRenderer(templates_override=tmp_path)._paper_template_key() not in (None, shipped)
    # A paper template of the project's own may read anything of the digest: always rendered.
    (tmp_path / "paper.md.j2").write_text("{{ digest.name }}\n")
    assert PageRenderer(templates_override=tmp_path)._paper_template_key() is None


def test_a_rebuild_keeps_unchanged_pages_by_their_recorded_size_and_time(
    project: dict, fake_embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, request = project["settings"], project["request"]
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)  # keys every file of the digest
    docs = request.docs_dir.resolve()
    read: list[Path] = []
    real_read_bytes = Path.read_bytes

    def counted(path: Path) -> bytes:
        if path.resolve().is_relative_to(docs) and path.suffix == ".md":
            read.append(path)
        return real_read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", counted)
    page = next((request.docs_dir / "papers").glob("*.md"))
    made = real_read_bytes(page)
    rendered = _paper_pages_rendered(monkeypatch)
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert read == [] and rendered == [], "nothing changed: no generated page is read or rendered"
    # A same-size edit by hand moves the modification time: the page is read, found changed, rendered.
    page.write_bytes(made.replace(b"#", b"$", 1))
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert rendered == [page.stem] and page.read_bytes() == made


def test_a_site_whose_navigation_gains_or_loses_topics_is_built_anew(tmp_path: Path) -> None:
    """Every page shows the navigation, so an update that rebuilt only the changed pages would leave
    the others naming (or missing) Topics: the settings part of the fingerprint differs."""
    from generator.site_build import site_fingerprint

    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\n", encoding="utf-8")
    listed = site_fingerprint("docs", config, "Name", nav_lists_topics=True)
    unlisted = site_fingerprint("docs", config, "Name", nav_lists_topics=False)
    assert listed.settings != unlisted.settings and listed.docs == unlisted.docs
    assert site_fingerprint("docs", config, "Name") == listed
    # Another engine renders every page otherwise: its site is built anew too.
    assert site_fingerprint("docs", config, "Name", engine="zensical").settings != listed.settings


def test_a_site_without_search_by_meaning_ships_no_runtime_and_no_switch(
    project: dict, fake_embedder
) -> None:
    """The fake embedder's vectors are not the model's: the site gets no meaning/ folder, no runtime,
    and a meaning.js that defines nothing (so the search box shows no switch)."""
    settings, request = project["settings"], project["request"]
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    site = snapshot(request.site_dir)
    assert not any(path.startswith(("meaning/", "javascripts/vendor/")) for path in site)
    script = (request.site_dir / "javascripts" / "meaning.js").read_text(encoding="utf-8")
    assert "paperMeaning" not in script

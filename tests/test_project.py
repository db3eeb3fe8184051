"""Digest folders: `paper-digest new`, finding the folder, merging MkDocs settings, choosing a device."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from generator.analysis.embed import (
    DeviceProbes,
    SentenceTransformerEmbedder,
    resolve_device,
    resolve_precision,
)
from generator.cli import main
from generator.engine.settings import (
    THEME_FOLDER,
    complete_settings,
    generator_defaults,
    load_digest_config,
    merged_settings,
    written_settings,
)
from generator.errors import DigestError
from generator.project import find_digest_folder
from generator.project.install_source import running_install_source
from generator.project.scaffold import new_digest
from generator.site.output import MANIFEST_NAME
from generator.sources import read_collection
from tests.conftest import PROJECT_ROOT, write_text_input


def test_new_writes_a_digest_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "my-digest"
    assert main(["new", str(target)]) == 0
    out = capsys.readouterr().out
    assert "next: cd" in out and "put your paper files in abstracts/" in out
    assert {p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()} == {
        "mkdocs.yml",
        ".gitignore",
        "abstracts/README.md",
        ".github/workflows/pages.yml",
        "requirements.txt",
    }
    config = (target / "mkdocs.yml").read_text(encoding="utf-8")
    # Unset, so that the inputs name the digest until the owner names it here.
    assert config.startswith("#") and "\n# site_name: My Paper Digest\n" in config
    assert (
        "/site/" in (target / ".gitignore").read_text() and "/.cache/" in (target / ".gitignore").read_text()
    )
    workflow = (target / ".github/workflows/pages.yml").read_text()
    assert "{{" not in workflow.replace("${{", "") and "pip install -r requirements.txt" in workflow
    installs = (target / "requirements.txt").read_text().splitlines()[-1]
    assert installs == running_install_source().requirement and f"installs {installs}" in out
    assert find_digest_folder(target).root == target


def test_new_example_holds_the_bundled_abstracts(tmp_path: Path) -> None:
    made = new_digest(tmp_path / "icml", example=True)
    papers = read_collection([made.root / "abstracts"]).papers
    assert len(papers) == 57
    assert len(read_collection([PROJECT_ROOT / "abstracts"]).papers) == 57


def test_new_refuses_a_folder_with_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    assert main(["new", str(tmp_path)]) == 1
    assert "is not empty" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    file = tmp_path / "notes.txt"
    with pytest.raises(DigestError, match="not a folder"):
        new_digest(file)


def test_owner_settings_are_merged_with_the_generators() -> None:
    owner = {
        "site_name": "Mine",
        "hooks": ["my_hook.py"],
        "plugins": ["search", {"material/search": {"lang": "de"}}, {"tags": {}}],
        "markdown_extensions": [{"toc": {"permalink": "#"}}, "admonition"],
        "extra_css": ["mine.css"],
        "nav": [{"Papers": "index.md"}, {"Call for papers": "cfp.md"}],
        "exclude_docs": "/drafts/\n",
        "theme": {"name": "material", "palette": {"primary": "teal"}},
    }
    merged = merged_settings(owner)
    ours = generator_defaults()
    assert merged["hooks"] == ["my_hook.py"]  # the owner's (MkDocs runs them; Zensical does not)
    # Search is the site's own (Pagefind): Material's search plugin would add a second box.
    assert merged["plugins"] == ["tags"]
    toc = next(e for e in merged["markdown_extensions"] if isinstance(e, dict) and "toc" in e)["toc"]
    assert toc == {"permalink": "#"}  # the owner's option wins for the same extension
    assert "admonition" in merged["markdown_extensions"]
    assert any(isinstance(e, dict) and "pymdownx.arithmatex" in e for e in merged["markdown_extensions"])
    assert merged["extra_css"] == [*ours["extra_css"], "mine.css"]
    assert merged["nav"] == [*ours["nav"], {"Call for papers": "cfp.md"}]
    assert (
        merged["exclude_docs"].startswith(ours["exclude_docs"].strip("\n"))
        and "/drafts/" in merged["exclude_docs"]
    )
    assert "/papers/" in merged["not_in_nav"]
    assert "site_name" not in merged and "theme" not in merged  # the owner's alone
    assert merged_settings({})["theme"]["name"] == "material"


def test_a_digest_config_loads_with_the_generators_settings(tmp_path: Path) -> None:
    new_digest(tmp_path / "d")
    (tmp_path / "docs").mkdir()
    config = load_digest_config(
        tmp_path / "d" / "mkdocs.yml", docs_dir=str(tmp_path / "docs"), site_dir=str(tmp_path / "s")
    )
    assert config["site_name"] == "Paper Digest"  # a placeholder: the complete settings name the site
    assert config["theme"].name == "material"
    assert "pymdownx.arithmatex" in config["markdown_extensions"]
    assert "material/search" not in config["plugins"], "search is Pagefind's, not Material's"
    # The complete settings: named after the digest (its docs manifest), Paper Digest's templates.
    (tmp_path / "docs" / ".paper-digest-manifest.json").write_text('{"name": "A & B", "files": []}')
    values = complete_settings(tmp_path / "d" / "mkdocs.yml", tmp_path / "docs", tmp_path / "s")
    with written_settings(values, tmp_path / "d" / "mkdocs.yml") as settings:
        written = yaml.load(settings.path.read_text(), Loader=yaml.Loader)
        assert settings.path.parent == tmp_path / "d" and settings.site_name == "A & B"
    assert not settings.path.exists()
    assert written["site_name"] == "A &amp; B"  # themes print it as HTML
    assert written["theme"]["custom_dir"] == str(THEME_FOLDER)
    assert written["docs_dir"] == "../docs" and "Topics" not in str(written["nav"])
    assert yaml.safe_load((tmp_path / "d" / "mkdocs.yml").read_text().replace("!ENV", ""))["strict"] is True


def probes(cuda: bool = False, mps: bool = False, bf16: bool = False) -> DeviceProbes:
    return DeviceProbes(cuda=lambda: cuda, mps=lambda: mps, native_bfloat16_cpu=lambda: bf16)


def test_auto_device_prefers_cuda_then_mps_then_cpu() -> None:
    assert resolve_device("auto", probes(cuda=True, mps=True)) == "cuda"
    assert resolve_device("auto", probes(mps=True)) == "mps"
    assert resolve_device("auto", probes()) == "cpu"
    assert resolve_device("cpu", probes(cuda=True)) == "cpu"
    with pytest.raises(DigestError, match="no CUDA device"):
        resolve_device("cuda", probes())
    with pytest.raises(DigestError, match="unknown device"):
        resolve_device("tpu", probes())


def test_precision_suits_the_device() -> None:
    assert resolve_precision("auto", "cuda", probes(cuda=True)) == "float16"
    assert resolve_precision("auto", "mps", probes(mps=True)) == "float16"
    assert resolve_precision("auto", "cpu", probes(bf16=True)) == "bfloat16"
    assert resolve_precision("auto", "cpu", probes()) == "float32"
    assert resolve_precision("float32", "cuda", probes(cuda=True)) == "float32"
    with pytest.raises(DigestError, match="needs a GPU"):
        resolve_precision("float16", "cpu", probes())


def test_the_cache_key_names_the_precision_not_the_device() -> None:
    gpu = SentenceTransformerEmbedder(precision="float32", device="cuda", probes=probes(cuda=True))
    cpu = SentenceTransformerEmbedder(precision="float32", device="cpu", probes=probes())
    assert gpu.name == cpu.name  # float32 vectors agree across devices: one cache serves both
    half = SentenceTransformerEmbedder(device="auto", probes=probes(cuda=True))
    assert half.precision == "float16" and half.name != cpu.name
    bf16 = SentenceTransformerEmbedder(device="auto", probes=probes(bf16=True))
    assert bf16.precision == "bfloat16" and len({bf16.name, half.name, cpu.name}) == 3


def test_a_template_in_the_digest_folder_replaces_the_packaged_one(
    tmp_path: Path, fake_embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    from dataclasses import replace

    from generator.build import BuildRequest, build_digest
    from generator.progress import Reporter
    from generator.project.settings import load_settings
    from tests.conftest import SAMPLE_ABSTRACTS, write_text_input

    folder = new_digest(tmp_path / "d").root
    write_text_input(folder / "abstracts" / "mine.txt", "Mine", SAMPLE_ABSTRACTS)
    (folder / "site_templates").mkdir()
    (folder / "site_templates" / "about.md.j2").write_text(
        "---\ntitle: About\n---\n# About {{ digest.name }}\n\nOur own words.\n", encoding="utf-8"
    )
    settings = replace(load_settings(folder), mkdocs_config=folder / "mkdocs.yml")
    request = BuildRequest((folder / "abstracts",), folder / "docs", None)
    build_digest(settings, request, Reporter(quiet=True), fake_embedder)
    assert "Our own words." in (folder / "docs" / "about.md").read_text(encoding="utf-8")
    assert "Our own words." not in (folder / "docs" / "index.md").read_text(encoding="utf-8")
    assert (folder / "docs" / "papers").is_dir()  # the other templates are the packaged ones


def test_the_owners_site_name_wins_over_a_text_files_first_line(tmp_path: Path, fake_embedder) -> None:
    from dataclasses import replace

    from generator.build import BuildRequest, build_digest
    from generator.progress import Reporter
    from generator.project.settings import load_settings

    folder = new_digest(tmp_path / "d").root
    abstracts = [
        f"We study graph neural networks for node classification, case {n} of three." for n in range(3)
    ]
    write_text_input(folder / "abstracts" / "mine.txt", "Header Name", abstracts)
    (folder / "abstracts" / "more.jsonl").write_text(
        '{"abstract": "A second file of papers, without a name of its own, about graphs."}\n',
        encoding="utf-8",
    )
    config = folder / "mkdocs.yml"
    settings = replace(load_settings(folder), mkdocs_config=config)
    request = BuildRequest((folder / "abstracts",), folder / "docs", None)

    def built_name(request: BuildRequest = request) -> str:
        return build_digest(settings, request, Reporter(quiet=True), fake_embedder).digest.name

    assert built_name() == "Header Name"  # site_name is unset in a new digest: the inputs name it
    config.write_text(
        config.read_text().replace("# site_name: My Paper Digest", "site_name: Lab Reading Group"),
        encoding="utf-8",
    )
    assert built_name() == "Lab Reading Group"
    manifest = json.loads((folder / "docs" / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert manifest["name"] == "Lab Reading Group"  # what the hook names the site after
    # The owner's name settles files that name different collections, too.
    write_text_input(folder / "abstracts" / "other.txt", "Other Header", ["Another abstract " * 5])
    assert built_name() == "Lab Reading Group"
    assert built_name(replace(request, name="Chosen")) == "Chosen"


def test_meaning_search_is_a_switch(tmp_path: Path) -> None:
    from generator.project.settings import load_settings

    assert load_settings(tmp_path).meaning_search is True
    (tmp_path / "pyproject.toml").write_text("[tool.paper-digest]\nmeaning_search = false\n")
    assert load_settings(tmp_path).meaning_search is False
    (tmp_path / "pyproject.toml").write_text('[tool.paper-digest]\nmeaning_search = "no"\n')
    with pytest.raises(DigestError, match="'meaning_search' must be true or false"):
        load_settings(tmp_path)


def test_the_engine_is_mkdocs_unless_the_digest_or_the_command_names_zensical(tmp_path: Path) -> None:
    from generator.cli import _parser, _settings
    from generator.project import find_digest_folder
    from generator.project.settings import load_settings

    new_digest(tmp_path / "d")
    assert load_settings(tmp_path / "d").engine == "mkdocs"
    (tmp_path / "d" / "pyproject.toml").write_text('[tool.paper-digest]\nengine = "zensical"\n')
    assert load_settings(tmp_path / "d").engine == "zensical"
    folder = find_digest_folder(tmp_path / "d")
    arguments = _parser().parse_args(["build", "--engine", "mkdocs", "--project", str(tmp_path / "d")])
    assert _settings(arguments, folder).engine == "mkdocs"  # the option wins
    (tmp_path / "d" / "pyproject.toml").write_text('[tool.paper-digest]\nengine = "hugo"\n')
    with pytest.raises(DigestError, match="'engine' must be one of mkdocs, zensical"):
        load_settings(tmp_path / "d")

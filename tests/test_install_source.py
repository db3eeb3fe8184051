"""What `paper-digest new` writes in requirements.txt for each way the tool can be installed (PEP 610's
direct_url.json). The local-wheel case is also run end to end in tests/test_publish_workflow.py; a release
from PyPI and a Git URL cannot be reached from here, so their lines are tested as written."""

from __future__ import annotations

import json
from importlib.metadata import PathDistribution
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from generator import DISTRIBUTION
from generator.project import install_source
from generator.project.install_source import (
    ARCHIVE_FOLDER,
    REQUIREMENTS_FILE,
    InstallSource,
    requirements_text,
    running_install_source,
    source_from_direct_url,
)
from generator.project.scaffold import new_digest

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def installed_metadata(
    site: Path, direct_url: dict | None, installer: str | None = "pip", version: str = "0.4.1"
) -> PathDistribution:
    """A distribution's metadata as an installer leaves it in site-packages."""
    info = site / f"paper_digest_site-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: {version}\n")
    if installer:
        (info / "INSTALLER").write_text(installer + "\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    return PathDistribution(info)


def source_of(monkeypatch: pytest.MonkeyPatch, metadata: PathDistribution) -> InstallSource:
    monkeypatch.setattr(install_source, "distribution", lambda name: metadata)
    return running_install_source()


def test_a_release_from_an_index_is_pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = source_of(monkeypatch, installed_metadata(tmp_path, direct_url=None))
    assert source == InstallSource(f"{DISTRIBUTION}==0.4.1")
    # What a runner does with it: `pip download --no-deps paper-digest-site==0.4.1` from PyPI.
    requirement = Requirement(source.requirement)
    assert (requirement.name, str(requirement.specifier), requirement.url) == (DISTRIBUTION, "==0.4.1", None)


def test_a_git_install_names_its_commit() -> None:
    direct_url = {
        "url": "https://github.com/someone/paper-digest.git",
        "vcs_info": {"vcs": "git", "commit_id": COMMIT, "requested_revision": "main"},
    }
    source = source_from_direct_url(DISTRIBUTION, "0.2.0", direct_url)
    assert source.requirement == f"{DISTRIBUTION} @ git+https://github.com/someone/paper-digest.git@{COMMIT}"
    assert source.warning is None and source.archive is None
    assert Requirement(source.requirement).url == f"git+https://github.com/someone/paper-digest.git@{COMMIT}"

    in_a_folder = source_from_direct_url(DISTRIBUTION, "0.2.0", direct_url | {"subdirectory": "tool"})
    assert in_a_folder.requirement.endswith(f"@{COMMIT}#subdirectory=tool")


def test_a_local_wheel_is_copied_into_the_digest_and_named_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = tmp_path / "downloads" / "paper_digest_site-0.4.1-py3-none-any.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"PK\x03\x04 not a real wheel, but its bytes must arrive intact")
    direct_url = {"url": wheel.as_uri(), "archive_info": {"hashes": {"sha256": "00"}}}
    source = source_of(monkeypatch, installed_metadata(tmp_path / "site", direct_url))
    assert source == InstallSource(f"./{ARCHIVE_FOLDER}/{wheel.name}", archive=wheel)

    made = new_digest(tmp_path / "digest", install=source)
    assert made.root.joinpath(ARCHIVE_FOLDER, wheel.name).read_bytes() == wheel.read_bytes()
    assert f"{ARCHIVE_FOLDER}/{wheel.name}" in made.files and REQUIREMENTS_FILE in made.files
    lines = (made.root / REQUIREMENTS_FILE).read_text(encoding="utf-8").splitlines()
    assert lines[-1] == f"./{ARCHIVE_FOLDER}/{wheel.name}"
    assert all(line.startswith("#") for line in lines[:-1]) and "upgrade" in lines[-2]
    # The workflow installs exactly that file.
    workflow = (made.root / ".github/workflows/pages.yml").read_text(encoding="utf-8")
    assert f"pip install -r {REQUIREMENTS_FILE}" in workflow


def test_a_wheel_that_is_gone_falls_back_to_the_release_and_says_so(tmp_path: Path) -> None:
    gone = tmp_path / "paper_digest_site-0.4.1-py3-none-any.whl"
    source = source_from_direct_url(DISTRIBUTION, "0.4.1", {"url": gone.as_uri(), "archive_info": {}})
    assert source.requirement == f"{DISTRIBUTION}==0.4.1" and source.archive is None
    assert source.warning and str(gone) in source.warning and "no longer there" in source.warning


def test_a_remote_archive_is_named_by_its_url_and_hash() -> None:
    url = "https://example.org/files/paper_digest_site-0.4.1-py3-none-any.whl"
    source = source_from_direct_url(
        DISTRIBUTION, "0.4.1", {"url": url, "archive_info": {"hash": "sha256=ab"}}
    )
    assert source == InstallSource(f"{DISTRIBUTION} @ {url}#sha256=ab")


def test_an_editable_folder_install_pins_the_release_and_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    checkout = tmp_path / "paper-digest checkout"
    direct_url = {"url": checkout.as_uri(), "dir_info": {"editable": True}}
    source = source_of(monkeypatch, installed_metadata(tmp_path / "site", direct_url))
    assert source.requirement == f"{DISTRIBUTION}==0.4.1" and source.archive is None
    assert source.warning is not None
    assert f"editable install of the folder {checkout}" in source.warning
    assert f"pip wheel --no-deps -w {ARCHIVE_FOLDER} {checkout}" in source.warning

    from generator.cli import main

    assert main(["new", str(tmp_path / "digest")]) == 0
    captured = capsys.readouterr()
    assert f"installs {DISTRIBUTION}==0.4.1" in captured.out and "warning: " + source.warning in captured.err
    assert (
        (tmp_path / "digest" / REQUIREMENTS_FILE)
        .read_text(encoding="utf-8")
        .endswith(f"\n{DISTRIBUTION}==0.4.1\n")
    )


def test_a_source_folder_without_installer_metadata_is_not_taken_for_a_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    egg_info_like = installed_metadata(tmp_path, direct_url=None, installer=None)
    source = source_of(monkeypatch, egg_info_like)
    assert source.requirement == f"{DISTRIBUTION}==0.4.1"
    assert source.warning and f"runs from the source folder {tmp_path}" in source.warning


def test_a_local_repository_is_not_a_git_source_a_runner_can_reach() -> None:
    direct_url = {"url": "file:///home/me/paper-digest", "vcs_info": {"vcs": "git", "commit_id": COMMIT}}
    source = source_from_direct_url(DISTRIBUTION, "0.4.1", direct_url)
    assert source.requirement == f"{DISTRIBUTION}==0.4.1"
    assert source.warning and "local repository /home/me/paper-digest" in source.warning


def test_requirements_text_says_what_it_is_and_how_to_upgrade() -> None:
    text = requirements_text(InstallSource(f"{DISTRIBUTION}==0.4.1"))
    *comments, line = text.splitlines()
    assert line == f"{DISTRIBUTION}==0.4.1" and text.endswith("\n")
    assert all(c.startswith("# ") for c in comments) and ".github/workflows/pages.yml" in comments[0]

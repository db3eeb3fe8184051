"""A site is dated by its inputs, not by the clock (generator/site/source_date.py): two cold builds of
the same inputs on different days are byte-identical, sitemap dates included."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import mkdocs.utils
import pytest

import generator.build
from generator.build import BuildRequest, build_digest
from generator.errors import DigestError
from generator.progress import Reporter
from generator.project.settings import load_settings
from generator.site.source_date import source_date_epoch
from tests.conftest import PROJECT_ROOT, SAMPLE_ABSTRACTS, FakeEmbedder, write_text_input

JULY_2024 = int(dt.datetime(2024, 7, 21, 12, tzinfo=dt.UTC).timestamp())
MARCH_2025 = int(dt.datetime(2025, 3, 2, 8, tzinfo=dt.UTC).timestamp())
NO_DATE: dict[str, str] = {}


def _inputs(folder: Path, mtime: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = write_text_input(folder / "papers.txt", "Dated Digest", SAMPLE_ABSTRACTS)
    os.utime(path, (mtime, mtime))
    return folder


def test_the_environment_wins(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path / "in", JULY_2024)
    assert source_date_epoch([inputs], {"SOURCE_DATE_EPOCH": "1000"}) == 1000
    with pytest.raises(DigestError, match="SOURCE_DATE_EPOCH"):
        source_date_epoch([inputs], {"SOURCE_DATE_EPOCH": "yesterday"})


def test_outside_git_the_newest_modification_time(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path / "in", JULY_2024)
    older = write_text_input(inputs / "older.txt", "Older", SAMPLE_ABSTRACTS[:2])
    os.utime(older, (JULY_2024 - 86_400, JULY_2024 - 86_400))
    assert source_date_epoch([inputs], NO_DATE) == JULY_2024


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_in_git_the_last_commit_that_changed_an_input(tmp_path: Path) -> None:
    repository = tmp_path / "digest"
    inputs = _inputs(repository / "abstracts", MARCH_2025)
    (repository / "README.md").write_text("a digest\n")
    environment = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }

    def git(*arguments: str, when: int | None = None) -> None:
        dated = {"GIT_COMMITTER_DATE": f"@{when} +0000", "GIT_AUTHOR_DATE": f"@{when} +0000"} if when else {}
        subprocess.run(
            ["git", *arguments], cwd=repository, env={**environment, **dated}, check=True, capture_output=True
        )

    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "abstracts", when=JULY_2024)
    # A clone's files are as new as the clone; the commit says when the abstracts changed.
    assert source_date_epoch([inputs], NO_DATE) == JULY_2024
    # A later commit that leaves the abstracts alone does not move the date.
    (repository / "README.md").write_text("a digest, described\n")
    git("commit", "-q", "-am", "readme", when=JULY_2024 + 3_600)
    assert source_date_epoch([inputs], NO_DATE) == JULY_2024
    # An uncommitted edit dates the site by the edited file.
    (inputs / "papers.txt").write_text((inputs / "papers.txt").read_text() + "\nOne more abstract here.\n")
    os.utime(inputs / "papers.txt", (MARCH_2025, MARCH_2025))
    assert source_date_epoch([inputs], NO_DATE) == MARCH_2025


def _clock(monkeypatch: pytest.MonkeyPatch, day: dt.datetime) -> None:
    """MkDocs' clock (``mkdocs.utils.datetime``, which dates the sitemap) set to ``day``."""

    class Clock(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> dt.datetime:
            return day if tz is None else day.astimezone(tz)

    monkeypatch.setattr(mkdocs.utils, "datetime", Clock)


def _cold_build(root: Path, inputs: Path) -> Path:
    settings = replace(load_settings(PROJECT_ROOT), cache_dir=root / "cache")
    request = BuildRequest((inputs,), root / "docs", root / "site")
    build_digest(settings, request, Reporter(quiet=True), FakeEmbedder())
    return root / "site"


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_two_cold_builds_on_different_days_are_byte_identical(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    inputs = _inputs(tmp_path / "in", JULY_2024)

    _clock(monkeypatch, dt.datetime(2026, 1, 5, 9, tzinfo=dt.UTC))
    first = _files(_cold_build(tmp_path / "monday", inputs))
    _clock(monkeypatch, dt.datetime(2031, 11, 30, 23, tzinfo=dt.UTC))
    second = _files(_cold_build(tmp_path / "years-later", inputs))

    sitemap = first["sitemap.xml"].decode()
    assert "<lastmod>2024-07-21</lastmod>" in sitemap and "2026-01-05" not in sitemap
    # text files give no year: the feed dates their papers by the same date, not by 1970 or the clock
    feed = first["feed.xml"].decode()
    assert "<updated>2024-07-21T" in feed and "1970" not in feed and "2026-01-05" not in feed
    assert sorted(first) == sorted(second)
    assert [name for name in first if first[name] != second[name]] == []

    # The clock above does reach MkDocs: undated, the build takes its day.
    monkeypatch.setattr(generator.build, "source_date_epoch", lambda inputs: None)
    undated = _files(_cold_build(tmp_path / "undated", inputs))
    assert "<lastmod>2031-11-30</lastmod>" in undated["sitemap.xml"].decode()
    assert "SOURCE_DATE_EPOCH" not in os.environ

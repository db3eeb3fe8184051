from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from generator.cli import main
from tests.conftest import PROJECT_ROOT


def run(*arguments: str, cwd: Path = PROJECT_ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "generator", *arguments], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_version_and_help() -> None:
    assert run("--version").stdout.strip().startswith("paper-digest-site ")
    helped = run("build", "--help")
    assert helped.returncode == 0
    assert "--docs-dir" in helped.stdout and "--site-dir" in helped.stdout


def test_malformed_input_stops_before_writing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"abstract": "fine"}\n{"title": "no abstract"}\n', encoding="utf-8")
    docs, site = tmp_path / "docs", tmp_path / "site"
    code = main(
        ["build", str(bad), "--project", str(PROJECT_ROOT), "--docs-dir", str(docs),
         "--site-dir", str(site), "--cache-dir", str(tmp_path / "cache")]
    )  # fmt: skip
    assert code != 0
    assert f"{bad}:2: missing 'abstract'" in capsys.readouterr().err
    assert not docs.exists() and not site.exists()


def test_a_folder_that_is_not_a_digest_is_explained(tmp_path: Path) -> None:
    result = run("build", cwd=tmp_path)
    assert result.returncode == 1
    assert "no mkdocs.yml in this folder" in result.stderr and "paper-digest new" in result.stderr
    elsewhere = run("build", "--project", str(tmp_path / "absent"), cwd=tmp_path)
    assert elsewhere.returncode == 1 and "no such folder" in elsewhere.stderr
    (tmp_path / "a-file").write_text("x")
    a_file = run("build", "--project", str(tmp_path / "a-file"), cwd=tmp_path)
    assert a_file.returncode == 1 and "not a folder" in a_file.stderr
    named = run("build", "--project", str(tmp_path), cwd=PROJECT_ROOT)
    assert "no mkdocs.yml in " in named.stderr and "pass --project" not in named.stderr


def test_second_build_on_the_same_docs_is_refused(tmp_path: Path) -> None:
    from generator.errors import DigestError
    from generator.site.output import build_lock

    docs = tmp_path / "docs"
    with build_lock(docs):
        second = build_lock(docs)
        with pytest.raises(DigestError, match="another paper-digest build"):
            second.__enter__()
    with build_lock(docs):  # released afterwards
        pass


def test_serve_prints_the_address_it_is_bound_to(capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    from generator.preview import _show_served_address

    _show_served_address()
    logging.getLogger("mkdocs.livereload").info("[12:00:00] Serving on http://127.0.0.1:8123/repo/")
    assert "serving the digest on http://127.0.0.1:8123/repo/ (Ctrl-C to stop)" in capsys.readouterr().out


def test_the_last_line_counts_in_words(tmp_path: Path) -> None:
    from generator.analysis.analyse import EmbeddingCounts
    from generator.build import build_summary
    from generator.progress import plural

    class Result:
        digest = type("D", (), {"papers": [object()]})()
        analysis_reused = False
        embedded = EmbeddingCounts(papers=1, phrases=1204, cached=0)

    line = build_summary(Result(), tmp_path / "docs", tmp_path / "site")  # type: ignore[arg-type]
    where = tmp_path / "site"
    work = "embedded 1 paper and 1,204 keyword phrases; 0 texts from the cache"
    assert line == f"built 1 paper: site in {where} ({work})"
    assert plural(2, "paper") == "2 papers" and plural(1, "phrase") == "1 phrase"


def test_keep_going_builds_the_readable_papers_and_lists_every_skipped_record_last(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import generator.build
    from tests.conftest import FakeEmbedder

    monkeypatch.setattr(generator.build, "open_embedder", lambda settings: FakeEmbedder())
    papers = tmp_path / "papers.jsonl"
    good = "We study graph neural networks for node classification, case {}, on large graphs."
    papers.write_text(
        f'{{"abstract": "{good.format(1)}"}}\n{{"title": "no abstract"}}\n'
        f'{{"abstract": "{good.format(2)}"}}\n{{broken\n',
        encoding="utf-8",
    )
    docs = tmp_path / "docs"
    common = [str(papers), "--project", str(PROJECT_ROOT), "--docs-dir", str(docs), "--no-site"]
    common += ["--cache-dir", str(tmp_path / "cache"), "--quiet"]
    digest_record = (PROJECT_ROOT / "paper-addresses.json").read_bytes()
    assert main(["build", *common]) == 1  # strict by default: nothing written
    assert f"{papers}:2: missing 'abstract'" in capsys.readouterr().err and not docs.exists()

    assert main(["build", *common, "--keep-going"]) == 0
    err = capsys.readouterr().err
    assert "built 2 papers" in err
    summary = err[err.index("skipped 2 unreadable records (--keep-going)") :].splitlines()
    assert len(summary) == 3, err  # the summary is the last thing printed
    assert summary[1].strip().startswith(f"{papers}:2: missing 'abstract'")
    assert summary[2].strip().startswith(f"{papers}:4: not valid JSON")
    assert len(list((docs / "papers").glob("*.md"))) == 2
    # A build into other docs keeps its addresses beside them, not in the digest's record.
    assert (tmp_path / "paper-addresses.json").is_file()
    assert (PROJECT_ROOT / "paper-addresses.json").read_bytes() == digest_record

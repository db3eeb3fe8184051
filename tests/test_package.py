"""The package as a user gets it: a wheel in a fresh virtual environment, used outside the repository.

Slow (it installs PyTorch and the other dependencies into the new environment, from pip's cache or
the local wheel where there is one), so it is marked ``slow`` like the other tests of the real model.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import venv
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT, search_records

pytestmark = pytest.mark.slow


def run(command: list[str], cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environment["HF_HUB_OFFLINE"] = "1"
    result = subprocess.run(
        command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, (
        f"{' '.join(command)} failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    )
    return result


def tree_hashes(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel built from this checkout; its bin folder."""
    work = tmp_path_factory.mktemp("package")
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(work / "dist"),
            str(PROJECT_ROOT),
        ],
        work,
    )
    (wheel,) = (work / "dist").glob("paper_digest_site-*.whl")
    venv.create(work / "venv", with_pip=True)
    bin_dir = work / "venv" / "bin"
    # The same PyTorch as here first: a bare requirement could pull a CUDA build of several GB.
    torch = version("torch").split("+")[0]
    run([str(bin_dir / "python"), "-m", "pip", "install", "-q", f"torch=={torch}"], work)
    run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)], work)
    return bin_dir


def test_the_wheel_carries_everything_a_build_reads(installed: Path, tmp_path: Path) -> None:
    where = run(
        [str(installed / "python"), "-c", "import generator, sys; print(generator.__file__)"], tmp_path
    )
    package = Path(where.stdout.strip())
    assert installed.parent in package.parents, f"generator imported from {package}, not the new environment"
    assert PROJECT_ROOT not in package.parents
    shipped = {p.relative_to(package.parent).as_posix() for p in package.parent.rglob("*") if p.is_file()}
    for name in (
        "site/templates/paper.md.j2",
        "site/assets/javascripts/map.js",
        "site/assets/stylesheets/digest.css",
        "site/mkdocs_defaults.yml",
        "project/skeleton/.github/workflows/pages.yml",
        "project/skeleton/gitignore",
    ):
        assert name in shipped, f"{name} is not in the wheel"
    assert len([n for n in shipped if n.startswith("project/example/")]) == 3
    assert run([str(installed / "paper-digest"), "--version"], tmp_path).stdout.startswith(
        "paper-digest-site "
    )


def test_new_example_digest_builds_and_a_second_digest_leaves_it_alone(
    installed: Path, tmp_path: Path
) -> None:
    tool = str(installed / "paper-digest")
    made = run([tool, "new", "icml", "--example"], tmp_path)
    assert "next: cd icml" in made.stdout
    first = tmp_path / "icml"
    built = run([tool, "build", "--quiet"], first)
    assert f"site in {first / 'site'}" in built.stderr and "built 57 papers" in built.stderr

    site = first / "site"
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    assert len(papers) == 57 and all((site / paper["url"] / "index.html").is_file() for paper in papers)
    # The installed package indexes the site for search (Pagefind's program ships in its wheel).
    searched = [record["url"] for record in search_records(site)]
    assert len(searched) == 57 and all(url.startswith("/papers/") for url in searched)
    assert (site / "pagefind" / "pagefind.js").is_file() and not (site / "search").exists()
    assert (site / "assets" / "mathjax" / "tex-mml-chtml.js").is_file()
    assert list((site / "assets" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert (site / "javascripts" / "map.js").is_file() and (site / "stylesheets" / "digest.css").is_file()
    before = tree_hashes(first)

    # A second digest beside it, with its own papers, built from outside its folder with --project.
    run([tool, "new", "mine"], tmp_path)
    second = tmp_path / "mine"
    lines = [
        json.dumps({"title": f"Paper {n}", "abstract": f"We study graph neural networks and topic {n} "
                    "with message passing, and show that depth helps node classification on large graphs."})
        for n in range(4)
    ]  # fmt: skip
    (second / "abstracts" / "mine.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    built = run([tool, "build", "--quiet", "--project", str(second)], tmp_path)
    assert "built 4 papers" in built.stderr
    assert len(json.loads((second / "site" / "papers.json").read_text(encoding="utf-8"))) == 4
    assert (second / ".cache" / "paper-digest").is_dir() and not (tmp_path / "site").exists()
    assert tree_hashes(first) == before, "building a second digest changed the first"

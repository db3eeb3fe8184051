"""The workflow `paper-digest new` writes installs this tool: its own ``run:`` steps, parsed from the
YAML and run in order in a fresh virtual environment that has only what a GitHub runner has, a clone
of the digest folder and the public index (no wheelhouse holding this project).

The install source under test is a local wheel: the tool is installed from this checkout's wheel
file (the session fixture ``installed_wheel``), so ``paper-digest new`` copies that wheel into the
digest folder and names it in requirements.txt. A release from an index and a Git URL cannot be
reached here; tests/test_install_source.py tests the lines written for them.

Slow (a second full install of every dependency, then a build of the 57 bundled papers).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import time
import venv
from pathlib import Path

import pytest
import yaml

from generator import DISTRIBUTION, __version__
from generator.project.install_source import ARCHIVE_FOLDER, REQUIREMENTS_FILE
from tests.wheel_support import InstalledWheel, run

pytestmark = pytest.mark.slow

WORKFLOW = ".github/workflows/pages.yml"
PYTORCH_CPU_INDEX = " --index-url https://download.pytorch.org/whl/cpu"
"""Unreachable from this machine, which gets the CPU torch wheel through its own pip configuration
(find-links /opt/wheels): the test drops this option from the one step that has it, and only that."""
GITHUB_CONTEXT = {
    "github.repository_owner": "reader",
    "github.event.repository.name": "icml-digest",
    "steps.pages.outputs.base_url": "https://reader.github.io/icml-digest",
}
"""The values a runner gives the expressions in the build job's env: (the site's address, as
actions/configure-pages gives it for a project site: no slash at the end)."""
WHEEL_NAME = re.compile(r"paper[-_]digest[-_]site", re.IGNORECASE)


def runner_environment(bin_dir: Path, job_env: dict[str, str]) -> dict[str, str]:
    """A runner's environment after setup-python: its Python first on PATH, nothing of this checkout.

    PATH is the venv and the system folders only, so a ``paper-digest`` installed elsewhere on this
    machine (pyenv's shims) cannot answer for a missing one. pip keeps the machine's configuration
    (its own find-links and local index: how this machine reaches PyPI's packages), checked below to
    hold nothing of this project."""
    dropped = (
        "PYTHONPATH",
        "PYTHONHOME",
        "VIRTUAL_ENV",
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "PIP_NO_INDEX",
    )
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env["PATH"] = os.pathsep.join([str(bin_dir), "/usr/local/bin", "/usr/bin", "/bin"])
    env["VIRTUAL_ENV"] = str(bin_dir.parent)
    env.update(job_env)
    return env


def package_sources(bin_dir: Path, env: dict[str, str], cwd: Path) -> list[Path]:
    """The local folders pip in the runner's venv reads packages from (find-links, file:// indexes)."""
    listed = run([str(bin_dir / "python"), "-m", "pip", "config", "list"], cwd, env=env).stdout
    values = [line.split("=", 1)[1].strip("'\" ") for line in listed.splitlines() if "=" in line]
    values += [env.get("PIP_FIND_LINKS", "")]
    folders = []
    for value in values:
        for entry in value.split():
            path = Path(entry.removeprefix("file://"))
            if entry.startswith(("/", "file://")) and path.is_dir():
                folders.append(path)
    return folders


def children_cpu_seconds() -> float:
    """CPU time of finished child processes: on a shared machine, wall time says more of the load."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def expand_expressions(value: str) -> str:
    expanded = re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: GITHUB_CONTEXT[m.group(1)], value)
    assert "${{" not in expanded, value
    return expanded


@pytest.fixture(scope="module")
def digest_clone(installed_wheel: InstalledWheel, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``paper-digest new --example`` run by the tool installed from its wheel, committed, and cloned as
    actions/checkout would: only what was committed reaches the runner."""
    work = tmp_path_factory.mktemp("publish")
    made = run([str(installed_wheel.bin_dir / "paper-digest"), "new", "digest", "--example"], work)
    assert "warning" not in made.stderr, made.stderr
    git = ["git", "-c", "user.name=Reader", "-c", "user.email=reader@example.org"]
    # `git init` as the user's machine has it: the first branch may be "master" or "main".
    run([*git, "init", "-q"], work / "digest")
    run([*git, "add", "-A"], work / "digest")
    run([*git, "commit", "-q", "-m", "A new digest"], work / "digest")
    run(["git", "clone", "-q", str(work / "digest"), str(work / "checkout")], work)
    return work / "checkout"


def test_the_written_requirement_is_the_installed_wheel(installed_wheel: InstalledWheel, digest_clone: Path):
    lines = (digest_clone / REQUIREMENTS_FILE).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("#") and lines[-1] == f"./{ARCHIVE_FOLDER}/{installed_wheel.wheel.name}"
    copied = digest_clone / ARCHIVE_FOLDER / installed_wheel.wheel.name
    assert copied.read_bytes() == installed_wheel.wheel.read_bytes(), (
        "the committed wheel is not the installed one"
    )


def test_the_workflow_steps_install_this_tool_in_a_fresh_runner(digest_clone: Path) -> None:
    workflow = yaml.safe_load((digest_clone / WORKFLOW).read_text(encoding="utf-8"))
    job = workflow["jobs"]["build"]
    # The first push makes the pushed branch the repository's default one: the job must run for it.
    branch = run(["git", "branch", "--show-current"], digest_clone).stdout.strip()
    assert job["if"] == "github.ref_name == github.event.repository.default_branch", job.get("if")
    assert branch and "branches" not in (workflow[True]["push"] or {}), f"a push of {branch!r} would not run"
    steps = [step for step in job["steps"] if "run" in step]
    assert [step["name"] for step in steps] == [
        "Install PyTorch (CPU)",
        "Install Paper Digest",
        "Build the digest",
    ]
    assert sum(PYTORCH_CPU_INDEX in step["run"] for step in steps) == 1

    runner = digest_clone.parent / "runner-venv"
    venv.create(runner, with_pip=True)
    bin_dir = runner / "bin"
    env = runner_environment(bin_dir, {k: str(v) for k, v in job["env"].items()})
    for folder in package_sources(bin_dir, env, digest_clone):
        held = [p.name for p in folder.iterdir() if WHEEL_NAME.search(p.name)]
        assert held == [], f"{folder} holds this project, so the test would not show where it came from"

    timings = {}
    for step in steps:
        script = step["run"].replace(PYTORCH_CPU_INDEX, "")
        step_env = env | {k: expand_expressions(str(v)) for k, v in step.get("env", {}).items()}
        started, cpu = time.perf_counter(), children_cpu_seconds()
        # GitHub's bash on Linux runners: `bash --noprofile --norc -eo pipefail {0}`.
        run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], digest_clone, env=step_env)
        wall = time.perf_counter() - started
        timings[step["name"]] = f"{wall:.1f} s wall, {children_cpu_seconds() - cpu:.1f} s CPU"
    print(f"workflow steps: {timings}")

    probe = (
        "import importlib.metadata as m, json, generator; d = m.distribution('paper-digest-site'); "
        "print(json.dumps({'name': d.metadata['Name'], 'version': d.version, "
        "'direct_url': json.loads(d.read_text('direct_url.json') or 'null'), 'code': generator.__file__}))"
    )
    installed = json.loads(run([str(bin_dir / "python"), "-c", probe], digest_clone, env=env).stdout)
    assert (installed["name"], installed["version"]) == (DISTRIBUTION, __version__)
    wheel = next((digest_clone / ARCHIVE_FOLDER).glob("*.whl"))
    assert installed["direct_url"]["url"] == wheel.as_uri(), "not installed from the digest folder's wheel"
    recorded = installed["direct_url"]["archive_info"].get("hashes", {}).get("sha256")
    assert recorded in (None, hashlib.sha256(wheel.read_bytes()).hexdigest())
    assert Path(installed["code"]).is_relative_to(runner), installed["code"]
    shown = run([str(bin_dir / "paper-digest"), "--version"], digest_clone, env=env).stdout.strip()
    assert shown == f"{DISTRIBUTION} {__version__}"

    site = digest_clone / "site"
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    assert len(papers) == 57 and (site / "index.html").is_file()
    assert "https://reader.github.io/icml-digest/" in (site / "sitemap.xml").read_text(encoding="utf-8")

"""The package as a user gets it: this checkout's wheel, installed in a fresh virtual environment.

Shared by tests/test_package.py and tests/test_publish_workflow.py through the session fixture
``installed_wheel`` (tests/conftest.py), so the slow install happens once per test run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from tests.conftest import PROJECT_ROOT


@dataclass(frozen=True)
class InstalledWheel:
    wheel: Path
    """The wheel built from this checkout, at the path it was installed from."""
    bin_dir: Path
    """The bin folder of the virtual environment it is installed in (with PyTorch and every dependency)."""


def run(
    command: list[str], cwd: Path, timeout: int = 900, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` outside this checkout's Python (no PYTHONPATH, no active venv); it must succeed."""
    if env is None:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env["HF_HUB_OFFLINE"] = "1"
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, (
        f"{' '.join(command)} failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    )
    return result


def build_wheel(folder: Path) -> Path:
    """This checkout's wheel, built into ``folder`` (without its dependencies)."""
    folder.mkdir(parents=True, exist_ok=True)
    run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(PROJECT_ROOT)],
        folder,
    )
    (wheel,) = folder.glob("paper_digest_site-*.whl")
    return wheel


def install_wheel(work: Path) -> InstalledWheel:
    """A fresh virtual environment under ``work`` with this checkout's wheel installed from a file."""
    wheel = build_wheel(work / "dist")
    venv.create(work / "venv", with_pip=True)
    bin_dir = work / "venv" / "bin"
    # The same PyTorch as here first: a bare requirement could pull a CUDA build of several GB.
    torch = version("torch").split("+")[0]
    run([str(bin_dir / "python"), "-m", "pip", "install", "-q", f"torch=={torch}"], work)
    run([str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel)], work)
    return InstalledWheel(wheel, bin_dir)

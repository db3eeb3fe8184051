"""``paper-digest new``: a digest folder with a commented mkdocs.yml, abstracts/, .gitignore and a
publishing workflow, like ``mkdocs new`` or ``hugo new site``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.errors import DigestError
from generator.project.install_source import (
    REQUIREMENTS_FILE,
    InstallSource,
    requirements_text,
    running_install_source,
)

SKELETON_DIR = Path(__file__).with_name("skeleton")
EXAMPLE_DIR = Path(__file__).with_name("example")
"""The bundled ICML 2024 abstracts (``--example``)."""

RENAMED = {"gitignore": ".gitignore"}
"""Skeleton files stored under another name: a package must not hold a live .gitignore."""


@dataclass(frozen=True)
class NewDigest:
    root: Path
    files: tuple[str, ...]
    """What was written, relative to ``root``."""
    install: InstallSource
    """What the publishing workflow installs (requirements.txt), and a warning if it is not this code."""


def new_digest(target: Path, example: bool = False, install: InstallSource | None = None) -> NewDigest:
    """Write a new digest folder at ``target``, which must be absent or empty; its workflow installs
    ``install`` (by default, the running tool as it was installed)."""
    target = target.absolute()
    if target.exists() and not target.is_dir():
        raise DigestError(f"{target} exists and is not a folder")
    if target.is_dir() and any(target.iterdir()):
        raise DigestError(f"{target} is not empty; choose a new or empty folder (nothing was written)")
    files: dict[str, bytes] = {}
    for source in sorted(SKELETON_DIR.rglob("*")):
        if source.is_file() and "__pycache__" not in source.parts:
            relative = source.relative_to(SKELETON_DIR).as_posix()
            files[RENAMED.get(relative, relative)] = source.read_bytes()
    install = install or running_install_source()
    files[REQUIREMENTS_FILE] = requirements_text(install).encode()
    if install.archive is not None:
        try:
            files[install.requirement.removeprefix("./")] = install.archive.read_bytes()
        except OSError as error:
            raise DigestError(f"cannot read {install.archive}: {error.strerror or error}") from None
    if example:
        for source in sorted(EXAMPLE_DIR.glob("*.txt")):
            files[f"abstracts/{source.name}"] = source.read_bytes()
        if not any(name.startswith("abstracts/") and name.endswith(".txt") for name in files):
            raise DigestError(f"the bundled example abstracts are missing from {EXAMPLE_DIR}; reinstall")
    try:
        for relative, content in files.items():
            path = target / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
    except OSError as error:
        raise DigestError(f"cannot write {error.filename or target}: {error.strerror or error}") from None
    return NewDigest(target, tuple(sorted(files)), install)

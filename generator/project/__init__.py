"""The digest folder: takes a folder (--project); gives its DigestFolder and Settings.

Where a digest's inputs, settings, docs, site and cache live, and how one is started (``paper-digest new``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from generator.errors import DigestError

CONFIG_NAME = "mkdocs.yml"


@dataclass(frozen=True)
class DigestFolder:
    """One digest: its ``mkdocs.yml``, and beside it ``abstracts/`` (inputs), ``docs/`` (the generated
    Markdown), ``site/`` (the built site), ``.cache/paper-digest`` and, optionally, ``site_templates/``
    (templates that replace the packaged ones) and ``pyproject.toml`` (``[tool.paper-digest]`` settings)."""

    root: Path

    @property
    def config_file(self) -> Path:
        return self.root / CONFIG_NAME


def find_digest_folder(project: Path | None) -> DigestFolder:
    """The digest folder named by ``--project``, else the current folder; it must hold mkdocs.yml."""
    root = (project or Path.cwd()).absolute()
    if project is not None and not root.exists():
        raise DigestError(f"{project}: no such folder")
    if project is not None and not root.is_dir():
        raise DigestError(
            f"{project}: not a folder (--project names the digest folder, the one with {CONFIG_NAME})"
        )
    if not (root / CONFIG_NAME).is_file():
        if project is None:
            where, hint = f"this folder ({root})", ", or pass --project DIR"
        else:
            where, hint = str(root), ""
        raise DigestError(
            f"no {CONFIG_NAME} in {where}, so it is not a digest folder: start one with "
            f"'paper-digest new DIR' (add --example for the bundled ICML 2024 abstracts){hint}"
        )
    return DigestFolder(root)

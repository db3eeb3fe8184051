"""Rendering with Zensical (``--engine zensical``), Material's successor, which reads the same mkdocs.yml.

What it is given beyond the complete settings: the ``classic`` variant (Material's look, the one the
site's styles and scripts are written for) and its own search turned off (the site's search is
Pagefind's, with its own box in the header). It runs no MkDocs hook or plugin, and has no update of
a copied site: every build renders all pages (its own cache, ``.cache/`` beside mkdocs.yml, keeps
what did not change). It runs in a process of its own, as its command line does: its Rust core
keeps global state between builds.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from generator.errors import DigestError

NAME = "zensical"
PACKAGES = ("zensical",)
VARIANT = "classic"


def settings_for_zensical(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with what a Zensical build of the site needs: the classic variant, no search of its own."""
    theme = {**values["theme"]}
    theme.setdefault("variant", VARIANT)
    plugins = [entry for entry in values.get("plugins") or [] if _plugin_name(entry) != "search"]
    return {**values, "theme": theme, "plugins": [*plugins, {"search": {"enabled": False}}]}


def _plugin_name(entry: object) -> str:
    return entry if isinstance(entry, str) else next(iter(entry)) if isinstance(entry, dict) and entry else ""


def template_folder() -> Path:
    """Zensical's own theme (Material's templates, ported)."""
    try:
        import zensical
    except ImportError:
        raise DigestError(_MISSING) from None
    return Path(zensical.__file__).parent / "templates"


_MISSING = "the zensical engine is not installed: pip install 'paper-digest[zensical]'"


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
UNUSED = ("search.json", "assets/stylesheets/modern")
"""What Zensical writes that the site never loads, removed after its build (it applies
``exclude_docs`` to the docs only, not to its theme's files): its search index of no page (search
is off) and the modern variant's styles (the classic one is used)."""


def render(settings_path: Path, site_dir: Path, strict: bool = False) -> None:
    """``zensical build`` of ``settings_path`` into ``site_dir`` (named by the settings), from scratch."""
    template_folder()  # installed?
    command = [sys.executable, "-m", "zensical", "build", "--config-file", str(settings_path)]
    if strict:
        command.append("--strict")
    done = subprocess.run(command, cwd=settings_path.parent, capture_output=True, text=True)
    # Its report is coloured text; the lines that say something, without the colours or the frames.
    output = _ANSI.sub("", "\n".join((done.stdout, done.stderr)))
    said = [line.strip() for line in output.splitlines() if line.strip() and "─" not in line]
    warnings = [line for line in said if line.startswith(("Warning", "Error")) or line[:1].isdigit()]
    if done.returncode != 0:
        problems = warnings or [line for line in said if not line.startswith(("File ", "Traceback"))]
        raise DigestError("zensical build failed:\n" + "\n".join(problems[:40]))
    for line in warnings:
        print(f"zensical: {line}", file=sys.stderr)
    for relative in UNUSED:
        path = site_dir / relative
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def settings_folder(config_file: Path, docs_dir: Path, site_dir: Path) -> Path:
    """Where the settings file goes: Zensical builds only docs and a site inside the folder of its
    settings file. Beside mkdocs.yml when both are in the digest's folder, else their closest
    common folder."""
    folders = [config_file.absolute().parent, docs_dir.absolute(), site_dir.absolute()]
    if all(folder.is_relative_to(folders[0]) for folder in folders[1:]):
        return folders[0]
    common = Path(os.path.commonpath([str(folder) for folder in folders[1:]]))
    if common == Path(common.anchor):
        raise DigestError(
            f"the zensical engine builds the docs and the site only inside one folder: {docs_dir} and "
            f"{site_dir} share none"
        )
    return common

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
import tempfile
import time
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
    returncode, output = run_watched(command, settings_path.parent)
    # Its report is coloured text; the lines that say something, without the colours or the frames.
    output = _ANSI.sub("", output)
    said = [line.strip() for line in output.splitlines() if line.strip() and "─" not in line]
    warnings = [line for line in said if line.startswith(("Warning", "Error")) or line[:1].isdigit()]
    if returncode != 0:
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


IDLE_LIMIT = 120.0
"""Seconds a running build may go without using any CPU before it is taken for hung: a build works
all the time, and Zensical 0.0.73 on large digests (from about 25,000 papers here) prints "Build
started" and then waits for ever, its threads parked (benchmarks/notes/design.md)."""
CHECK_EVERY = 2.0


def run_watched(command: list[str], folder: Path, idle_limit: float = IDLE_LIMIT) -> tuple[int, str]:
    """Run ``command`` in ``folder``; its exit code and what it printed. Stopped, with a DigestError,
    when it has used no CPU for ``idle_limit`` seconds (read from /proc where the system has it;
    elsewhere it is left to run)."""
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as printed:
        process = subprocess.Popen(command, cwd=folder, stdout=printed, stderr=subprocess.STDOUT, text=True)
        last_cpu, idle_since = _cpu_seconds(process.pid), time.monotonic()
        while True:
            try:
                returncode = process.wait(timeout=CHECK_EVERY)
                break
            except subprocess.TimeoutExpired:
                pass
            cpu = _cpu_seconds(process.pid)
            if cpu is None or cpu != last_cpu:
                last_cpu, idle_since = cpu, time.monotonic()
            elif time.monotonic() - idle_since >= idle_limit:
                process.kill()
                process.wait()
                raise DigestError(
                    f"zensical build stopped: it used no CPU for {idle_limit:.0f} s, so it had hung "
                    "(Zensical does this on large digests); build with --engine mkdocs"
                )
        printed.seek(0)
        return returncode, printed.read()


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time a process has used (all its threads), from /proc; None where that is not known."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


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

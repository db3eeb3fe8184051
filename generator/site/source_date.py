"""The date a site is built as: taken from its inputs, not from the clock, so the same abstracts build
the same site on any day (MkDocs dates every page in sitemap.xml with ``SOURCE_DATE_EPOCH``, or with
today's date when it is unset, and a published digest's history would show 100 changed dates a day
where nothing changed).

The date is, in order:

1. ``SOURCE_DATE_EPOCH`` when the environment sets it (the reproducible-builds convention: the
   person building knows best);
2. otherwise the newest change to the input files: for a file that git tracks, unmodified, the
   time of the last commit that changed it (a fresh clone, as the Pages workflow makes, sets every
   file's modification time to the moment of the clone, so that time would change every run); for
   a file git does not know or that has uncommitted changes, its modification time.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from generator.errors import DigestError
from generator.sources import expand_inputs

ENVIRONMENT_VARIABLE = "SOURCE_DATE_EPOCH"


def source_date_epoch(inputs: Sequence[Path], environ: Mapping[str, str] | None = None) -> int | None:
    """Seconds since 1970 the site built from ``inputs`` is dated by; ``None`` for no input files."""
    environ = os.environ if environ is None else environ
    given = environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if given:
        if not given.isdigit():
            raise DigestError(f"{ENVIRONMENT_VARIABLE}={given!r}: expected whole seconds since 1970")
        return int(given)
    files = sorted({path.resolve() for path in expand_inputs(inputs)[0]})
    if not files:
        return None
    newest, committed = _newest_commit(files)
    times = [int(path.stat().st_mtime) for path in files if path not in committed]
    return max([*times, *([newest] if newest is not None else [])])


@contextlib.contextmanager
def dated(epoch: int | None) -> Iterator[None]:
    """``SOURCE_DATE_EPOCH`` set to ``epoch`` for the block (MkDocs reads it from the environment, as
    ``mkdocs build`` run by hand would), then put back as it was."""
    saved = os.environ.get(ENVIRONMENT_VARIABLE)
    if epoch is not None:
        os.environ[ENVIRONMENT_VARIABLE] = str(epoch)
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(ENVIRONMENT_VARIABLE, None)
        else:
            os.environ[ENVIRONMENT_VARIABLE] = saved


def _newest_commit(files: Sequence[Path]) -> tuple[int | None, set[Path]]:
    """The time of the newest commit that changed any of the ``files`` git tracks without
    uncommitted changes, and those files. ``(None, set())`` when git is missing or the files are in
    no repository."""
    git = shutil.which("git")
    if git is None:
        return None, set()
    by_repository: dict[Path, list[Path]] = {}
    for folder in sorted({path.parent for path in files}):
        top = _git(git, folder, "rev-parse", "--show-toplevel")
        if top:
            repository = Path(top.strip()).resolve()
            by_repository.setdefault(repository, []).extend(p for p in files if p.parent == folder)
    newest: int | None = None
    committed: set[Path] = set()
    for repository, paths in by_repository.items():
        names = [path.relative_to(repository).as_posix() for path in paths if path.is_relative_to(repository)]
        tracked = _git(git, repository, "ls-files", "-z", "--", *names)
        changed = _git(
            git, repository, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *names
        )
        if tracked is None or changed is None:
            continue
        dirty = {entry[3:] for entry in changed.split("\0") if len(entry) > 3}
        clean = sorted(set(tracked.split("\0")) - dirty - {""})
        when = _git(git, repository, "log", "-1", "--format=%ct", "--", *clean) if clean else None
        if when and when.strip().isdigit():
            newest = max(newest or 0, int(when.strip()))
            committed.update(repository / name for name in clean)
    return newest, committed


def _git(git: str, folder: Path, *arguments: str) -> str | None:
    try:
        run = subprocess.run(
            [git, "-C", str(folder), *arguments],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return run.stdout if run.returncode == 0 else None

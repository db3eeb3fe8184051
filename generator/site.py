"""Writing the docs folder and building it with MkDocs, replacing the old site only on success."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from generator.errors import DigestError

MANIFEST_NAME = ".paper-digest-manifest.json"
"""Lists the files the generator wrote into a docs folder, so stale ones can be removed
and hand-written ones are never touched. MkDocs skips dot files, so it is not published."""

MATHJAX_FILES = ("tex-mml-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions")
MATHJAX_TARGET = "assets/mathjax"


@dataclass(frozen=True)
class DocsWriteReport:
    written: int
    unchanged: int
    removed: int


@contextmanager
def build_lock(docs_dir: Path) -> Iterator[None]:
    """One build at a time per docs folder; a second one stops with a clear message instead of waiting."""
    docs_dir = docs_dir.absolute()
    docs_dir.parent.mkdir(parents=True, exist_ok=True)
    lock_path = docs_dir.parent / f".{docs_dir.name}.paper-digest.lock"
    with open(lock_path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            raise DigestError(
                f"another paper-digest build (pid {holder}) is writing {docs_dir}; wait for it to finish"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def mathjax_files() -> dict[str, bytes]:
    """MathJax 3 from the ``django-static-mathjax`` package, so pages never fetch it from a CDN."""
    import mathjax

    root = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    files: dict[str, bytes] = {}
    for name in MATHJAX_FILES:
        path = root / name
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.is_file():
                files[f"{MATHJAX_TARGET}/{file.relative_to(root).as_posix()}"] = file.read_bytes()
    if f"{MATHJAX_TARGET}/tex-mml-chtml.js" not in files:
        raise DigestError(f"MathJax not found in {root}; reinstall django-static-mathjax")
    return files


def read_manifest(docs_dir: Path) -> dict:
    try:
        manifest = json.loads((docs_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def write_docs(
    files: Mapping[str, str | bytes], docs_dir: Path, digest_name: str, hand_written_from: Path | None
) -> DocsWriteReport:
    """Make ``docs_dir`` hold exactly ``files`` plus the hand-written pages.

    Files whose content is unchanged are not rewritten (so MkDocs' reload stays quick); generated
    files from an earlier build that are no longer produced are removed. ``hand_written_from`` is the
    project's own docs folder, copied in when building somewhere else.
    """
    docs_dir.mkdir(parents=True, exist_ok=True)
    previous = set(read_manifest(docs_dir).get("files", []))
    wanted: dict[str, bytes] = {
        path: content.encode("utf-8") if isinstance(content, str) else content
        for path, content in files.items()
    }
    if hand_written_from is not None and hand_written_from.resolve() != docs_dir.resolve():
        source_generated = set(read_manifest(hand_written_from).get("files", []))
        for file in sorted(hand_written_from.rglob("*")):
            relative = file.relative_to(hand_written_from).as_posix()
            if file.is_file() and relative not in source_generated and relative != MANIFEST_NAME:
                wanted.setdefault(relative, file.read_bytes())

    written = unchanged = 0
    for relative, content in wanted.items():
        target = _inside(docs_dir, relative)
        if target.is_file() and target.stat().st_size == len(content) and target.read_bytes() == content:
            unchanged += 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.tmp")
        temporary.write_bytes(content)
        temporary.replace(target)
        written += 1

    removed = 0
    for relative in sorted(previous - wanted.keys()):
        target = _inside(docs_dir, relative)
        if target.is_file():
            target.unlink()
            removed += 1
            _remove_empty_parents(target.parent, docs_dir)

    manifest = {"name": digest_name, "files": sorted(wanted)}
    (docs_dir / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return DocsWriteReport(written=written, unchanged=unchanged, removed=removed)


def _inside(root: Path, relative: str) -> Path:
    target = (root / relative).resolve()
    if not target.is_relative_to(root.resolve()):
        raise DigestError(f"refusing to write {relative!r}: it is outside {root}")
    return target


def _remove_empty_parents(folder: Path, root: Path) -> None:
    root = root.resolve()
    folder = folder.resolve()
    while folder != root and folder.is_relative_to(root) and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def _mkdocs_config(config_file: Path, docs_dir: Path, site_dir: Path):
    from mkdocs.config import load_config
    from mkdocs.exceptions import ConfigurationError

    if not config_file.is_file():
        raise DigestError(f"MkDocs configuration {config_file} not found")
    try:
        return load_config(config_file=str(config_file), docs_dir=str(docs_dir), site_dir=str(site_dir))
    except ConfigurationError as error:
        raise DigestError(f"{config_file}: {error}") from None


def _show_mkdocs_warnings() -> None:
    logger = logging.getLogger("mkdocs")
    if not any(getattr(h, "_paper_digest", False) for h in logger.handlers):
        handler = logging.StreamHandler()
        handler.setLevel(logging.WARNING)
        handler.setFormatter(logging.Formatter("mkdocs %(levelname)s: %(message)s"))
        handler._paper_digest = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


def build_site(config_file: Path, docs_dir: Path, site_dir: Path) -> None:
    """Run ``mkdocs build`` into a fresh folder beside ``site_dir`` and swap it in only when it succeeded."""
    from mkdocs.commands.build import build
    from mkdocs.exceptions import Abort, MkDocsException

    _show_mkdocs_warnings()
    site_dir = site_dir.resolve()
    site_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{site_dir.name}.building-", dir=site_dir.parent))
    try:
        config = _mkdocs_config(config_file, docs_dir.resolve(), staging)
        try:
            build(config)
        except (Abort, MkDocsException) as error:
            raise DigestError(f"mkdocs build failed: {error}") from None
        _swap_in(staging, site_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap_in(new: Path, target: Path) -> None:
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{new.name.rsplit('-', 1)[-1]}")
        target.rename(old)
    new.rename(target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def serve_site(config_file: Path, docs_dir: Path, dev_addr: str | None) -> None:
    """``mkdocs serve`` with live reload, on the given docs folder."""
    from mkdocs.commands.serve import serve

    _show_mkdocs_warnings()
    options = {"docs_dir": str(docs_dir.resolve())}
    if dev_addr:
        options["dev_addr"] = dev_addr
    serve(config_file=str(config_file), livereload=True, **options)

"""The docs folder written (staged beside the old one, with a manifest of what the generator wrote) and,
with the site the later stages build from it, swapped in only when everything succeeded."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from generator.errors import DigestError

MANIFEST_NAME = ".paper-digest-manifest.json"
"""Lists the files the generator wrote into a docs folder, so stale ones can be removed
and hand-written ones are never touched. MkDocs skips dot files, so it is not published."""

RECORDED_HASH_LENGTH = 32
"""Hex digits of a docs file's sha256 the manifest records (128 bits)."""

SITE_STAMP = ".paper-digest-build"
"""In the built site: the fingerprint of what it was built from, so an unchanged rebuild can skip MkDocs."""

MATHJAX_FILES = ("tex-mml-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions")
MATHJAX_TARGET = "assets/mathjax"


@dataclass(frozen=True)
class LazyFile:
    """A docs file rendered only when needed. ``key`` names everything its content is made from:
    when the docs folder holds the file a previous build made from the same key, unchanged, that
    file is kept and ``render`` never runs. With no key it is always rendered."""

    key: str | None
    render: Callable[[], str]


@dataclass(frozen=True)
class DocsWriteReport:
    written: int
    unchanged: int
    removed: int
    fingerprint: str
    """A hash of every staged docs file, path and content."""
    removed_files: tuple[str, ...] = ()
    """Generated files of the previous build that this one no longer writes."""


class BuildLockBusy(DigestError):
    """Another build holds the docs folder's lock."""


def lock_file(docs_dir: Path) -> Path:
    """The file ``build_lock`` locks for ``docs_dir``, beside it."""
    docs_dir = docs_dir.absolute()
    return docs_dir.parent / f".{docs_dir.name}.paper-digest.lock"


@contextmanager
def build_lock(docs_dir: Path, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """One build at a time per docs folder. When another holds it, a second one stops with a clear
    message, or, given ``on_wait``, tells it the holder's pid and waits for its turn."""
    lock_path = lock_file(docs_dir)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            if on_wait is None:
                raise BuildLockBusy(
                    f"another paper-digest build (pid {holder}) is writing {docs_dir.absolute()}; "
                    "wait for it to finish"
                ) from None
            on_wait(holder)
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def build_running(docs_dir: Path) -> bool:
    """Whether a build holds ``build_lock`` for ``docs_dir`` now. Asked without writing the lock
    file, so a watcher of the folder sees no change."""
    try:
        with open(lock_file(docs_dir), "rb") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
    except FileNotFoundError:
        return False
    return False


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


ASSETS_DIR = Path(__file__).with_name("assets")
"""The site's own scripts and styles (the map, MathJax's settings, the CSS), shipped in the package."""


def asset_files() -> dict[str, bytes]:
    """The package's site assets, by their path in the docs folder."""
    return {
        file.relative_to(ASSETS_DIR).as_posix(): file.read_bytes()
        for file in sorted(ASSETS_DIR.rglob("*"))
        if file.is_file()
    }


def read_manifest(docs_dir: Path) -> dict:
    try:
        manifest = json.loads((docs_dir / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


class StagedOutput:
    """New docs (and site) built beside the old ones and swapped in only when everything succeeded.

    Until ``publish``, the previous docs folder and site stay exactly as they were, so a failure or
    Ctrl-C anywhere in the build leaves them intact; ``discard`` removes the staging folders.
    """

    def __init__(self, docs_dir: Path, site_dir: Path | None) -> None:
        self.docs_dir = docs_dir.absolute()
        self.site_dir = site_dir.absolute() if site_dir else None
        self.docs_dir.parent.mkdir(parents=True, exist_ok=True)
        self.staged_docs = Path(
            tempfile.mkdtemp(prefix=f".{self.docs_dir.name}.staging-", dir=self.docs_dir.parent)
        )
        self.staged_site: Path | None = None
        # What ``write_docs`` staged, so ``replace_docs`` can report on the whole again.
        self._digests: dict[str, bytes] = {}
        """sha256 of each staged docs file."""
        self._changed: set[str] = set()
        """Staged files that differ from the current docs."""
        self._removed = 0
        self._removed_files: tuple[str, ...] = ()
        if self.site_dir is not None:
            self.site_dir.parent.mkdir(parents=True, exist_ok=True)
            self.staged_site = Path(
                tempfile.mkdtemp(prefix=f".{self.site_dir.name}.staging-", dir=self.site_dir.parent)
            )

    def write_docs(
        self, files: Mapping[str, str | bytes | LazyFile], digest_name: str, hand_written_from: Path | None
    ) -> DocsWriteReport:
        """Stage ``files``, plus every file in the current docs folder that the generator did not write
        (hand-written pages, theme overrides), plus the project's hand-written docs when building elsewhere.

        Unchanged files are hard links to the current ones, so their timestamps stay and MkDocs' reload
        stays quick; changed files are new files, so the current docs are never modified in place.
        """
        manifest = read_manifest(self.docs_dir)
        previous = set(manifest.get("files", []))
        made_from = manifest.get("keys")
        made_from = made_from if isinstance(made_from, dict) else {}
        wanted: dict[str, bytes | LazyFile] = {
            path: content.encode("utf-8") if isinstance(content, str) else content
            for path, content in files.items()
        }
        # The project's own hand-written files first, so an updated one replaces its old copy here.
        for source in (hand_written_from, self.docs_dir):
            if source is None or not source.is_dir():
                continue
            generated = set(read_manifest(source).get("files", [])) | {MANIFEST_NAME}
            for file in sorted(source.rglob("*")):
                relative = file.relative_to(source).as_posix()
                if file.is_file() and relative not in generated and relative not in wanted:
                    wanted[relative] = file.read_bytes()

        self._digests.clear()
        self._changed.clear()
        # Per keyed file: its key, the start of its sha256, its size and modification time.
        keys: dict[str, list[str | int]] = {}
        for relative, content in sorted(wanted.items()):
            if not isinstance(content, LazyFile):
                self._stage_doc(relative, content)
            elif content.key is None:
                self._stage_doc(relative, content.render().encode("utf-8"))
            elif (kept := self._keep_made_from(relative, content.key, made_from.get(relative))) is not None:
                keys[relative] = kept
            else:
                written = self._stage_doc(relative, content.render().encode("utf-8"))
                stamp = self._file_stamp(_inside(self.staged_docs, relative))
                keys[relative] = [content.key, written, *stamp]
        manifest = {"name": digest_name, "files": sorted(files), "keys": keys}
        (self.staged_docs / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        self._removed = len(previous - files.keys())
        self._removed_files = tuple(sorted(previous - wanted.keys()))
        return self._counted_report()

    def replace_docs(self, files: Mapping[str, str | bytes]) -> DocsWriteReport:
        """Give files staged by ``write_docs`` their final content, in the staged docs and in the
        staged site MkDocs built from them (it copies such files as they are)."""
        for relative, content in files.items():
            data = content.encode("utf-8") if isinstance(content, str) else content
            if relative not in self._digests:
                raise ValueError(f"{relative} was not staged")
            self._stage_doc(relative, data)
            if self.staged_site is not None:
                built = _inside(self.staged_site, relative)
                if built.is_file():
                    built.unlink()
                    built.write_bytes(data)
        return self._counted_report()

    def _keep_made_from(self, relative: str, key: str, recorded: object) -> list[str | int] | None:
        """Stage the current docs file as it is when the manifest says it was made from ``key`` and
        it still holds what was written then: its size and modification time as recorded (a file
        edited since has another), or else its content's hash. Returns the file's record for the
        new manifest (stamped anew when its content had to be read), ``None`` when it is not kept."""
        if not (isinstance(recorded, list) and len(recorded) in (2, 4) and recorded[0] == key):
            return None
        if not (isinstance(recorded[1], str) and len(recorded[1]) == RECORDED_HASH_LENGTH):
            return None
        current = _inside(self.docs_dir, relative)
        try:
            untouched = len(recorded) == 4 and self._file_stamp(current) == recorded[2:]
            if not untouched:
                digest = hashlib.sha256(current.read_bytes()).hexdigest()[:RECORDED_HASH_LENGTH]
                if digest != recorded[1]:
                    return None
        except (OSError, ValueError):
            return None
        staged = self._staged_path(relative)
        _link_or_copy(current, staged)
        self._digests[relative] = bytes.fromhex(recorded[1])
        self._changed.discard(relative)
        # Stamped anew when it was read, so the next build need not read it again.
        return list(recorded) if untouched else [key, recorded[1], *self._file_stamp(staged)]

    @staticmethod
    def _file_stamp(path: Path) -> list[int]:
        status = path.stat()
        return [status.st_size, status.st_mtime_ns]

    def _staged_path(self, relative: str) -> Path:
        """Where ``relative`` goes in the staged docs, its folder made and any earlier file gone (so
        nothing is ever written through a link into the current docs)."""
        target = _inside(self.staged_docs, relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        return target

    def _stage_doc(self, relative: str, content: bytes) -> str:
        """Unchanged files are hard links to the current ones; changed ones new files. Returns the
        start of the content's sha256, as the manifest records it."""
        # The recorded length for every file, so a kept file counts as the same file written again.
        self._digests[relative] = hashlib.sha256(content).digest()[: RECORDED_HASH_LENGTH // 2]
        target = self._staged_path(relative)
        current = _inside(self.docs_dir, relative)
        if current.is_file() and current.stat().st_size == len(content) and current.read_bytes() == content:
            _link_or_copy(current, target)
            self._changed.discard(relative)
        else:
            target.write_bytes(content)
            self._changed.add(relative)
        return self._digests[relative].hex()[:RECORDED_HASH_LENGTH]

    def _counted_report(self) -> DocsWriteReport:
        fingerprint = hashlib.sha256()
        for relative, digest in sorted(self._digests.items()):
            fingerprint.update(relative.encode() + b"\0" + digest)
        return DocsWriteReport(
            written=len(self._changed),
            unchanged=len(self._digests) - len(self._changed),
            removed=self._removed,
            fingerprint=fingerprint.hexdigest(),
            removed_files=self._removed_files,
        )

    def _stamp(self) -> dict:
        if self.site_dir is None:
            return {}
        try:
            stamp = json.loads(_read_text(self.site_dir / SITE_STAMP) or "")
        except ValueError:
            return {}
        return stamp if isinstance(stamp, dict) else {}

    def site_is_current(self, fingerprint: SiteFingerprint) -> bool:
        """Whether the published site was built from exactly these docs and settings."""
        return self._stamp() == fingerprint.as_stamp()

    def stage_site_update(self, fingerprint: SiteFingerprint, share_files: bool = False) -> bool:
        """Copy the published site into the staging folder when it was built with the same settings,
        so only changed pages need building; ``False`` (nothing copied) when it was not.

        With ``share_files`` the copy's files are hard links to the published ones (where the file
        system allows), which costs no copying: only for a build whose every writer replaces a file
        rather than rewriting it (``generator.engine.mkdocs_update``, ``settings.site_files_may_be_shared``).
        """
        if self.site_dir is None or self.staged_site is None:
            return False
        if self._stamp().get("settings") != fingerprint.settings:
            return False
        try:
            # Both keep the timestamps MkDocs' dirty build compares with the Markdown's.
            copy = _link_or_copy if share_files else shutil.copy2
            shutil.copytree(self.site_dir, self.staged_site, copy_function=copy, dirs_exist_ok=True)
        except OSError:
            shutil.rmtree(self.staged_site, ignore_errors=True)
            self.staged_site.mkdir()
            return False
        return True

    def keep_current_site(self) -> None:
        """Publish the docs only; the current site stays as it is."""
        if self.staged_site is not None:
            shutil.rmtree(self.staged_site, ignore_errors=True)
            self.staged_site = None

    def publish(self, site_fingerprint: SiteFingerprint | None = None) -> None:
        """Swap in the staged docs, and the staged site if one was built (stamped with its fingerprint)."""
        _swap_in(self.staged_docs, self.docs_dir)
        if self.staged_site is not None and self.site_dir is not None and site_fingerprint is not None:
            stamp = json.dumps(site_fingerprint.as_stamp())
            # A new file, not the old one rewritten: it may be the published site's stamp too (a link).
            staged_stamp = self.staged_site / f"{SITE_STAMP}.new"
            staged_stamp.write_text(stamp, encoding="utf-8")
            staged_stamp.replace(self.staged_site / SITE_STAMP)
            _swap_in(self.staged_site, self.site_dir)

    def discard(self) -> None:
        for folder in (self.staged_docs, self.staged_site):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


@dataclass(frozen=True)
class SiteFingerprint:
    """What a built site depends on: the docs, and the settings every page is rendered with."""

    docs: str
    settings: str

    def as_stamp(self) -> dict[str, str]:
        return {"docs": self.docs, "settings": self.settings}


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _inside(root: Path, relative: str) -> Path:
    """``root / relative``, refusing a path that would leave ``root``. Checked on the path's words,
    not by resolving it on disk: that cost 2 s per build at 4,000 files, and the staging folders it
    writes to are new and hold no symbolic links."""
    path = PurePosixPath(relative)
    if not path.parts or path.is_absolute() or ".." in path.parts:
        raise DigestError(f"refusing to write {relative!r}: it is outside {root}")
    return root / path


def _swap_in(new: Path, target: Path) -> None:
    """Put ``new`` where ``target`` is: two renames on one file system, the old folder removed after,
    by a process of its own, with any an earlier build left (one stopped while its was removed)."""
    if target.exists():
        target.rename(target.with_name(f".{target.name}.old-{os.getpid()}-{time.time_ns()}"))
    new.rename(target)
    _remove_in_background(sorted(target.parent.glob(f".{target.name}.old-*")))


def _remove_in_background(folders: Sequence[Path]) -> None:
    """Delete ``folders`` without waiting: the build is done once the new folder is in place. At 50,000
    papers the old site is 113k files in 63k folders, whose deletion took 21 s of an edit's build."""
    if not folders:
        return
    command = [sys.executable, "-c", _REMOVE_FOLDERS, *map(str, folders)]
    try:
        # The child forks the remover and returns at once, so nothing is left to reap here.
        subprocess.run(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


# A session of its own: not stopped by a Ctrl-C meant for the next build.
_REMOVE_FOLDERS = """
import os, shutil, sys
if os.fork() == 0:
    os.setsid()
    for folder in sys.argv[1:]:
        shutil.rmtree(folder, ignore_errors=True)
"""

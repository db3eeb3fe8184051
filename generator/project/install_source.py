"""Where a digest's publishing workflow gets Paper Digest from: the running tool's own install source.

pip records how it installed a distribution in ``direct_url.json`` (PEP 610): nothing for a release from
an index, ``vcs_info`` for a Git URL, ``archive_info`` for a wheel or sdist file or URL, ``dir_info`` for a
local folder (editable or not). ``paper-digest new`` turns that into the one line of the digest's
``requirements.txt``, so the runner installs the code that made the digest, not whatever a name resolves to.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from generator import DISTRIBUTION, __version__

ARCHIVE_FOLDER = "paper-digest"
"""Where a local wheel is copied in the digest folder. Not ``wheels/`` or ``dist/``: GitHub's Python
.gitignore template ignores both, and an ignored wheel would be missing on the runner."""
ARCHIVE_SUFFIXES = (".whl", ".tar.gz", ".zip")
REQUIREMENTS_FILE = "requirements.txt"
UNREACHABLE = ", which a GitHub runner cannot reach"


@dataclass(frozen=True)
class InstallSource:
    requirement: str
    """The line of requirements.txt: a release pin, a ``name @ URL`` or a path inside the digest folder."""
    archive: Path | None = None
    """A local package file to copy to ``requirement`` (a path relative to the digest folder)."""
    warning: str | None = None
    """Why the line is not the code that is running, when a runner cannot reach that code."""


def running_install_source(name: str = DISTRIBUTION) -> InstallSource:
    """The install source of the installed distribution ``name``, read from its metadata."""
    try:
        installed = distribution(name)
    except PackageNotFoundError:
        return _release(
            name,
            __version__,
            f"{name} is not installed (is it run from a source folder?), so where a runner could get "
            "this code is unknown",
        )
    if installed.read_text("INSTALLER") is None:
        # Metadata no installer wrote: a source folder's .egg-info, which says nothing of a release.
        folder = str(Path(str(installed.locate_file(""))).absolute())
        return _release(
            name,
            installed.version,
            f"{name} runs from the source folder {folder}{UNREACHABLE}",
            folder=folder,
        )
    text = installed.read_text("direct_url.json")
    try:
        direct_url = json.loads(text) if text else None
    except json.JSONDecodeError:
        return _release(
            name,
            installed.version,
            f"{name}'s direct_url.json is unreadable, so where it came from is unknown",
        )
    return source_from_direct_url(name, installed.version, direct_url)


def source_from_direct_url(name: str, version: str, direct_url: Mapping | None) -> InstallSource:
    """The install source of a distribution that PEP 610's ``direct_url`` describes (None: from an index)."""
    if direct_url is None:
        return InstallSource(f"{name}=={version}")
    url = str(direct_url.get("url", ""))
    local = urlparse(url).scheme == "file"
    if "vcs_info" in direct_url and not local:
        vcs = direct_url["vcs_info"]
        subdirectory = direct_url.get("subdirectory")
        fragment = f"#subdirectory={subdirectory}" if subdirectory else ""
        return InstallSource(f"{name} @ {vcs['vcs']}+{url}@{vcs['commit_id']}{fragment}")
    if "archive_info" in direct_url and not local:
        sha256 = _sha256(direct_url["archive_info"])
        return InstallSource(f"{name} @ {url}" + (f"#sha256={sha256}" if sha256 else ""))
    where = url2pathname(unquote(urlparse(url).path)) if local else url
    if "archive_info" in direct_url:
        archive = Path(where)
        if not archive.name.endswith(ARCHIVE_SUFFIXES):
            return _release(name, version, f"{name} was installed from {archive}, not a wheel or an sdist")
        if not archive.is_file():
            return _release(name, version, f"{name} was installed from {archive}, which is no longer there")
        return InstallSource(f"./{ARCHIVE_FOLDER}/{archive.name}", archive=archive)
    if "dir_info" in direct_url:
        kind = "an editable install" if direct_url["dir_info"].get("editable") else "installed"
        return _release(name, version, f"{name} is {kind} of the folder {where}{UNREACHABLE}", folder=where)
    return _release(name, version, f"{name} was installed from the local repository {where}{UNREACHABLE}")


def _release(name: str, version: str, reason: str, folder: str | None = None) -> InstallSource:
    """The release pin, with a warning that says why the running code itself is not named."""
    hint = (
        f" To publish with this very code, build its wheel in the digest folder "
        f"(pip wheel --no-deps -w {ARCHIVE_FOLDER} {folder}) and write its path "
        f"(./{ARCHIVE_FOLDER}/NAME.whl) in requirements.txt."
        if folder
        else ""
    )
    return InstallSource(
        f"{name}=={version}",
        warning=f"{reason}. requirements.txt names the release {name}=={version} instead; publishing "
        f"works once that release is on PyPI.{hint}",
    )


def _sha256(archive_info: Mapping) -> str | None:
    hashes = archive_info.get("hashes") or {}
    if "sha256" in hashes:
        return str(hashes["sha256"])
    legacy = str(archive_info.get("hash", ""))  # PEP 610's older "sha256=<hex>" form
    return legacy.removeprefix("sha256=") if legacy.startswith("sha256=") else None


def requirements_text(source: InstallSource) -> str:
    """requirements.txt: what it is, how to change it, and the one line."""
    return (
        "# The Paper Digest that .github/workflows/pages.yml installs (pip install -r requirements.txt),\n"
        f"# written by `paper-digest new`. To upgrade, write a release here, e.g. {DISTRIBUTION}==X.Y.Z\n"
        f"{source.requirement}\n"
    )

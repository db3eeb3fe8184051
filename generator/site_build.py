"""The site built from a written docs folder: the complete settings, the renderer (one replaceable
stage, ``generator.engine``) and the finishing stage over its HTML (``generator.finish``)."""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from generator import source_fingerprint
from generator.errors import DigestError
from generator.progress import show_warnings
from generator.project.settings import ENGINES
from generator.site.output import SiteFingerprint

DEFAULT_ENGINE = "mkdocs"


@dataclass(frozen=True)
class SiteBuildReport:
    render_seconds: float
    """The engine's own time."""
    finish_seconds: float
    pages: int
    """Pages finished (all of them, or those an update rendered)."""


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise DigestError(f"unknown engine {engine!r}: expected one of {', '.join(ENGINES)}")
    return engine


def engine_can_update(engine: str) -> bool:
    """Whether the engine can update a copy of the last site, rendering only the changed pages."""
    return engine == "mkdocs"


def build_site(
    config_file: Path,
    docs_dir: Path,
    site_dir: Path,
    update: bool = False,
    removed_docs: Sequence[str] = (),
    site_url: str | None = None,
    engine: str = DEFAULT_ENGINE,
) -> SiteBuildReport:
    """Build ``docs_dir`` into ``site_dir`` (a staging folder) with ``engine`` and finish its pages.
    With ``update`` (MkDocs only), ``site_dir`` holds a copy of the previous site, built with the same
    settings, and only pages whose Markdown changed are rendered and finished again; ``removed_docs``
    are the docs files gone since, whose pages are removed. ``site_url`` wins over mkdocs.yml's."""
    from generator.engine.settings import complete_settings, written_settings
    from generator.finish.pages import FinishOptions, finish_site, page_states

    check_engine(engine)
    values = complete_settings(config_file, docs_dir, site_dir, site_url)
    before = page_states(site_dir) if update else None
    started = time.perf_counter()
    if engine == "zensical":
        from generator.engine import zensical

        folder = zensical.settings_folder(config_file, docs_dir, site_dir)
        with written_settings(zensical.settings_for_zensical(values), config_file, folder) as settings:
            zensical.render(settings.path, site_dir)
        template_dirs = (*settings.template_dirs, zensical.template_folder())
    else:
        from generator.engine import mkdocs

        with written_settings(values, config_file) as settings:
            dirs = mkdocs.render(
                settings, site_dir, update=update and engine_can_update(engine), removed_docs=removed_docs
            )
        # The folder MkDocs read the page templates from is gone with the settings: Paper Digest's
        # own templates (and the owner's) are looked up where they are.
        template_dirs = (*settings.template_dirs, *dirs[1:])
    rendered = time.perf_counter()
    show_warnings("paper_digest.finish", "paper-digest")
    report = finish_site(
        site_dir,
        docs_dir,
        FinishOptions(settings.site_name, values.get("site_url"), template_dirs),
        before,
    )
    if report.refused_scripts and values.get("strict"):
        raise DigestError(
            f"{report.refused_scripts} inline script(s) are not the theme's (see the warnings above); "
            "strict: true in mkdocs.yml stops the build"
        )
    search = report.search
    logging.getLogger("paper_digest.finish").info(
        f"search index: {search.pages} pages, {search.size / 1e6:.2f} MB in {search.seconds:.1f}s"
    )
    return SiteBuildReport(rendered - started, time.perf_counter() - rendered, report.pages)


def site_fingerprint(
    docs_fingerprint: str,
    config_file: Path,
    site_name: str,
    nav_lists_topics: bool = True,
    site_url: str | None = None,
    engine: str = DEFAULT_ENGINE,
) -> SiteFingerprint:
    """The docs' hash, and one of mkdocs.yml, Paper Digest's own settings and page templates, the
    environment they read, the digest's name and whether the navigation lists Topics (every page
    shows both), the engine and its versions, Pagefind's, and this package's code (the finishing
    stage). The site's date (``generator.site.source_date``) goes with the docs: only the sitemap
    shows it, and every build, an update too, writes the sitemap whole."""
    from importlib.metadata import PackageNotFoundError, version

    from generator.engine import mkdocs, zensical
    from generator.engine.settings import settings_fingerprint

    def installed(package: str) -> str:
        try:
            return version(package)
        except PackageNotFoundError:
            return "absent"

    packages = (*(zensical.PACKAGES if engine == "zensical" else mkdocs.PACKAGES), "pagefind-bin")
    parts = [config_file.read_text(encoding="utf-8"), settings_fingerprint(), site_name, f"engine={engine}"]
    parts += [] if nav_lists_topics else ["no topics in the navigation"]
    parts += [f"{name}={os.environ.get(name, '')}" for name in ("SITE_URL", "REPO_URL")]
    parts += [f"site_url={site_url}"] if site_url else []
    parts += [f"{package}={installed(package)}" for package in packages]
    parts.append(source_fingerprint())
    settings = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()
    dated_docs = f"{docs_fingerprint} SOURCE_DATE_EPOCH={os.environ.get('SOURCE_DATE_EPOCH', '')}"
    return SiteFingerprint(docs=dated_docs, settings=settings)

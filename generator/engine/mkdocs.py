"""Rendering with MkDocs + Material (the default engine), a whole build or an update of a copied site."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from generator.engine.settings import CompleteSettings
from generator.errors import DigestError
from generator.progress import show_warnings

NAME = "mkdocs"
PACKAGES = ("mkdocs", "mkdocs-material")
"""Whose versions a built site depends on."""


def render(
    settings: CompleteSettings, site_dir: Path, update: bool = False, removed_docs: Sequence[str] = ()
) -> tuple[Path, ...]:
    """``mkdocs build`` with ``settings`` into ``site_dir`` (a staging folder). It is emptied first,
    unless ``update``: then it holds a copy of the previous site, built with the same settings, and
    only pages whose Markdown changed are built again (``generator.engine.mkdocs_update``);
    ``removed_docs`` are the docs files gone since, whose pages are removed. Returns the folders the
    page templates were found in, in lookup order."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, ConfigurationError, MkDocsException

    from generator.engine.mkdocs_update import QuietDirtyWarning, SiteUpdate

    show_warnings("mkdocs", "mkdocs")
    try:
        config = load_config(config_file=str(settings.path))
    except (Abort, ConfigurationError) as error:
        raise DigestError(f"{settings.path}: {error} (see the mkdocs message above)") from None
    build_logger = logging.getLogger("mkdocs.commands.build")
    quiet = QuietDirtyWarning()
    if update:
        config.plugins["paper-digest-site-update"] = SiteUpdate(site_dir.resolve(), list(removed_docs))
        build_logger.addFilter(quiet)
    try:
        build(config, dirty=update)
    except (Abort, MkDocsException) as error:
        raise DigestError(f"mkdocs build failed: {error}") from None
    finally:
        build_logger.removeFilter(quiet)
    return tuple(Path(folder) for folder in config["theme"].dirs)

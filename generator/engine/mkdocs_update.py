"""Updating a built site instead of building it again: MkDocs' dirty build, made whole.

MkDocs has no incremental build; its ``--dirty`` mode renders only the pages whose Markdown is newer
than their HTML, which is what a small edit needs (a full build of ICML 2024 renders 4,000 pages
to change a handful). On its own it is meant for previews: pages whose Markdown was removed stay in
the site. ``SiteUpdate`` removes them, and the finishing stage indexes the whole updated site for search
(``generator.finish.search_index``), so an updated site has the same files as a full build of the
same docs (a test builds both and compares them). It is only used on a copy of a site built with
the same mkdocs.yml, theme and versions (``generator.site.output`` checks that); anything else gets
a full build.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files

_DIRTY_WARNING = "A 'dirty' build is being performed"


class QuietDirtyWarning(logging.Filter):
    """MkDocs warns that a dirty build may leave the navigation stale; with ``strict: true`` that
    warning fails the build. Here the navigation lists only pages whose titles are set in mkdocs.yml,
    and the site is checked to match a full build, so the warning is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(_DIRTY_WARNING)


class SiteUpdate(BasePlugin):
    """Added to the MkDocs configuration for a dirty build over a copy of the previous site."""

    def __init__(self, site_dir: Path, removed_docs: list[str]) -> None:
        super().__init__()
        self.site_dir = site_dir
        self.removed_docs = removed_docs

    @event_priority(-100)
    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        self._remove_outputs_of(self.removed_docs, config)
        self._unlink_outputs_to_be_written(files, config)
        return files

    def _unlink_outputs_to_be_written(self, files: Files, config: MkDocsConfig) -> None:
        """Every output MkDocs will write again (a changed page or file, and the theme's templates,
        which it writes on every build) goes first: MkDocs writes in place, and the copy of the site
        may share its files with the published one (hard links), which must stay as it is until the
        updated site replaces it."""
        for file in files:
            if file.is_modified():
                Path(file.abs_dest_path).unlink(missing_ok=True)
        for template in config.theme.static_templates:
            for name in (template, f"{template}.gz"):  # MkDocs gzips the sitemap beside it
                (self.site_dir / name).unlink(missing_ok=True)

    def _remove_outputs_of(self, removed_docs: list[str], config: MkDocsConfig) -> None:
        for relative in removed_docs:
            output = Path(
                File(relative, config.docs_dir, str(self.site_dir), config.use_directory_urls).abs_dest_path
            )
            output.unlink(missing_ok=True)
            if output.name == "index.html" and output.parent != self.site_dir:
                with contextlib.suppress(OSError):  # the page's own folder, if nothing else is in it
                    output.parent.rmdir()

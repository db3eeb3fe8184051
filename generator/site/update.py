"""Updating a built site instead of building it again: MkDocs' dirty build, made whole.

MkDocs has no incremental build; its ``--dirty`` mode renders only the pages whose Markdown is newer
than their HTML, which is what a small edit needs (a full build of ICML 2024 renders 4,000 pages
to change a handful). On its own it is meant for previews: pages that were not rendered again drop
out of the search index, and pages whose Markdown was removed stay in the site. ``SiteUpdate``
repairs both, so an updated site has the same files as a full build of the same docs (a test builds
both and compares them). It is only used on a copy of a site built with the same mkdocs.yml, theme
and versions (``generator.site.output`` checks that); anything else gets a full build.
"""

from __future__ import annotations

import contextlib
import json
import logging
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

SEARCH_INDEX = Path("search") / "search_index.json"
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
        self.previous_entries = _read_entries(site_dir / SEARCH_INDEX)
        self.page_order: dict[str, int] = {}
        self.rendered: set[str] = set()

    @event_priority(-100)
    def on_files(self, files: Files, *, config: MkDocsConfig) -> Files:
        pages = files.documentation_pages(inclusion=InclusionLevel.is_included)
        self.page_order = {file.url: position for position, file in enumerate(pages)}
        self._remove_outputs_of(self.removed_docs, config)
        return files

    def on_page_context(self, context: dict, *, page: Page, config: MkDocsConfig, nav: Navigation) -> dict:
        self.rendered.add(page.url)
        return context

    @event_priority(-100)
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        """The search plugin wrote the entries of the pages rendered now; add back those of every
        page that was not rendered again, in the order a full build writes them."""
        path = self.site_dir / SEARCH_INDEX
        if not path.is_file():
            return
        index = json.loads(path.read_text(encoding="utf-8"))
        kept = [
            entry
            for entry in self.previous_entries
            if _page_of(entry) in self.page_order and _page_of(entry) not in self.rendered
        ]
        entries = [*kept, *index.get("docs", [])]
        entries.sort(key=lambda entry: self.page_order.get(_page_of(entry), len(self.page_order)))
        index["docs"] = entries
        path.write_text(json.dumps(index, separators=(",", ":"), default=str), encoding="utf-8")

    def _remove_outputs_of(self, removed_docs: list[str], config: MkDocsConfig) -> None:
        for relative in removed_docs:
            output = Path(
                File(relative, config.docs_dir, str(self.site_dir), config.use_directory_urls).abs_dest_path
            )
            output.unlink(missing_ok=True)
            if output.name == "index.html" and output.parent != self.site_dir:
                with contextlib.suppress(OSError):  # the page's own folder, if nothing else is in it
                    output.parent.rmdir()


def _page_of(entry: dict) -> str:
    return str(entry.get("location", "")).split("#", 1)[0]


def _read_entries(path: Path) -> list[dict]:
    try:
        entries = json.loads(path.read_text(encoding="utf-8")).get("docs", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [entry for entry in entries if isinstance(entry, dict)] if isinstance(entries, list) else []

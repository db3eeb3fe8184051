"""The site's search index: Pagefind's, written into ``pagefind/`` after MkDocs built the pages.

A reader's browser fetches only what a query needs: Pagefind's entry files and WebAssembly (about
0.2 MB, once), the index chunks holding the typed words, and one small fragment per result shown.
So the first result costs about the same at 50 papers as at 50,000, where Material's built-in search
fetched and indexed one JSON file of every page's text (0.54 KB gzipped per paper) before any.

Pagefind reads the site's searched pages (``generator.site.search_text.searchable_page``: the article,
formulas as readable text, authors as a result field), copied into a scratch folder (in memory where
there is room, else beside the site), and writes the index over the whole site each time: an update
that rendered a few pages again gets the same index as a full build of the same pages.

One index, not shards searched together (Pagefind's ``mergeIndex``), which would let an update index
only the shard of its pages, and each shard take less memory. Measured at 50,000 papers: Pagefind's
peak fell from 5.4 GB to 2.9, 1.5 and 0.75 GB with 2, 4 and 8 shards, but a query fetched 858, 1,022
and 1,411 KB (median) instead of 726 KB, its first result came later (781, 952, 1,287 ms against 561 ms
from the script's import), and a word missing from one shard was dropped there instead of excluding its
pages (a title with a nonsense word found 141 pages instead of none).

Nor can what the site asks of Pagefind make one index small at that size. At 50,000 pages its peak is
5.36 GB, reached while it builds the index (1.2 GB after reading the pages); 5.33 GB with one thread
(``RAYON_NUM_THREADS`` and ``TOKIO_WORKER_THREADS`` 1); 2.98 GB for half the pages; and 4.32 GB when
the pages hold only each paper's title and abstract. So the memory grows with the pages far more
than with their text.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from generator.errors import DigestError
from generator.site.search_text import searchable_page

INDEX_FOLDER = "pagefind"
"""Where the index is, in the site (Pagefind's own name for it, which ``javascripts/search.js`` loads)."""

UNUSED_BUNDLE_FILES = (
    "pagefind-ui.js",
    "pagefind-ui.css",
    "pagefind-modular-ui.js",
    "pagefind-modular-ui.css",
    "pagefind-component-ui.js",
    "pagefind-component-ui.css",
    "pagefind-highlight.js",
)
"""Pagefind's ready-made interfaces (0.4 MB): the site's header box (``javascripts/search.js``) uses
only its search API, ``pagefind.js``."""


@dataclass(frozen=True)
class SearchIndexReport:
    pages: int
    """Pages indexed."""
    size: int
    """Bytes of the index on disk."""
    seconds: float


def write_search_index(site_dir: Path) -> SearchIndexReport:
    """Index the searched pages of the built site in ``site_dir`` into ``site_dir/pagefind``,
    replacing any index there."""
    started = time.perf_counter()
    index_dir = site_dir / INDEX_FOLDER
    # A site being updated is a copy of the last one: its old index goes, whole (Pagefind names its
    # chunks by their content, so stale ones would stay beside the new ones).
    shutil.rmtree(index_dir, ignore_errors=True)
    *in_memory, beside_site = _scratch_parents(site_dir)
    try:
        pages = _index_through_scratch(site_dir, index_dir, in_memory[0]) if in_memory else None
    except OSError as error:
        if error.errno != errno.ENOSPC:
            raise
        pages = None  # memory's file system filled up
    if pages is None:
        pages = _index_through_scratch(site_dir, index_dir, beside_site)
    for name in UNUSED_BUNDLE_FILES:
        (index_dir / name).unlink(missing_ok=True)
    size = sum(file.stat().st_size for file in index_dir.rglob("*") if file.is_file())
    return SearchIndexReport(pages=pages, size=size, seconds=time.perf_counter() - started)


def _index_through_scratch(site_dir: Path, index_dir: Path, scratch_parent: Path) -> int:
    """Pagefind run over the searched pages copied into a scratch folder in ``scratch_parent``,
    deleted after; the number of pages."""
    with tempfile.TemporaryDirectory(prefix=f".{site_dir.name}.search-", dir=scratch_parent) as scratch:
        pages = _copy_searched_pages(site_dir, Path(scratch))
        if pages:
            _run_pagefind(Path(scratch), index_dir)
    return pages


MEMORY_FILE_SYSTEM = Path("/dev/shm")
SCRATCH_IN_MEMORY_FROM = 1 << 30
"""Free bytes in ``MEMORY_FILE_SYSTEM`` from which the scratch pages are written there (about 4 KB
a page: 0.2 GB at 50,000 papers)."""


def _scratch_parents(site_dir: Path) -> list[Path]:
    """Where the scratch pages may go, best first: memory's file system (Linux's ``/dev/shm``) when it
    has room, else beside the site. At 50,000 papers writing and deleting them took 31 s on disk and
    10 s in memory, of an edit's build."""
    parents = [site_dir.parent]
    try:
        if shutil.disk_usage(MEMORY_FILE_SYSTEM).free >= SCRATCH_IN_MEMORY_FROM and os.access(
            MEMORY_FILE_SYSTEM, os.W_OK
        ):
            parents.insert(0, MEMORY_FILE_SYSTEM)
    except OSError:
        pass
    return parents


def _copy_searched_pages(site_dir: Path, scratch: Path) -> int:
    """Write what Pagefind reads of each searched page at the page's own path in ``scratch`` (so
    Pagefind gives each result the page's address); the number of pages."""
    pages = 0
    for page in sorted(site_dir.rglob("*.html")):
        text = page.read_text(encoding="utf-8", errors="replace")
        searched = searchable_page(text)
        if searched is None:
            continue
        target = scratch / page.relative_to(site_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(searched, encoding="utf-8")
        pages += 1
    return pages


def _run_pagefind(pages_dir: Path, index_dir: Path) -> None:
    from pagefind.service import get_executable

    executable = get_executable()
    if executable is None:
        raise DigestError("Pagefind's program was not found; reinstall Paper Digest (it needs pagefind[bin])")
    command = [str(executable), "--site", str(pages_dir), "--output-path", str(index_dir), "--quiet"]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        output = (result.stderr or result.stdout).strip()
        raise DigestError(
            f"Pagefind could not index the site (exit code {result.returncode}): {output[-2000:]}"
        )

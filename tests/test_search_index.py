"""Where the search index's scratch pages go, and that the index is the same wherever they went."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from generator.finish import search_index
from generator.site.search_text import SEARCHED
from tests.conftest import search_records

PAGE = (
    '<!DOCTYPE html><html lang="en"><body><article class="md-content__inner md-typeset" '
    f"{SEARCHED}><h1>Optics of lenses</h1><p>Cameras hold lenses.</p></article></body></html>"
)


def small_site(root: Path) -> Path:
    site = root / "site"
    for name in ("a", "b"):
        (site / "papers" / name).mkdir(parents=True)
        (site / "papers" / name / "index.html").write_text(PAGE.replace("Optics", f"Optics {name}"))
    return site


def test_scratch_pages_go_to_memory_when_it_has_room(tmp_path: Path, monkeypatch) -> None:
    memory = tmp_path / "shm"
    memory.mkdir()
    monkeypatch.setattr(search_index, "MEMORY_FILE_SYSTEM", memory)
    monkeypatch.setattr(search_index, "SCRATCH_IN_MEMORY_FROM", 0)
    used: list[Path] = []
    real_run = search_index._run_pagefind
    monkeypatch.setattr(
        search_index, "_run_pagefind", lambda pages, index: (used.append(pages), real_run(pages, index))
    )
    site = small_site(tmp_path)
    report = search_index.write_search_index(site)
    assert report.pages == 2 and used[0].parent == memory
    assert sorted(r["url"] for r in search_records(site)) == ["/papers/a/", "/papers/b/"]
    assert list(memory.iterdir()) == [], "the scratch pages are deleted"

    monkeypatch.setattr(search_index, "SCRATCH_IN_MEMORY_FROM", 1 << 62)  # no room: beside the site
    assert search_index.write_search_index(site).pages == 2 and used[1].parent == site.parent


def test_a_full_memory_file_system_falls_back_to_the_disk(tmp_path: Path, monkeypatch) -> None:
    memory = tmp_path / "shm"
    memory.mkdir()
    monkeypatch.setattr(search_index, "MEMORY_FILE_SYSTEM", memory)
    monkeypatch.setattr(search_index, "SCRATCH_IN_MEMORY_FROM", 0)
    real_copy = search_index._copy_searched_pages

    def copy_or_fill(site: Path, scratch: Path) -> int:
        if scratch.parent == memory:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_copy(site, scratch)

    monkeypatch.setattr(search_index, "_copy_searched_pages", copy_or_fill)
    site = small_site(tmp_path)
    assert search_index.write_search_index(site).pages == 2
    assert len(search_records(site)) == 2 and list(memory.iterdir()) == []

    def broken(site: Path, scratch: Path) -> int:
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(search_index, "_copy_searched_pages", broken)
    with pytest.raises(PermissionError):
        search_index.write_search_index(site)

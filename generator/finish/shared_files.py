"""Files of the site that many pages share (icons, the theme's scripts), named by a hash of their content."""

from __future__ import annotations

from pathlib import Path


def write_shared_file(site_dir: Path, relative: str, content: str) -> None:
    """Write a content-addressed file of the site unless an earlier page already did. A new file,
    never one rewritten in place: a site being updated may share its files with the last one (hard
    links)."""
    target = site_dir / relative
    if target.is_file():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    staged = target.with_name(target.name + ".new")
    staged.write_text(content, encoding="utf-8")
    staged.replace(target)

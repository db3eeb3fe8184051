"""The README and the notes it links to: every relative link and #anchor leads somewhere.

The README was split into a short guide and pages under benchmarks/; a link to a renamed page or
heading breaks silently on GitHub, so the links are resolved here the way GitHub resolves them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent
PAGES = sorted([REPOSITORY / "README.md", *REPOSITORY.glob("benchmarks/**/*.md")])
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *$", re.MULTILINE)


def heading_anchors(markdown: str) -> set[str]:
    """The ids GitHub gives a page's headings: lowercase, punctuation but ``-`` and ``_`` dropped,
    spaces as ``-``, and ``-1``, ``-2`` … after repeats."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for heading in HEADING.findall(FENCE.sub("", markdown)):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
        anchor = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        repeats = seen.get(anchor, 0)
        seen[anchor] = repeats + 1
        anchors.add(anchor if repeats == 0 else f"{anchor}-{repeats}")
    return anchors


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in LINK.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: …
            continue
        file_part, _, anchor = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and anchor not in heading_anchors(linked.read_text(encoding="utf-8")):
            broken.append(f"{target}: no heading with that anchor")
    return broken


def test_anchors_follow_github() -> None:
    markdown = "# Build at scale (scale.py)\n```\n# not a heading\n```\n## Map, `Explore`\n## Map, Explore\n"
    assert heading_anchors(markdown) == {"build-at-scale-scalepy", "map-explore", "map-explore-1"}


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Present\n")
    page = tmp_path / "page.md"
    page.write_text("[a](other.md#present) [b](other.md#absent) [c](missing.md) [d](https://x.org/#y)\n")
    assert broken_links(page) == ["other.md#absent: no heading with that anchor", "missing.md: no such file"]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPOSITORY)))
def test_links_resolve(page: Path) -> None:
    assert broken_links(page) == []
